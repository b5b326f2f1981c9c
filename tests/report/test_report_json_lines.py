"""The JSON report's link lines are json's own compact encoding of `dump_report`'s links,
whatever the values hold (msgspec writes them, json is the reference): the same data in the
same order, byte for byte wherever the two spell numbers alike (json writes 1e+16 where msgspec
writes 1e16). JSON has no NaN: msgspec writes null, and so does the reference."""

from __future__ import annotations

import dataclasses
import json
import math
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from linkfix.model import Archived, Candidate, CheckResult, Link, LinkKind, LinkResult, Page, Redirect, Report, Scope, Span, Status
from linkfix.report.json_format import dump_report, format_json

# Every code point, lone surrogates and control characters included.
TEXT = st.text(st.characters(blacklist_categories=()), max_size=30)
# Hostile values of the wrong type must come out as json writes them, not as Python prints them.
INTEGER = st.one_of(st.integers(), st.booleans())
FLOAT = st.one_of(st.floats(), st.integers(), st.booleans())
STRING_OR_NOT = st.one_of(TEXT, st.none(), st.integers(), st.sampled_from(Status))


def finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [finite(item) for item in value]
    return value


def reference_lines(report: Report) -> list[str]:
    lines = [json.dumps(finite(link), ensure_ascii=False, separators=(", ", ": ")) for link in dump_report(report)["links"]]
    # A lone surrogate (a file name that is not UTF-8) as the JSON escape json.dumps writes with ensure_ascii.
    return [re.sub("[\ud800-\udfff]", lambda m: json.dumps(m.group()).strip('"'), line) for line in lines]


def same_data(line: str) -> str:
    """The line's data, in its order, spelled by json."""
    return json.dumps(json.loads(line))


# A float json spells with an exponent sign: 1e+16, 1.5e-05.
EXPONENT = re.compile(r"\d[eE][+-]\d")


def link_lines(text: str) -> list[str]:
    """The lines between `"links": [` and `]` (a JSON string never holds a raw \\n)."""
    lines = text.split("\n")
    first = lines.index('  "links": [') + 1
    body = lines[first : lines.index("  ]", first)]
    return [line.removeprefix("    ").removesuffix(",") for line in body]


@st.composite
def link_results(draw) -> LinkResult:
    span = Span(path=draw(TEXT), line=draw(INTEGER), column=draw(INTEGER), start=draw(INTEGER), end=draw(INTEGER))
    page = Page(path=draw(TEXT), url=draw(TEXT), title=draw(TEXT))
    link = Link(
        url=draw(TEXT), kind=draw(st.sampled_from(LinkKind)), span=span, page=page,
        anchor_text=draw(TEXT), context=draw(TEXT), tag=draw(STRING_OR_NOT), reference=draw(TEXT),
    )  # fmt: skip
    redirects = draw(st.lists(st.builds(Redirect, url=STRING_OR_NOT, status=INTEGER, location=TEXT), max_size=3))
    result = CheckResult(
        url=draw(TEXT), status=draw(st.sampled_from(Status)), reason=draw(TEXT), detail=draw(STRING_OR_NOT),
        http_status=draw(st.none() | INTEGER), redirects=tuple(redirects), final_url=draw(TEXT),
        permanent=draw(st.one_of(st.booleans(), st.integers(0, 1))), checked_at=draw(FLOAT),
        from_cache=draw(st.one_of(st.booleans(), st.integers(0, 1))),
    )  # fmt: skip
    evidence = st.dictionaries(TEXT, st.one_of(TEXT, FLOAT, st.lists(TEXT, max_size=2)), max_size=3)
    suggestions = draw(st.lists(st.builds(Candidate, url=TEXT, confidence=FLOAT, method=TEXT, score=FLOAT, evidence=evidence), max_size=2))
    archived = draw(st.none() | st.builds(Archived, url=TEXT, datetime=TEXT, title=TEXT))
    scope = draw(st.sampled_from(Scope))
    return LinkResult(link=link, resolved=draw(TEXT), scope=scope, result=result, suggestions=tuple(suggestions), archived=archived)


@settings(deadline=None)
@given(st.lists(link_results(), min_size=1, max_size=3))
def test_link_lines_are_jsons_own_encoding(items):
    report = Report(results=tuple(items))
    text = format_json(report)
    lines, expected = link_lines(text), reference_lines(report)
    assert [same_data(line) for line in lines] == [same_data(line) for line in expected]
    assert [line for line, want in zip(lines, expected) if not EXPONENT.search(want)] == [
        want for want in expected if not EXPONENT.search(want)
    ]
    assert len(json.loads(text)["links"]) == len(items)
    assert text.encode("utf-8")  # lone surrogates escaped: the text can be written to a file


def test_wrong_types_are_written_as_json_writes_them(report):
    """A bool where an int belongs, NaN, an int flag: json's spelling, never Python's (NaN is
    null: JSON has no NaN, and the previous writer's `NaN` made the file not JSON)."""
    item = report.results[0]
    odd = dataclasses.replace(
        item,
        link=dataclasses.replace(item.link, span=Span(path="a.md", line=True, column=1, start=0, end=False)),
        result=CheckResult(url="u", status=Status.OK, checked_at=float("nan"), permanent=1,
                           redirects=(Redirect(url="a", status=True, location="b"),)),
    )  # fmt: skip
    odd_report = Report(results=(odd,))
    line = link_lines(format_json(odd_report))[0]
    assert '"line": true' in line and '"end": false' in line and '"checked_at": null' in line
    assert '"status": true' in line and '"permanent": 1' in line
    assert [line] == reference_lines(odd_report)
