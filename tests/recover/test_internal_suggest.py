"""Suggestions for broken internal links, one test per source, through the check pipeline
(offline: they need no network)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from git_trees import commit_then_rename, git

from linkfix.config import Config
from linkfix.model import Status
from linkfix.pipeline import run_check
from linkfix.recover.calibration import DEFAULT_AUTOFIX_CONFIDENCE
from linkfix.recover.internal_links.confidence import confidence_of

OFFLINE = dict(offline=True, suggest=True, cache=False)


def check(*inputs: Path, **settings):
    return asyncio.run(run_check([str(i) for i in inputs], Config(**{**OFFLINE, **settings})))


def only_broken(report):
    (item,) = [r for r in report.results if r.result.status is not Status.OK]
    return item






def test_a_page_moved_with_git_mv(tmp_path):
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\nRead [the setup](guide/setup.md#usage) first.\n")
    (docs / "guide" / "setup.md").write_text("# Setup\n\n## Usage\n\nHow to set things up, at some length.\n")
    commit_then_rename(tmp_path, "docs/guide/setup.md", "docs/guide/installation.md")
    item = only_broken(check(docs))
    assert item.result.reason == "missing-file"
    top = item.suggestions[0]
    assert (top.url, top.method) == ("guide/installation.md#usage", "git-rename")
    assert "renamed in commit" in top.evidence["why"] and "docs/guide/setup.md → docs/guide/installation.md" in top.evidence["why"]
    assert top.confidence == confidence_of("git-rename")


def test_a_page_in_redirect_maps(tmp_path):
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nplugins:\n  - redirects:\n      redirect_maps:\n        old.md: guide/new.md\n")
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\nSee [usage](old.md#usage).\n")
    (docs / "guide" / "new.md").write_text("# New\n\n## Usage\n\nText.\n")
    item = only_broken(check(tmp_path / "mkdocs.yml"))
    assert (item.result.status, item.result.reason) == (Status.REDIRECTED, "mkdocs-redirect")
    top = item.suggestions[0]
    assert (top.url, top.method) == ("guide/new.md#usage", "redirect-map")  # the .md source, as the page links
    assert "old.md → guide/new.md" in top.evidence["why"]
    assert top.evidence["same_destination"] is True  # where the redirect page sends readers today


def test_a_typo_in_a_file_name(tmp_path):
    (tmp_path / "index.md").write_text("# Home\n\nSee [the files](configuration-file.md).\n")
    (tmp_path / "configuration-files.md").write_text("# Configuration files\n")
    top = only_broken(check(tmp_path)).suggestions[0]
    assert (top.url, top.method, top.evidence["class"]) == ("configuration-files.md", "near-name", "near-name/typo")


def test_a_typo_in_a_fragment(tmp_path):
    (tmp_path / "index.md").write_text("# Home\n\nSee [the env](#the-project-env).\n\n## The project's env\n\nText.\n")
    item = only_broken(check(tmp_path))
    assert item.result.reason == "missing-fragment"
    top = item.suggestions[0]
    assert (top.url, top.method) == ("#the-projects-env", "near-fragment")


def test_an_ambiguous_near_miss_is_offered_below_the_auto_fix_threshold(tmp_path):
    (tmp_path / "index.md").write_text("# Home\n\nSee [the guide](instxll.md).\n")
    (tmp_path / "install.md").write_text("# Install\n")
    (tmp_path / "instoll.md").write_text("# Instoll\n")
    suggestions = only_broken(check(tmp_path)).suggestions
    assert {s.url for s in suggestions} == {"install.md", "instoll.md"}
    assert {s.evidence["class"] for s in suggestions} == {"near-name/typo+rivals"}
    assert all(s.confidence < DEFAULT_AUTOFIX_CONFIDENCE for s in suggestions)


def test_nothing_is_suggested_without_suggest_and_nothing_for_a_hopeless_link(tmp_path):
    (tmp_path / "index.md").write_text("# Home\n\n[a](configuration-file.md) [b](zzz-nothing-like-it.md)\n")
    (tmp_path / "configuration-files.md").write_text("# Configuration files\n")
    report = check(tmp_path, suggest=False)
    assert all(not r.suggestions for r in report.results)
    hopeless = next(r for r in check(tmp_path).results if r.link.url.startswith("zzz"))
    assert hopeless.suggestions == ()


def test_a_renamed_heading_found_in_the_pages_history(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the questions](faq.md#faq).\n")
    (docs / "faq.md").write_text("# Help\n\n## FAQ\n\nQuestions.\n\n## Contact\n\nMail us.\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "docs")
    (docs / "faq.md").write_text("# Help\n\n## Frequently asked questions\n\nQuestions.\n\n## Contact\n\nMail us.\n")
    git(tmp_path, "commit", "-qam", "spell it out")
    item = only_broken(check(docs))
    assert item.result.reason == "missing-fragment"
    top = item.suggestions[0]
    assert (top.url, top.method, top.evidence["class"]) == ("faq.md#frequently-asked-questions", "near-fragment", "near-fragment/renamed")
    # the file named as the report names it (here, outside the working directory: in full)
    assert f"heading #faq of {docs / 'faq.md'} renamed in commit" in top.evidence["why"]


def test_a_redirect_maps_target_with_its_own_id_and_a_chain_of_maps(tmp_path):
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nplugins:\n  - redirects:\n      redirect_maps:\n"
        "        a.md: b.md\n        b.md: 'guide/new.md#usage'\n        ext.md: 'https://example.org/x'\n")
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\n[one](a.md) [two](ext.md#part)\n")
    (docs / "guide" / "new.md").write_text("# New\n\n## Usage\n\nText.\n")
    report = check(tmp_path / "mkdocs.yml")
    chained, external = (r for r in report.results if r.result.status is Status.REDIRECTED)
    top = chained.suggestions[0]
    assert (top.url, top.evidence["same_destination"]) == ("guide/new.md#usage", True)
    assert "a.md → b.md; b.md → guide/new.md#usage" in top.evidence["why"]
    assert [(s.url, s.evidence["same_destination"]) for s in external.suggestions] == [("https://example.org/x#part", True)]


def test_the_linking_page_is_never_its_own_links_replacement(tmp_path):
    # install.md links to installs.md, which git renamed to setup.md: "install.md" is a letter
    # away from the missing name, but it is the page the link is on, not where the content went
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n")
    (docs / "installs.md").write_text("# Installing\n\nHow to install, at some length.\n")
    (docs / "install.md").write_text("# Install\n\nFirst read [the steps](installs.md).\n")
    commit_then_rename(tmp_path, "docs/installs.md", "docs/setup.md")
    item = only_broken(check(docs))
    assert [s.url for s in item.suggestions] == ["setup.md"]
    top = item.suggestions[0]
    assert (top.method, top.evidence["class"]) == ("git-rename", "git-rename")  # nothing disputes it now
    assert top.confidence == confidence_of("git-rename")


def test_near_names_are_searched_once_per_missing_target_not_once_per_link(tmp_path, monkeypatch):
    # many pages linking to one missing page (or one missing id): the work must grow with the
    # distinct targets, not with the links (3,000 links to one renamed page took minutes)
    from linkfix.recover.internal_links import names, suggest

    pages = 40
    for i in range(pages):
        (tmp_path / f"page{i:02d}.md").write_text(f"# Page {i}\n\nSee [the guide](guides.md) and [its end](target.md#the-ende).\n")
    (tmp_path / "guide.md").write_text("# Guide\n")
    (tmp_path / "target.md").write_text("# Target\n\n## The end\n")
    compared, id_searches = [], []
    distance, ids = names.edit_distance, suggest.near_ids
    monkeypatch.setattr(names, "edit_distance", lambda *a, **k: compared.append(a) or distance(*a, **k))
    monkeypatch.setattr(suggest, "near_ids", lambda *a, **k: id_searches.append(a) or ids(*a, **k))
    report = check(tmp_path)
    broken = [r for r in report.results if r.result.status is Status.BROKEN]
    assert len(broken) == 2 * pages
    assert all(r.suggestions for r in broken)  # every link still gets its suggestion
    assert {r.suggestions[0].url for r in broken} == {"guide.md", "target.md#the-end"}
    assert len(compared) <= pages + 10  # one pass over the names of the directory (and of the page's ids)
    assert len(id_searches) == 1
