"""A MkDocs config's `nav` entries checked as links (branch mk-nav, issue 21). glightbox's docs
list `auto-themed/auto-themed.md` in their nav, a file that does not exist: every page of the built
site links to a missing page (MkDocs 1.6 warns, and fails only under `--strict`). Each test is a small project
written here, checked like `linkfix check --offline mkdocs.yml`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from linkfix.config import Config
from linkfix.model import LinkResult
from linkfix.pipeline import run_check

from .conftest import check_mkdocs_project


def nav_findings(tmp_path: Path, config: str, pages: dict[str, str]) -> dict[str, LinkResult]:
    """url -> result of every nav entry linkfix reports (those located in a YAML config)."""
    report = check_mkdocs_project(tmp_path, config, pages, site_name="")  # each config names its site
    return {r.link.url: r for r in report.results if r.link.span.path.endswith((".yml", ".yaml"))}


PAGES = {"index.md": "# Home\n", "guide/setup.md": "# Setup\n"}


def test_a_nav_entry_naming_a_missing_page_is_broken_at_its_line_and_column(tmp_path):
    found = nav_findings(tmp_path, """\
        site_name: test
        nav:
          - Home: index.md
          - Guide:
            - Setup: guide/setup.md
            - Gone: 'guide/gone.md'
        """, PAGES)
    gone = found["guide/gone.md"]
    assert gone.result.status.value == "broken"
    assert "nav" in gone.result.detail
    assert (gone.link.span.line, gone.link.span.column) == (6, 13)
    text = (tmp_path / "mkdocs.yml").read_text()
    assert text[gone.link.span.start:gone.link.span.end] == "guide/gone.md"  # inside the quotes
    assert found["index.md"].result.status.value == "ok"
    assert found["guide/setup.md"].result.status.value == "ok"


def test_urls_section_titles_and_excluded_pages(tmp_path):
    found = nav_findings(tmp_path, """\
        site_name: test
        exclude_docs: |
          drafts/
        nav:
          - index.md
          - Elsewhere: https://example.org/docs/
          - Guide:
            - guide/setup.md
          - Draft: drafts/wip.md
        """, {**PAGES, "drafts/wip.md": "# WIP\n"})
    assert found["https://example.org/docs/"].scope.value == "external"  # a URL is no page of the docs: a web link
    assert "Guide" not in found and "Elsewhere" not in found  # titles are no pages
    assert found["guide/setup.md"].result.status.value == "ok"
    assert found["drafts/wip.md"].result.status.value == "broken"  # exclude_docs: not in the built site


def test_a_page_a_known_plugin_makes_is_not_broken(tmp_path):
    found = nav_findings(tmp_path, """\
        site_name: test
        plugins:
          - print-site
        nav:
          - index.md
          - Print: print_page.md
        """, PAGES)
    assert found["print_page.md"].result.status.value == "ok"


def test_the_coverage_plugins_page_is_made_where_its_settings_say(tmp_path):
    # mkdocstrings, mkdocstrings-python and markdown-exec list mkdocs-coverage's page in their nav.
    found = nav_findings(tmp_path, """\
        site_name: test
        plugins:
          - coverage:
              page_path: reports/cov
        nav:
          - index.md
          - Coverage: reports/cov.md
          - Old: coverage.md
        """, PAGES)
    assert found["reports/cov.md"].result.status.value == "ok"
    assert found["coverage.md"].result.status.value == "broken"  # not where this config puts it


@pytest.mark.parametrize("plugin", [
    "some-page-maker",
    # mkdocs-simple-hooks runs the project's functions on any event, on_files too.
    "mkdocs-simple-hooks:\n      hooks:\n        on_files: \"docs_hooks:add_page\"",
])
def test_a_missing_page_beside_a_plugin_that_may_make_it_is_unverified(tmp_path, plugin):
    found = nav_findings(tmp_path, f"""\
site_name: test
plugins:
  - search
  - {plugin}
nav:
  - index.md
  - Made: made/page.md
""", PAGES)
    made = found["made/page.md"]
    assert made.result.status.value == "unverified"
    assert plugin.split(":")[0] in made.result.detail
    assert found["index.md"].result.status.value == "ok"


def test_an_inherited_nav_is_reported_in_the_file_that_writes_it(tmp_path):
    (tmp_path / "base.yml").write_text("site_name: test\nnav:\n  - index.md\n  - missing.md\n")
    found = nav_findings(tmp_path, "INHERIT: base.yml\n", PAGES)
    missing = found["missing.md"]
    assert missing.result.status.value == "broken"
    assert missing.link.span.path.endswith("base.yml")
    assert (missing.link.span.line, missing.link.span.column) == (4, 5)


def test_a_check_of_pages_alone_does_not_report_the_nav(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: test\nnav:\n  - missing.md\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    report = asyncio.run(run_check([str(tmp_path / "docs" / "index.md")], Config(offline=True, cache=False)))
    assert not [r for r in report.results if r.link.span.path.endswith(".yml")]


def test_fix_never_edits_a_nav_entry_even_with_a_sure_candidate(tmp_path):
    from dataclasses import replace

    from linkfix.fix.plan import NAV_NOT_EDITED, FixOptions, plan_fixes
    from linkfix.model import Candidate, Method, Report

    found = nav_findings(tmp_path, "site_name: test\nnav:\n  - index.md\n  - guide/old.md\n", PAGES)
    sure = Candidate(url="guide/setup.md", confidence=1.0, method=Method.GIT_RENAME)
    missing = replace(found["guide/old.md"], suggestions=(sure,))
    plan = plan_fixes(Report(results=(missing,)), FixOptions(min_confidence=0.5))
    assert not plan.fixes
    assert [note.message for note in plan.notes] == [NAV_NOT_EDITED]
    # the same result on a page would be patched: the nav entry alone is held back
    on_page = replace(missing, link=replace(missing.link, tag=""))
    assert plan_fixes(Report(results=(on_page,)), FixOptions(min_confidence=0.5)).fixes
