"""A deferred archive lookup is said in every report format, apart from "no capture", and
counted in each format's summary."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from linkfix.model import ArchiveLookup, ArchiveState, CheckResult, Link, LinkKind, LinkResult, Page, Report, Scope, Span, Status
from linkfix.report import FORMATS
from linkfix.report.json_document import json_schema
from linkfix.report.json_format import read_report

DETAIL = "no request slot (24 a minute) before the run's deadline"


def broken(url: str, line: int, lookup: ArchiveLookup | None) -> LinkResult:
    span = Span(path="docs/guide.md", line=line, column=1, start=0, end=len(url))
    link = Link(url=url, kind=LinkKind.INLINE, span=span, page=Page(path="docs/guide.md"), anchor_text="a page")
    result = CheckResult(url=url, status=Status.BROKEN, reason="404", detail="Not Found", http_status=404)
    return LinkResult(link=link, resolved=url, scope=Scope.EXTERNAL, result=result, archive_lookup=lookup)


def report() -> Report:
    return Report(files=1, results=(
        broken("https://a.test/deferred", 1, ArchiveLookup(state=ArchiveState.DEFERRED, reason="rate-limit", detail=DETAIL)),
        broken("https://a.test/deferred#part", 2, ArchiveLookup(state=ArchiveState.DEFERRED, reason="rate-limit", detail=DETAIL)),
        broken("https://a.test/blocked", 3, ArchiveLookup(state=ArchiveState.DEFERRED, reason="blocked", detail="refused")),
        broken("https://a.test/none", 4, ArchiveLookup(state=ArchiveState.NO_CAPTURE)),
        broken("https://a.test/unasked", 5, None),
    ))


def test_the_report_counts_each_deferred_dead_url_once():
    assert report().archive_deferred == 2  # /deferred (twice, with and without #part) and /blocked


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_says_deferred_and_counts_it(name):
    text = FORMATS[name](report())
    assert "deferred" in text
    assert "rate-limit" in text and "blocked" in text
    if name == "json":
        return  # its own test below
    if name == "junit":
        root = ET.fromstring(text)
        (prop,) = root.iter("property")
        assert prop.get("name") == "archive_lookups_deferred" and prop.get("value") == "3"  # links of the file
        assert "no-capture" not in text  # "no capture" is not a deferral
        return
    assert "2 archive lookups deferred" in text  # the summary's count


def test_text_shows_the_reason_under_the_link_and_no_capture_is_not_deferred():
    lines = FORMATS["text"](report()).splitlines()
    at = {line.split()[0]: n for n, line in enumerate(lines) if line.startswith("docs/guide.md:")}
    assert "archive lookup deferred (rate-limit)" in lines[at["docs/guide.md:1:1"] + 1]
    assert "deferred" not in lines[at["docs/guide.md:4:1"] + 1]  # the no-capture link
    assert lines[-1].endswith("2 archive lookups deferred (run again, or --archive-wait)")


def test_json_keeps_the_lookup_and_reads_it_back():
    text = FORMATS["json"](report())
    data = json.loads(text)
    assert data["archive_deferred"] == 2
    states = [link.get("archive_lookup") for link in data["links"]]
    assert states[0] == {"state": "deferred", "reason": "rate-limit", "detail": DETAIL}
    assert states[3] == {"state": "no-capture", "reason": "", "detail": ""}
    assert states[4] is None  # not asked: left out
    back = read_report(text)
    assert [r.archive_lookup for r in back.results] == [r.archive_lookup for r in report().results]
    defs = json_schema()["$defs"]
    assert set(defs["ArchiveState"]["enum"]) == {"found", "no-capture", "deferred"}
    assert "archive_lookup" in defs["Link"]["properties"] and "archive_deferred" in json_schema()["properties"]


def test_a_report_without_deferrals_says_nothing_about_them():
    quiet = replace(report(), results=report().results[3:])
    for name, format_report in FORMATS.items():
        assert "deferred" not in format_report(quiet), name
