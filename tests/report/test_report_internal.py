"""Internal suggestions (a link within the site, its method and its evidence in words) in every
report format, as sensibly as external ones."""

from __future__ import annotations

import html
import json

import pytest

from linkfix.model import Candidate, CheckResult, Link, LinkKind, LinkResult, Page, Report, Scope, Span, Status
from linkfix.report import FORMATS, MODULES

WHY = "renamed in commit abc1234 (2024-03-01): docs/guide/setup.md → docs/guide/installation.md"


def report() -> Report:
    url = "guide/setup.md#usage"
    link = Link(url=url, kind=LinkKind.INLINE, span=Span(path="docs/index.md", line=3, column=21, start=26, end=26 + len(url)),
                page=Page(path="docs/index.md"), anchor_text="the setup")
    candidate = Candidate(url="guide/installation.md#usage", confidence=0.89, method="git-rename",
                          evidence={"why": WHY, "class": "git-rename", "target": "guide/installation.md"})
    item = LinkResult(link=link, resolved="guide/setup.md#usage", scope=Scope.INTERNAL, suggestions=(candidate,),
                      result=CheckResult(url="guide/setup.md#usage", status=Status.BROKEN, reason="missing-file",
                                         detail="no such file: guide/setup.md"))
    return Report(results=(item,), files=1)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_format_shows_the_replacement_and_its_method(name):
    out = FORMATS[name](report())
    text = html.unescape(out) if name in ("html", "junit") else out
    if name == "json":
        (entry,) = [json.loads(line) for line in out.splitlines() if '"suggestions"' in line] or json.loads(out)["links"]
        (suggestion,) = entry["suggestions"]
        assert (suggestion["url"], suggestion["method"], suggestion["evidence"]["why"]) == ("guide/installation.md#usage", "git-rename", WHY)
        return
    assert "guide/installation.md#usage" in text.replace("\\", "")
    assert "git-rename" in text
    assert "renamed in commit abc1234" in text.replace("\\", "").lower()  # SARIF says it as a sentence


def test_the_html_report_lets_a_reviewer_accept_a_link_within_the_site():
    out = FORMATS["html"](report())
    assert '<code class="within-site">guide/installation.md#usage</code>' in out
    assert 'class="accept"' in out
    assert "cannot be accepted" not in out
    assert 'href="guide/installation.md' not in out  # not clickable: it is relative to the docs, not to the report
