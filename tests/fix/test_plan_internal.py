"""The fix plan with internal suggestions: links within the site may be written (a reviewer's
decision too), anything with a scheme other than http(s) or a host of its own may not; a link
that only mkdocs-redirects keeps working is rewritten with --update-redirects alone."""

from __future__ import annotations

import pytest

from linkfix.fix.plan import FixOptions, plan_decisions, plan_fixes
from linkfix.model import Candidate, CheckResult, Link, LinkKind, LinkResult, Page, Report, Scope, Span, Status
from linkfix.report.common import DECISIONS_SCHEMA, unsafe_replacement_reason


def occurrence(text: str, url: str) -> Link:
    start = text.index(url)
    span = Span(path="doc.md", line=1, column=start + 1, start=start, end=start + len(url))
    return Link(url=url, kind=LinkKind.INLINE, span=span, page=Page(path="doc.md"))


def decisions(text: str, url: str, replacement: str) -> dict:
    s = occurrence(text, url).span
    entry = {"file": s.path, "line": s.line, "column": s.column, "start": s.start, "end": s.end, "url": url,
             "kind": "inline", "tag": "", "replacement": replacement, "decision": "accept"}
    return {"schema": DECISIONS_SCHEMA, "version": 1, "decisions": [entry]}


@pytest.mark.parametrize("url, allowed", [
    ("guide/install.md", True), ("../guide/install.md#usage", True), ("/guide/", True), ("#usage", True),
    ("?tab=2", True), ("https://example.org/x", True),
    ("javascript:alert(1)", False), ("//evil.example/x", False), ("data:text/html,x", False),
    ("guide\\install.md", False), ("guide/\x00install.md", False), ("", False),
])
def test_which_replacements_may_be_written(url, allowed):
    assert (unsafe_replacement_reason(url) == "") is allowed


def test_a_reviewer_may_accept_a_link_within_the_site():
    text = "[a](guide/setup.md)\n"
    plan = plan_decisions(decisions(text, "guide/setup.md", "guide/install.md"))
    assert [f.new_url for f in plan.fixes] == ["guide/install.md"] and plan.notes == ()


def internal(text: str, url: str, status: Status, reason: str, *suggestions: Candidate) -> LinkResult:
    link = occurrence(text, url)
    result = CheckResult(url=url, status=status, reason=reason, final_url="new.md" if status is Status.REDIRECTED else "",
                         permanent=status is Status.REDIRECTED)
    return LinkResult(link=link, resolved=url, scope=Scope.INTERNAL, result=result, suggestions=suggestions)


def test_a_redirect_maps_link_is_rewritten_only_with_update_redirects_and_at_the_threshold():
    text = "[a](old.md)\n"
    mapped = Candidate(url="new.md", confidence=0.95, method="redirect-map")
    report = Report(results=(internal(text, "old.md", Status.REDIRECTED, "mkdocs-redirect", mapped),))
    assert plan_fixes(report, FixOptions()).fixes == ()
    assert [f.new_url for f in plan_fixes(report, FixOptions(update_redirects=True)).fixes] == ["new.md"]
    held = plan_fixes(report, FixOptions(update_redirects=True, min_confidence=0.99))
    assert held.fixes == () and "confidence 0.95 < 0.99" in held.notes[0].message


def test_the_redirect_maps_target_readers_reach_today_is_written_at_any_confidence():
    text = "[a](old.md#usage)\n"
    same = Candidate(url="new.md#usage", confidence=0.5, method="redirect-map", evidence={"same_destination": True})
    report = Report(results=(internal(text, "old.md#usage", Status.REDIRECTED, "mkdocs-redirect", same),))
    assert plan_fixes(report, FixOptions()).fixes == ()
    assert [f.new_url for f in plan_fixes(report, FixOptions(update_redirects=True)).fixes] == ["new.md#usage"]
