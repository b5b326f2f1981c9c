"""Issue 21: full `site_url` links of a MkDocs project, as a reader of the published site follows
them: a page of this build, or a site beside it on the same host (not this build's to have)."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

from linkfix.config import Config
from linkfix.model import Report
from linkfix.pipeline import run_check


def check(tmp_path: Path, config: str, pages: dict[str, str]) -> Report:
    (tmp_path / "mkdocs.yml").write_text("site_name: test\n" + textwrap.dedent(config))
    for name, text in pages.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return asyncio.run(run_check([str(tmp_path / "mkdocs.yml")], Config(offline=True, cache=False)))


def outcomes(report: Report) -> dict[str, tuple[str, str]]:
    return {r.link.url: (r.result.status.value, str(r.result.reason)) for r in report.results}


def test_an_organisation_pages_site_shares_its_host_with_the_organisations_project_sites(tmp_path):
    """mkdocstrings.github.io is mkdocstrings' own site and, at /python/, /griffe/, ..., the
    organisation's other projects' (was: 'not a URL of the built site', broken)."""
    got = outcomes(check(tmp_path, "site_url: https://mkdocstrings.github.io/\n", {
        "usage/index.md": "# Usage\n",
        "index.md": """\
            [python](https://mkdocstrings.github.io/python/) [griffe](https://mkdocstrings.github.io/griffe-sphinx)
            [usage](https://mkdocstrings.github.io/usage/) [gone](https://mkdocstrings.github.io/usage/gone/)
            [missing](https://mkdocstrings.github.io/missing.html)
            """}))
    assert got["https://mkdocstrings.github.io/python/"] == ("excluded", "outside-build")
    assert got["https://mkdocstrings.github.io/griffe-sphinx"] == ("excluded", "outside-build")
    assert got["https://mkdocstrings.github.io/usage/"] == ("ok", "")
    assert got["https://mkdocstrings.github.io/usage/gone/"][0] == "broken"  # under a directory of this build
    assert got["https://mkdocstrings.github.io/missing.html"][0] == "broken"  # a file at the top: this build's


def test_a_project_site_does_not_share_its_first_directories(tmp_path):
    got = outcomes(check(tmp_path, "site_url: https://org.github.io/proj/\n", {
        "index.md": "[gone](https://org.github.io/proj/gone/)\n"}))
    assert got["https://org.github.io/proj/gone/"][0] == "broken"


# -- a built site of a project published under a path ----------------------------------------------

def built_site(root: Path, *, canonical: bool) -> Path:
    """A small built MkDocs site of `https://x.github.io/proj/`: root-relative links carry the
    path, full URLs name the site, one of them a heading that is gone."""
    site = root / "site"
    head = '<link rel="canonical" href="https://x.github.io/proj/">' if canonical else ""
    pages = {
        "index.html": f'<html><head>{head}</head><body><a href="/proj/guide/">guide</a> <a href="/proj/guide/#setup">setup</a>'
                      '<a href="https://x.github.io/proj/guide/#removed">removed</a> <a href="/proj/gone/">gone</a></body></html>',
        "guide/index.html": '<html><body><h2 id="setup">Setup</h2><a href="../">home</a></body></html>',
        "404.html": "<html><body>not found</body></html>",
    }
    for name, text in pages.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    return site


def check_site(site: Path, caplog) -> dict[str, tuple[str, str]]:
    import logging

    with caplog.at_level(logging.WARNING):
        report = asyncio.run(run_check([str(site)], Config(offline=True, cache=False)))
    return outcomes(report)


EXPECTED = {"/proj/guide/": ("ok", ""), "/proj/guide/#setup": ("ok", ""), "https://x.github.io/proj/guide/#removed": ("broken", "missing-fragment"),
            "/proj/gone/": ("broken", "missing-file"), "../": ("ok", "")}


def test_a_built_site_takes_its_url_from_the_config_that_builds_it(tmp_path, caplog):
    """Was: 3 false alarms on `/proj/...` and the removed heading missed without --base-url."""
    (tmp_path / "mkdocs.yml").write_text("site_name: p\nsite_url: https://x.github.io/proj/\n")
    got = check_site(built_site(tmp_path, canonical=False), caplog)
    assert got == EXPECTED
    assert "published at https://x.github.io/proj/ (from site_url of" in caplog.text


def test_a_built_site_takes_its_url_from_its_home_pages_canonical_link(tmp_path, caplog):
    got = check_site(built_site(tmp_path, canonical=True), caplog)
    assert got == {**EXPECTED, "https://x.github.io/proj/": ("ok", "")}  # the canonical link itself
    assert "the canonical link of" in caplog.text


def test_a_config_that_builds_another_directory_says_nothing(tmp_path, caplog):
    (tmp_path / "mkdocs.yml").write_text("site_name: p\nsite_url: https://x.github.io/proj/\nsite_dir: public\n")
    got = check_site(built_site(tmp_path, canonical=False), caplog)
    assert got["/proj/guide/"][0] == "broken"  # the site's URL is not known: /proj/ is not this directory's
