"""Internal suggestions in a MkDocs project read from its mkdocs.yml (issue 22): a page renamed
with `git mv` and linked from a non-index page in a subfolder; a renamed page whose heading is
its old name; a heading with an id of its own; evidence that names source files."""

from __future__ import annotations

import asyncio

import pytest
from git_trees import commit_then_rename, git

from linkfix.cli import main
from linkfix.config import Config
from linkfix.model import Status
from linkfix.pipeline import run_check
from linkfix.recover.calibration import DEFAULT_AUTOFIX_CONFIDENCE
from linkfix.recover.internal_links.confidence import confidence_of

MKDOCS = "site_name: t\nmarkdown_extensions:\n  - attr_list\n  - toc:\n      permalink: true\n"




def check(*inputs: str):
    return asyncio.run(run_check(list(inputs), Config(offline=True, suggest=True, cache=False)))


def broken(report) -> dict[tuple[str, str], object]:
    return {(r.link.span.path, r.link.url): r for r in report.results if r.result.status is not Status.OK}


@pytest.fixture
def renamed(tmp_path, monkeypatch):
    """docs/configuration.md (`# Configuration`) renamed to docs/settings.md with `git mv`;
    linked from the home page and from docs/faq/configure.md, a page in a subfolder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mkdocs.yml").write_text(MKDOCS)
    docs = tmp_path / "docs"
    (docs / "faq").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\nSee [the configuration](configuration.md).\n")
    (docs / "faq" / "configure.md").write_text("# Configure\n\nSee [the configuration](../configuration.md).\n")
    (docs / "configuration.md").write_text("# Configuration\n\nHow to configure it, at some length.\n\n## Usage\n\nText.\n")
    commit_then_rename(tmp_path, "docs/configuration.md", "docs/settings.md")
    return docs


def test_a_git_mv_is_followed_from_a_page_in_a_subfolder(renamed):
    # MkDocs reads ../configuration.md from faq/configure.md against the source (docs/), not
    # against the page's URL (faq/configure/): the missing file is configuration.md.
    for source in ("mkdocs.yml", "docs"):
        item = broken(check(source))[("docs/faq/configure.md", "../configuration.md")]
        assert item.resolved == "configuration.md", source
        assert item.result.detail == "no such file: configuration.md"
        (top, *_) = item.suggestions
        assert (top.url, top.method) == ("../settings.md", "git-rename"), source


def test_a_renamed_page_titled_by_its_old_name_gets_no_fragment_and_is_fixed(renamed):
    # `# Configuration` heads settings.md: the page itself, not a section named like the old page
    found = broken(check("mkdocs.yml"))
    for key, url in ((("docs/index.md", "configuration.md"), "settings.md"),
                     (("docs/faq/configure.md", "../configuration.md"), "../settings.md")):
        (top, *_) = found[key].suggestions
        assert top.url == url
        assert top.evidence["class"] == "git-rename"
        assert top.confidence == confidence_of("git-rename") >= DEFAULT_AUTOFIX_CONFIDENCE
    assert main(["fix", "mkdocs.yml", "--offline"]) == 1
    assert (renamed / "index.md").read_text() == "# Home\n\nSee [the configuration](settings.md).\n"
    assert (renamed / "faq" / "configure.md").read_text() == "# Configure\n\nSee [the configuration](../settings.md).\n"


def test_a_page_that_became_a_section_of_another_still_gets_the_section(tmp_path, monkeypatch):
    # usage.md merged into guide.md as its `## Usage` section, guide.md titled otherwise
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mkdocs.yml").write_text(MKDOCS)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [usage](usage.md).\n")
    (docs / "usage.md").write_text("# Usage\n\nText.\n")
    commit_then_rename(tmp_path, "docs/usage.md", "docs/guide.md")
    (docs / "guide.md").write_text("# Guide\n\n## Usage\n\nText.\n")
    git(tmp_path, "commit", "-qam", "a guide of which usage is a section")
    (top, *_) = broken(check("mkdocs.yml"))[("docs/index.md", "usage.md")].suggestions
    assert top.url == "guide.md#usage"


@pytest.fixture
def custom_id(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mkdocs.yml").write_text(MKDOCS)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSet the [variables](settings.md#environment-variables).\n")
    (docs / "settings.md").write_text(
        "# Settings\n\n```sh\n# Environment variables {#not-a-heading}\n```\n\n"
        "## Environment variables { #env-vars }\n\nText.\n\n## Files\n\nText.\n")
    return docs


@pytest.mark.parametrize("source", ["mkdocs.yml", "docs"])
def test_a_missing_id_of_a_heading_with_an_id_of_its_own(custom_id, source):
    item = broken(check(source))[("docs/index.md", "settings.md#environment-variables")]
    assert item.result.reason == "missing-fragment"
    # the page's ids are listed, the nearest first
    assert item.result.detail == "no id 'environment-variables' in settings.md; its ids: #env-vars, #files, #settings"
    (top, *_) = item.suggestions
    assert (top.url, top.method, top.evidence["class"]) == ("settings.md#env-vars", "near-fragment", "near-fragment/custom-id")
    assert top.evidence["why"] == ("no id 'environment-variables' on docs/settings.md; "
                                   'the heading "Environment variables" has an id of its own, #env-vars')


def test_evidence_names_source_files_not_built_ones(tmp_path, monkeypatch):
    # faq/guide.md is published at faq/guide/: its link Configure.md names the source
    # docs/faq/Configure.md, not faq/guide/Configure.md
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mkdocs.yml").write_text(MKDOCS)
    docs = tmp_path / "docs"
    (docs / "faq").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n")
    (docs / "faq" / "guide.md").write_text("# Guide\n\nSee [configure](Configure.md).\n")
    (docs / "faq" / "configure.md").write_text("# Configure\n")
    item = broken(check("mkdocs.yml"))[("docs/faq/guide.md", "Configure.md")]
    assert item.resolved == "faq/Configure.md"
    (top, *_) = item.suggestions
    assert top.url == "configure.md"
    assert top.evidence["why"] == "no file docs/faq/Configure.md; docs/faq/configure.md is the same name spelled otherwise"
