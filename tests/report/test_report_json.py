import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest

from linkfix.errors import InputError
from linkfix.model import Candidate, Page, Report, Status
from linkfix.report import FORMATS
from linkfix.report.json_format import SCHEMA_URL, format_json, load_report

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "linkfix/report/schema.json").read_text())


def test_json_is_registered():
    assert FORMATS["json"] is format_json


def test_json_validates_against_schema(report):
    data = json.loads(format_json(report))
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert data["schema"] == SCHEMA_URL and data["version"] == 1


def test_json_round_trip(report):
    assert load_report(json.loads(format_json(report))) == report


def test_json_totals_and_fields(report):
    data = json.loads(format_json(report))
    assert data["totals"]["broken"] == 3
    assert data["totals"]["total"] == len(report.results)
    first = data["links"][0]
    assert (first["file"], first["line"], first["column"], first["start"], first["end"]) == ("docs/guide.md", 3, 14, 40, 83)
    assert first["suggestions"][0]["evidence"]["ids"] == ["linux", "mac"]
    assert data["pages"]["docs/guide.md"]["title"] == "User guide"


def test_page_text_is_not_dumped(report):
    big = dataclasses.replace(report.results[0].link.page, text="secret body " * 100, ids=frozenset({"a", "b"}))
    item = report.results[0]
    changed = dataclasses.replace(item, link=dataclasses.replace(item.link, page=big))
    text = format_json(Report(results=(changed,)))
    assert "secret body" not in text
    reloaded = load_report(json.loads(text))
    assert reloaded.results[0].link.page == Page(path=big.path, url=big.url, title=big.title)


def test_evidence_tuples_and_nan_become_json(report):
    item = dataclasses.replace(
        report.results[0],
        suggestions=(Candidate(url="https://x.test/", confidence=1.0, method="m", evidence={"t": (1, 2), "s": {"b", "a"}, "n": float("nan")}),),
    )
    text = format_json(Report(results=(item,)))
    evidence = json.loads(text)["links"][0]["suggestions"][0]["evidence"]
    assert evidence == {"t": [1, 2], "s": ["a", "b"], "n": "nan"}


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(schema="https://other/"), "not a linkfix report"),
        (lambda d: d.update(version=2), "version 2"),
        (lambda d: d["links"][0].update(status="rotten"), "links[0].status"),
        (lambda d: d["links"][0].pop("url"), "missing 'url'"),
        (lambda d: d["links"][0].update(line="3"), "links[0].line"),
        (lambda d: d["links"][0].update(line=True), "links[0].line"),
        (lambda d: d["links"][0]["suggestions"][0].update(confidence=7), "confidence"),
        (lambda d: d.update(links={}), "report.links"),
        (lambda d: d["links"].__setitem__(1, []), "links[1]"),
        (lambda d: d["links"][0].update(start=10, end=2), "bad span"),
    ],
)
def test_load_report_rejects_bad_input_clearly(report, mutate, message):
    data = json.loads(format_json(report))
    mutate(data)
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_report(data)


def test_load_report_rejects_non_object():
    with pytest.raises(InputError):
        load_report([])  # type: ignore[arg-type]


def test_json_golden(report, golden):
    golden("sample.json", format_json(report))


def test_every_status_in_totals():
    data = json.loads(format_json(Report(results=())))
    assert set(data["totals"]) == {s.value for s in Status} | {"total"}


def test_reasons_read_back_as_their_types_with_the_same_strings(report):
    from linkfix.model import HttpReason, Reason, SchemeReason

    data = json.loads(format_json(report))
    reasons = {link["reason"] for link in data["links"]}
    assert reasons and all(isinstance(r, str) for r in reasons)  # the JSON keeps plain strings
    data["links"][0]["reason"], data["links"][1]["reason"] = "mailto", "410"  # written by any version
    reloaded = load_report(data)
    assert type(reloaded.results[0].result.reason) is SchemeReason and reloaded.results[0].result.reason == "mailto"
    assert type(reloaded.results[1].result.reason) is HttpReason and reloaded.results[1].result.reason == "410"
    assert all(isinstance(r.result.reason, (Reason, HttpReason, SchemeReason)) for r in reloaded.results)
    data["links"][1]["reason"] = "Not A Reason!"
    with pytest.raises(InputError, match=r"report.links\[1\].reason: unknown value"):
        load_report(data)


def test_suggestion_methods_read_back_as_the_enum_and_no_other_text_is_one(report):
    from linkfix.model import Method

    data = json.loads(format_json(report))
    entry = next(link for link in data["links"] if link["suggestions"])
    reloaded = load_report(data)
    methods = [c.method for r in reloaded.results for c in r.suggestions]
    assert methods and all(type(m) is Method for m in methods)
    entry["suggestions"][0]["method"] = "hunch"
    with pytest.raises(InputError, match="method"):
        load_report(data)


def test_http_and_scheme_reasons_are_written_as_their_strings(report):
    from linkfix.model import Reason

    first, second = report.results[:2]
    results = (dataclasses.replace(first, result=dataclasses.replace(first.result, reason=Reason.http(404))),
               dataclasses.replace(second, result=dataclasses.replace(second.result, reason=Reason.scheme("mailto"))))
    data = json.loads(format_json(Report(results=results)))
    assert [link["reason"] for link in data["links"]] == ["404", "mailto"]
