"""The JSON report's one typed definition: the shipped schema is the generated one, the reader
validates strictly with the JSON path in its errors, old reports load, odd file names survive."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest
from report_sample import build_report

from linkfix.cli import main
from linkfix.errors import InputError
from linkfix.model import Report
from linkfix.report import json_document
from linkfix.report.json_format import format_json, load_report, read_report

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "linkfix/report/schema.json"
GOLDEN = ROOT / "tests/golden/report"


def test_shipped_schema_is_the_generated_one():
    """Regenerate with `python -m linkfix.report.json_document > linkfix/report/schema.json`."""
    assert SHIPPED.read_text(encoding="utf-8") == json_document.schema_text()


def test_generated_schema_is_valid_and_strict(report):
    schema = json_document.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    data = json.loads(format_json(report))
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)
    data["links"][0]["surprise"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)


def test_report_written_by_the_previous_version_loads():
    """tests/golden/report/written-by-0.1.0.json was written by the hand-kept writer of 0.1.0."""
    raw = (GOLDEN / "written-by-0.1.0.json").read_bytes()
    assert read_report(raw) == build_report()
    assert load_report(json.loads(raw)) == build_report()


def test_reader_and_loader_agree(report):
    text = format_json(report)
    assert read_report(text.encode()) == read_report(text) == load_report(json.loads(text)) == report


def _broken(report: Report, mutate) -> bytes:
    data = json.loads(format_json(report))
    mutate(data)
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["links"][2].update(status="rotten"), "report.links[2].status: unknown value 'rotten'"),
        (lambda d: d["links"][0].update(line="3"), "report.links[0].line: expected an integer, got a string"),
        (lambda d: d["links"][0].update(line=0), "report.links[0].line: expected an integer >= 1"),
        (lambda d: d["links"][0].update(http_status=1.5), "report.links[0].http_status: expected an integer or null"),
        (lambda d: d["links"][1]["redirects"][0].pop("location"), "report.links[1].redirects[0]: missing 'location'"),
        (lambda d: d["links"][0].update(surprise=1), "report.links[0]: unknown field 'surprise'"),
        (lambda d: d["pages"]["docs/guide.md"].update(title=None), "report.pages[...].title: expected a string, got null"),
        (lambda d: d["totals"].update(broken=-1), "report.totals.broken: expected an integer >= 0"),
        (lambda d: d.update(duration="long"), "report.duration: expected a number, got a string"),
    ],
)
def test_reader_names_the_json_path(report, mutate, message):
    with pytest.raises(InputError) as caught:
        read_report(_broken(report, mutate))
    assert message in str(caught.value)


def test_a_huge_integer_is_an_input_error_with_its_path(report):
    text = format_json(report).replace('"line": 3,', '"line": ' + "9" * 5000 + ",", 1)
    with pytest.raises(InputError, match=r"report\.links\[0\]\.line: integer value out of range"):
        read_report(text.encode())


def test_a_long_bad_value_is_cut_in_the_message(report):
    with pytest.raises(InputError) as caught:
        read_report(_broken(report, lambda d: d["links"][0].update(kind="x" * 100_000)))
    assert len(str(caught.value)) < 300 and "report.links[0].kind" in str(caught.value)


@pytest.mark.parametrize(
    "content, message",
    [
        (b'{"schema": "x", "links": 3}', "not a linkfix report"),
        (b'{"schema": "https://linkfix.dev/schema/report-1.json", "version": 2}', "version 2 is not supported"),
        (b"[1, 2]", "expected an object, got an array"),
        (b"{", "not JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
)
def test_reader_rejects_what_is_not_a_report(content, message):
    with pytest.raises(InputError, match=message):
        read_report(content)


def test_cli_refuses_huge_integer_and_unknown_field_cleanly(report, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = format_json(report)
    (tmp_path / "big.json").write_text(text.replace('"column": 14,', '"column": ' + "1" * 5000 + ",", 1))
    (tmp_path / "extra.json").write_text(text.replace('"line": 3,', '"line": 3, "lines": 4,', 1))
    assert main(["report", "big.json"]) == 2
    err = capsys.readouterr().err
    assert "big.json: report JSON: report.links[0].column: integer value out of range" in err and "Traceback" not in err
    assert main(["report", "extra.json"]) == 2
    assert "extra.json: report JSON: report.links[0]: unknown field 'lines'" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# A file name that is not UTF-8 (os.fsdecode gives lone surrogates \udc80-\udcff)

ODD = "docs/\udcff\udcfe name.md"


def _with_odd_name(report: Report) -> Report:
    first = report.results[0]
    span = dataclasses.replace(first.link.span, path=ODD)
    page = dataclasses.replace(first.link.page, path=ODD)
    link = dataclasses.replace(first.link, span=span, page=page)
    odd = dataclasses.replace(first, link=link, resolved=ODD + "#x")
    return dataclasses.replace(report, results=(odd, *report.results[1:]), errors=(f"{ODD}: not UTF-8 text",))


def test_odd_file_name_is_carried_losslessly(report):
    odd = _with_odd_name(report)
    text = format_json(odd)
    raw = text.encode("utf-8")  # the old writer left the surrogates raw: UnicodeEncodeError here
    assert '"file": "docs/\\udcff\\udcfe name.md"' in text
    assert read_report(raw) == odd
    assert load_report(json.loads(raw)) == odd
    jsonschema.validate(json.loads(raw), json_document.json_schema(), cls=jsonschema.Draft202012Validator)


def test_odd_file_name_keeps_the_other_lines_as_before(report):
    odd = _with_odd_name(report)
    before = format_json(report).split("\n")
    after = format_json(odd).split("\n")
    escaped = [line for line in after if "\\udcff\\udcfe" in line]
    assert len(escaped) == 3  # the error, the page and the link
    assert [line for line in after if line not in escaped] == [line for line in before if "not UTF-8" not in line and "3, \"column\": 14" not in line]


def test_odd_file_name_with_bad_values_still_names_the_path(report):
    odd = format_json(_with_odd_name(report)).replace('"status": "broken"', '"status": "rotten"', 1)
    with pytest.raises(InputError, match=r"report\.links\[0\]\.status: unknown value 'rotten'"):
        read_report(odd.encode())
    huge = format_json(_with_odd_name(report)).replace('"line": 3,', '"line": ' + "9" * 5000 + ",", 1)
    with pytest.raises(InputError, match="an integer of 5000 digits"):
        read_report(huge.encode())
