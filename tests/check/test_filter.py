"""The one filter (check/filter, issue 42) and what issue 44.13 asks of it: `exclude` and `remap`
apply to internal links too, and an element carrying `data-proofer-ignore` (html-proofer's
attribute) or `data-linkfix-ignore` has its links, and its descendants' links, ignored."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from linkfix.check.filter import Decision, LinkFilter
from linkfix.cli import main
from linkfix.config import Config
from linkfix.formats.html.ignored import ignored_elements
from linkfix.model import Status
from linkfix.pipeline import run_check


def config(**settings) -> Config:
    return Config(**{"cache": False, "offline": True, **settings})


def check(inputs: list[str], **settings):
    report = asyncio.run(run_check(inputs, config(**settings)))
    return {r.link.url: r for r in report.results}


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A built site: a page whose links are in and out of ignored elements."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "there.html").write_text("<h1>There</h1>")
    (tmp_path / "site" / "index.html").write_text(
        "<html><body>\n"
        '<a href="gone-1.html" data-proofer-ignore>itself</a>\n'
        "<div class=x data-proofer-ignore><p><a href=gone-2.html>a descendant</a>\n"
        "<div><img src=gone-3.png></div></p></div>\n"
        '<a href="gone-4.html">after the element</a>\n'
        '<section data-linkfix-ignore="behind a login"><a href="gone-5.html">native</a></section>\n'
        '<a href="there.html">fine</a>\n'
        "</body></html>\n"
    )
    return tmp_path / "site"


# -- data-proofer-ignore, data-linkfix-ignore ----------------------------------------------------------------
def test_an_element_with_an_ignore_attribute_and_its_descendants_links_are_ignored(site):
    got = check([str(site)])
    for url in ("gone-1.html", "gone-2.html", "gone-3.png", "gone-5.html"):
        assert (got[url].result.status, got[url].result.reason) == (Status.EXCLUDED, "ignored"), url
    assert got["gone-1.html"].result.detail == "ignored by the attribute of <a data-proofer-ignore> on line 2"
    assert got["gone-3.png"].result.detail == "ignored by the attribute of <div data-proofer-ignore> on line 3"
    assert got["gone-5.html"].result.detail == "ignored by the attribute of <section data-linkfix-ignore: behind a login> on line 6"
    assert got["gone-4.html"].result.status is Status.BROKEN  # the element ended before it
    assert got["there.html"].result.status is Status.OK


def test_the_attribute_works_in_raw_html_of_a_markdown_page_and_in_the_dump(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("index.md").write_text('# T\n\n<div data-proofer-ignore markdown>\n\n[a](gone.md)\n\n</div>\n\n[b](also-gone.md)\n')
    got = check(["index.md"])
    assert got["gone.md"].result.reason == "ignored" and got["also-gone.md"].result.status is Status.BROKEN
    assert main(["check", "--dump", "index.md"]) == 0
    assert capsys.readouterr().out.splitlines() == ["also-gone.md\tindex.md:9:5"]


@pytest.mark.parametrize("html, covered", [
    ("<img data-proofer-ignore src=a.png><a href=b>b</a>", "<img data-proofer-ignore src=a.png>"),  # a void element: itself
    ("<div data-proofer-ignore><div><a href=a>x</a></div><a href=b>y</a></div><a href=c>z</a>",
     "<div data-proofer-ignore><div><a href=a>x</a></div><a href=b>y</a></div>"),  # nested: to its own end tag
    ("<div data-proofer-ignore><a href=a>never closed", "<div data-proofer-ignore>"),  # unclosed: its start tag only
    ("<div data-proofer-ignore><!-- </div> --><a href=a>x</a></div>", "<div data-proofer-ignore><!-- </div> --><a href=a>x</a></div>"),
    ("<P data-proofer-ignore><a href=a>x</a></p>", "<P data-proofer-ignore><a href=a>x</a></p>"),  # tag names in any case
])
def test_what_an_ignored_element_covers(html, covered):
    (element,) = ignored_elements(html)
    assert html[element.start:element.end] == covered


def test_an_attribute_only_named_alike_ignores_nothing():
    assert ignored_elements('<div data-proofer-ignored><a href="data-proofer-ignore">x</a></div>') == ()


# -- exclude and remap on internal links ----------------------------------------------------------------------
@pytest.fixture
def docs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs" / "guide").mkdir(parents=True)
    (tmp_path / "docs" / "guide" / "new.md").write_text("# New\n")
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[a](guide/old.md) [b](./private/notes.md) [c](guide/missing.md)\n")
    (tmp_path / "docs" / "guide" / "page.md").write_text("# Page\n\n[up](../private/notes.md)\n")
    return tmp_path / "docs"


def test_exclude_applies_to_internal_links_as_written_and_by_their_site_path(docs):
    got = check([str(docs)], exclude=[r"^\./private/", r"^guide/old\.md$"])
    assert (got["./private/notes.md"].result.status, got["./private/notes.md"].result.reason) == (Status.EXCLUDED, "excluded")  # as written
    assert got["guide/old.md"].result.detail == r"matches an exclude pattern (^guide/old\.md$)"  # its site path
    assert got["../private/notes.md"].result.status is Status.BROKEN  # written otherwise, and its site path is private/notes.md
    assert got["guide/missing.md"].result.status is Status.BROKEN


def test_include_takes_an_internal_link_back(docs):
    got = check([str(docs)], exclude=["private/"], include=[r"^\.\./"])
    assert got["./private/notes.md"].result.status is Status.EXCLUDED
    assert got["../private/notes.md"].result.status is Status.BROKEN


def test_remap_swaps_an_internal_link_as_written_or_by_its_site_path(docs):
    got = check([str(docs)], remap=[r"old\.md$ new.md", r"^private/notes\.md https://notes.example.org/"])
    assert (got["guide/old.md"].resolved, got["guide/old.md"].result.status) == ("guide/new.md", Status.OK)  # as written, then resolved
    for url in ("./private/notes.md", "../private/notes.md"):  # by the site path both resolve to
        assert (got[url].resolved, got[url].result.reason) == ("https://notes.example.org/", "offline"), url


def test_a_remap_of_a_site_path_stays_a_site_path(docs):
    got = check([str(docs)], remap=[r"^private/notes\.md$ /guide/new.md"])  # written ./private/ and ../private/
    for url in ("./private/notes.md", "../private/notes.md"):
        assert (got[url].resolved, got[url].result.status) == ("guide/new.md", Status.OK), url


def test_the_dump_lists_internal_links_as_the_check_filters_and_remaps_them(docs, capsys):
    assert main(["check", "--dump", "--offline", "--exclude", "private/", "--remap", "old\\.md$ new.md", "docs"]) == 0
    assert [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()] == ["guide/new.md", "guide/missing.md"]


# -- the filter's verdicts -------------------------------------------------------------------------------------
def test_the_filter_says_why_in_a_closed_decision_and_words():
    link_filter = LinkFilter(Config(exclude=["^https://skip\\."]))
    assert link_filter.request("https://example.org/").checked
    excluded = link_filter.request("https://skip.example.org/x")
    assert (excluded.decision, excluded.status, excluded.reason) == (Decision.EXCLUDED, Status.EXCLUDED, "excluded")
    private = link_filter.request("http://127.0.0.1:8000/")
    assert (private.decision, private.reason) == (Decision.PRIVATE, "private-address") and "allow_private" in private.why
    assert LinkFilter(Config(offline=True)).request("https://example.org/").decision is Decision.OFFLINE
    assert link_filter.scheme("mailto").result("mailto:a@b.c").status is Status.UNSUPPORTED


def test_the_dump_leaves_out_what_the_check_refuses_without_a_request(tmp_path, monkeypatch, capsys):
    """--dump and the check ask one filter: a loopback address the check excludes is not listed."""
    monkeypatch.chdir(tmp_path)
    Path("index.md").write_text("[local](http://127.0.0.1:8000/x) [web](https://example.org/)\n")
    assert main(["check", "--dump", "index.md"]) == 0
    assert capsys.readouterr().out.splitlines() == ["https://example.org/\tindex.md:1:40"]
    assert main(["check", "--dump", "--allow-private", "index.md"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
