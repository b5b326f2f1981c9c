"""Counts in the reports a person reads agree with their nouns (issue 44: `1 targets`)."""

from __future__ import annotations

from linkfix.model import CheckResult, Link, LinkKind, LinkResult, Page, Reason, Report, Scope, Span, Status
from linkfix.report import FORMATS


def _two_links_to_one_page() -> Report:
    page = Page(path="a.md", title="A")
    results = tuple(
        LinkResult(link=Link(url="gone.md", kind=LinkKind.INLINE, span=Span(path="a.md", line=n, column=1, start=n * 10, end=n * 10 + 7),
                             page=page), resolved="gone.md", scope=Scope.INTERNAL,
                   result=CheckResult(url="gone.md", status=Status.BROKEN, reason=Reason.MISSING_FILE, detail="no such file"))
        for n in (1, 2))
    return Report(results=results, files=1)


def test_text_says_one_target():
    assert "2 problem links to 1 target: each target once, with its places" in FORMATS["text"](_two_links_to_one_page())


def test_markdown_says_one_file_and_one_target():
    assert "2 links in 1 file: 2 broken · 2 problem links to 1 target" in FORMATS["markdown"](_two_links_to_one_page())


def test_github_says_one_target():
    assert "; 2 problem links to 1 target, one annotation each" in FORMATS["github"](_two_links_to_one_page())


def test_html_says_one_file():
    html = FORMATS["html"](_two_links_to_one_page())
    assert "2 links in 1 file</p>" in html and "1 files" not in html
