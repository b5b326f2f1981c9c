"""`unverified` (only the site's build can tell) in every format: listed, counted, never failing."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

from linkfix.model import CheckResult, Link, LinkKind, LinkResult, Page, Reason, Report, Scope, Span, Status
from linkfix.report import FORMATS
from linkfix.report.json_format import read_report

DETAIL = "no id 'pkg.mod.Thing' in the source of api.md; its `:::` blocks make ids only when the site is built"


def _report() -> Report:
    page = Page(path="docs/guide.md", title="Guide")

    def result(url: str, line: int, status: Status, reason: Reason = Reason.NONE, detail: str = "") -> LinkResult:
        link = Link(url=url, kind=LinkKind.INLINE, span=Span(path="docs/guide.md", line=line, column=3, start=10 * line, end=10 * line + len(url)),
                    page=page, anchor_text="x")
        return LinkResult(link=link, resolved=url, scope=Scope.INTERNAL, result=CheckResult(url=url, status=status, reason=reason, detail=detail))

    return Report(root="docs", files=1, results=(
        result("api.md#pkg.mod.Thing", 4, Status.UNVERIFIED, Reason.BUILD_TIME_ID, DETAIL),
        result("{{ repo.url }}", 7, Status.UNVERIFIED, Reason.TEMPLATE, "template text"),
        result("other.md", 9, Status.OK),
    ))


def test_unverified_is_not_failing():
    assert not any(item.failing for item in _report().results)


def test_text_lists_each_unverified_link_and_counts_them():
    text = FORMATS["text"](_report())
    assert "docs/guide.md:4:3  UNVERIFIED  api.md#pkg.mod.Thing" in text
    assert "docs/guide.md:7:3  UNVERIFIED  {{ repo.url }}" in text
    assert text.rstrip().endswith("3 links in 1 file: 1 ok, 2 unverified")


def test_markdown_github_sarif_junit_html():
    report = _report()
    markdown = FORMATS["markdown"](report)
    assert "✅ no broken links" in markdown and "| ❔ unverified | docs/guide.md:4:3 |" in markdown
    github = FORMATS["github"](report)
    assert github.count("::notice file=docs/guide.md") == 2 and "::error" not in github
    sarif = json.loads(FORMATS["sarif"](report))
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("LF005", "note"), ("LF005", "note")]
    assert results[0]["properties"]["reason"] == "build-time-id"
    junit = ET.fromstring(FORMATS["junit"](report))
    assert (junit.get("tests"), junit.get("failures"), junit.get("skipped")) == ("3", "0", "2")
    html = FORMATS["html"](report)
    assert html.count('<article class="group status-unverified"') == 2
    assert '<span class="n">2</span> unverified' in html


def test_json_counts_and_reads_back():
    report = _report()
    text = FORMATS["json"](report)
    data = json.loads(text)
    assert data["totals"]["unverified"] == 2 and data["totals"]["total"] == 3
    assert [link["status"] for link in data["links"]] == ["unverified", "unverified", "ok"]
    assert read_report(text) == report


def test_a_report_written_before_unverified_existed_reads_as_zero():
    data = json.loads(FORMATS["json"](_report().__class__(results=(), root="docs")))
    del data["totals"]["unverified"]
    assert read_report(json.dumps(data)).results == ()
