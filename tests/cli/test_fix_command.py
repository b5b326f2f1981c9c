"""`linkfix fix` and `linkfix report` driven through the command line (no network)."""

import json

import pytest

from linkfix.cli import main
from linkfix.model import Candidate, CheckResult, Link, LinkKind, LinkResult, Page, Report, Scope, Span, Status
from linkfix.report.common import DECISIONS_SCHEMA
from linkfix.report.json_format import format_json


def invoke(command: str, argv: list[str]) -> int:
    return main([command, *argv])


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = "# Doc\n\nSee [the manual](http://old.test/manual) now.\n"
    (tmp_path / "doc.md").write_text(text)
    start = text.index("http://old.test/manual")
    span = Span(path="doc.md", line=3, column=start - text.rfind("\n", 0, start), start=start, end=start + 22)
    link = Link(url="http://old.test/manual", kind=LinkKind.INLINE, span=span, page=Page(path="doc.md"), anchor_text="the manual")
    item = LinkResult(
        link=link,
        resolved=link.url,
        scope=Scope.EXTERNAL,
        result=CheckResult(url=link.url, status=Status.BROKEN, reason="404", http_status=404),
        suggestions=(Candidate(url="https://new.test/manual/", confidence=0.97, method="same-site"),),
    )
    (tmp_path / "result.json").write_text(format_json(Report(results=(item,), files=1)))
    return tmp_path


def test_fix_dry_run_prints_diff_and_changes_nothing(project, capsys):
    before = (project / "doc.md").read_bytes()
    assert invoke("fix", ["--from", "result.json", "--dry-run"]) == 1
    out = capsys.readouterr().out
    assert "-See [the manual](http://old.test/manual) now.\n+See [the manual](https://new.test/manual/) now.\n" in out
    assert (project / "doc.md").read_bytes() == before


def test_fix_from_result_writes_then_second_run_refuses_stale_result(project, capsys):
    assert invoke("fix", ["--from", "result.json"]) == 1
    assert (project / "doc.md").read_text() == "# Doc\n\nSee [the manual](https://new.test/manual/) now.\n"
    # the saved result now describes an older file: refused, nothing written
    assert invoke("fix", ["--from", "result.json"]) == 2
    assert "no longer holds" in capsys.readouterr().err
    assert (project / "doc.md").read_text() == "# Doc\n\nSee [the manual](https://new.test/manual/) now.\n"


def test_fix_below_threshold_changes_nothing(project, capsys):
    assert invoke("fix", ["--from", "result.json", "--min-confidence", "0.99"]) == 0
    assert "confidence 0.97 < 0.99" in capsys.readouterr().err


def test_fix_says_where_to_review_what_it_held_back(project, capsys):
    """Issue 22: fix said "review it in the HTML report" and wrote none. It writes the report
    asked for with -f html -o FILE and names it; without one it says how to get it."""
    assert invoke("fix", ["--from", "result.json", "--min-confidence", "0.99"]) == 0
    err = capsys.readouterr().err
    assert "review it in the HTML report" not in err
    assert "1 link with a suggestion held for review: write the HTML report to review them (add -f html -o FILE)" in err
    assert invoke("fix", ["--from", "result.json", "--min-confidence", "0.99", "-f", "html", "-o", "review.html"]) == 0
    assert "accept or reject them in review.html" in capsys.readouterr().err
    page = (project / "review.html").read_text()
    assert "https://new.test/manual/" in page and "http://old.test/manual" in page


def test_fix_apply_decisions(project):
    decisions = {
        "schema": DECISIONS_SCHEMA,
        "version": 1,
        "decisions": [
            {"file": "doc.md", "line": 3, "column": 19, "start": 24, "end": 46, "url": "http://old.test/manual",
             "kind": "inline", "tag": "", "replacement": "https://chosen.test/", "decision": "accept"}
        ],
    }
    (project / "decisions.json").write_text(json.dumps(decisions))
    assert invoke("fix", ["--apply", "decisions.json"]) == 1
    assert "(https://chosen.test/)" in (project / "doc.md").read_text()


def test_fix_usage_errors(project, capsys):
    assert invoke("fix", []) == 2
    assert "nothing to fix" in capsys.readouterr().err
    assert invoke("fix", ["docs", "--from", "result.json"]) == 2
    assert "not both" in capsys.readouterr().err
    (project / "bad.json").write_text("{")
    assert invoke("fix", ["--apply", "bad.json"]) == 2
    assert "not a JSON decisions file" in capsys.readouterr().err


def test_report_rerenders_saved_result(project, capsys):
    assert invoke("report", ["result.json", "--format", "json", "-o", "again.json"]) == 0
    assert json.loads((project / "again.json").read_text()) == json.loads((project / "result.json").read_text())
    assert "1 broken" in capsys.readouterr().out  # text summary still goes to the log


@pytest.mark.parametrize(
    "content, message",
    # A deep array at the top is refused as not an object before its depth matters (the typed
    # reader stops at the first error); deep nesting where any value is allowed: see below.
    [(b"{", "not JSON"), (b"\xff\xfe", "not UTF-8"), (b"[]", "expected an object"), (b"[" * 100000 + b"]" * 100000, "expected an object")],
    ids=["truncated", "utf16", "array", "deep"],
)
def test_report_bad_input(project, capsys, content, message):
    (project / "bad.json").write_bytes(content)
    assert invoke("report", ["bad.json"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_report_deep_nesting_in_free_form_evidence(project, capsys):
    text = (project / "result.json").read_text()
    assert '"evidence": {}' in text
    (project / "deep.json").write_text(text.replace('"evidence": {}', '"evidence": {"x": ' + "[" * 100000 + "]" * 100000 + "}"))
    assert invoke("report", ["deep.json"]) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "Traceback" not in err


def test_report_missing_file(project, capsys):
    assert invoke("report", ["nope.json"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_report_several_formats(project):
    assert invoke("report", ["result.json", "-f", "html,sarif", "-o", "r.html", "-o", "r.sarif"]) == 0
    assert (project / "r.html").read_text().startswith("<!DOCTYPE html>")
    assert json.loads((project / "r.sarif").read_text())["version"] == "2.1.0"


def test_fix_waits_for_confirmation_without_history(project, capsys):
    assert invoke("fix", ["--from", "result.json", "--confirm-runs", "2", "--no-cache"]) == 0
    assert "held back" in capsys.readouterr().err
    assert "http://old.test/manual" in (project / "doc.md").read_text()


def test_fix_uses_cache_history(project):
    from linkfix.model import CheckResult, Status
    from linkfix.store.cache import Cache

    with Cache(project / ".linkfix-cache", run_id="first") as cache:
        cache.put_result("http://old.test/manual", CheckResult(url="http://old.test/manual", status=Status.BROKEN, checked_at=1000.0))
    with Cache(project / ".linkfix-cache", run_id="second") as cache:
        cache.put_result("http://old.test/manual", CheckResult(url="http://old.test/manual", status=Status.BROKEN, checked_at=2000.0))
    assert invoke("fix", ["--from", "result.json", "--confirm-runs", "2"]) == 1
    assert "https://new.test/manual/" in (project / "doc.md").read_text()
