import dataclasses
import json
import urllib.parse
from pathlib import Path

import pytest

from linkfix.errors import InputError
from linkfix.fix.changes import prepare_changes, write_changes
from linkfix.fix.plan import FixOptions, plan_decisions, plan_fixes
from linkfix.model import (
    Archived,
    Candidate,
    CheckResult,
    Link,
    LinkKind,
    LinkResult,
    Page,
    Redirect,
    Report,
    Scope,
    Span,
    Status,
)
from linkfix.recover.calibration import DEFAULT_AUTOFIX_CONFIDENCE
from linkfix.report.common import DECISIONS_SCHEMA


def occurrence(text: str, url: str, *, path: str = "doc.md", kind=LinkKind.INLINE, tag="", nth: int = 0, written: str | None = None):
    written = written if written is not None else url
    start = -1
    for _ in range(nth + 1):
        start = text.index(written, start + 1)
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    span = Span(path=path, line=line, column=column, start=start, end=start + len(written))
    return Link(url=url, kind=kind, span=span, page=Page(path=path), tag=tag)


def broken(link: Link, *suggestions: Candidate, archived: Archived | None = None) -> LinkResult:
    return LinkResult(
        link=link,
        resolved=link.url,
        scope=Scope.EXTERNAL,
        result=CheckResult(url=link.url.partition("#")[0], status=Status.BROKEN, reason="404", http_status=404),
        suggestions=suggestions,
        archived=archived,
    )


def cand(url: str, confidence: float, **evidence) -> Candidate:
    return Candidate(url=url, confidence=confidence, method="same-site", evidence=evidence)


def run_fix(tmp_path: Path, report: Report, options: FixOptions, history=None) -> tuple[list[str], list[str]]:
    plan = plan_fixes(report, options, history)
    changes, problems = prepare_changes(plan, base=tmp_path)
    changed, more = write_changes(changes, base=tmp_path, root=tmp_path)
    return changed, problems + more


def test_applies_top_suggestion_at_threshold_only(tmp_path):
    text = "[a](http://old/a) [b](http://old/b)\n"
    (tmp_path / "doc.md").write_text(text)
    report = Report(
        results=(
            broken(occurrence(text, "http://old/a"), cand("https://new/a", 0.95), cand("https://x/", 0.49)),
            broken(occurrence(text, "http://old/b"), cand("https://new/b", 0.5)),
        )
    )
    plan = plan_fixes(report, FixOptions(min_confidence=0.9))
    assert [f.new_url for f in plan.fixes] == ["https://new/a"]
    assert any("confidence 0.50 < 0.90" in n.message for n in plan.notes)
    changed, problems = run_fix(tmp_path, report, FixOptions(min_confidence=0.9))
    assert (changed, problems) == (["doc.md"], [])
    assert (tmp_path / "doc.md").read_text() == "[a](https://new/a) [b](http://old/b)\n"


def test_a_suggestion_held_by_recoverys_gate_is_left_for_review_whatever_its_confidence(tmp_path):
    text = "[a](http://old/a) [b](http://old/b)\n"
    (tmp_path / "doc.md").write_text(text)
    report = Report(
        results=(
            broken(occurrence(text, "http://old/a"), cand("https://new/examples/a", 0.97, hold="https://new/integrations/a has the same evidence (name)")),
            broken(occurrence(text, "http://old/b"), cand("https://new/b", 0.97)),
        )
    )
    for threshold in (0.9, 0.5):
        plan = plan_fixes(report, FixOptions(min_confidence=threshold))
        assert [f.new_url for f in plan.fixes] == ["https://new/b"]
        assert any("held for review: https://new/integrations/a has the same evidence" in n.message for n in plan.notes)


def test_zero_min_confidence_means_calibrated_default():
    assert FixOptions(min_confidence=0).threshold == DEFAULT_AUTOFIX_CONFIDENCE
    assert FixOptions(min_confidence=0.3).threshold == 0.3


def test_second_run_with_fresh_report_is_noop(tmp_path):
    text = "[a](http://old/a)\n"
    (tmp_path / "doc.md").write_text(text)
    report = Report(results=(broken(occurrence(text, "http://old/a"), cand("https://new/a", 0.95)),))
    assert run_fix(tmp_path, report, FixOptions())[0] == ["doc.md"]
    after = (tmp_path / "doc.md").read_text()
    link = occurrence(after, "https://new/a")
    fresh = Report(results=(LinkResult(link=link, resolved=link.url, scope=Scope.EXTERNAL, result=CheckResult(url=link.url, status=Status.OK)),))
    assert run_fix(tmp_path, fresh, FixOptions()) == ([], [])
    assert (tmp_path / "doc.md").read_text() == after


def test_stale_report_refuses_the_file(tmp_path):
    text = "[a](http://old/a)\n"
    report = Report(results=(broken(occurrence(text, "http://old/a"), cand("https://new/a", 0.95)),))
    (tmp_path / "doc.md").write_text("intro\n" + text)
    changed, problems = run_fix(tmp_path, report, FixOptions())
    assert changed == [] and "doc.md:1: no longer holds" in problems[0]
    assert (tmp_path / "doc.md").read_text() == "intro\n" + text


def test_reference_definition_edited_once(tmp_path):
    text = "[a][r] and [b][r]\n\n[r]: http://old/r\n"
    (tmp_path / "doc.md").write_text(text)
    link = occurrence(text, "http://old/r", kind=LinkKind.REFERENCE)
    report = Report(results=(broken(link, cand("https://new/r", 0.95)), broken(link, cand("https://new/r", 0.95))))
    assert run_fix(tmp_path, report, FixOptions())[0] == ["doc.md"]
    assert (tmp_path / "doc.md").read_text() == "[a][r] and [b][r]\n\n[r]: https://new/r\n"


def test_fragment_kept_only_when_new_page_has_it():
    text = "[a](http://old/p#install) [b](http://old/q#usage) [c](http://old/r#x)\n"
    report = Report(
        results=(
            broken(occurrence(text, "http://old/p#install"), cand("https://new/p", 0.95, ids=["install", "faq"])),
            broken(occurrence(text, "http://old/q#usage"), cand("https://new/q", 0.95, ids=["intro"])),
            broken(occurrence(text, "http://old/r#x"), cand("https://new/r", 0.95)),
        )
    )
    plan = plan_fixes(report, FixOptions())
    assert [f.new_url for f in plan.fixes] == ["https://new/p#install", "https://new/q", "https://new/r"]
    messages = [n.message for n in plan.notes]
    assert "#usage dropped: https://new/q has no such id" in messages
    assert "#x dropped: not known whether https://new/r has that id" in messages


def test_update_redirects_only_permanent_and_keeps_fragment():
    text = "[a](http://r/perm#sec) [b](http://r/temp)\n"

    def redirected(url: str, permanent: bool) -> LinkResult:
        link = occurrence(text, url)
        hop = Redirect(url=url, status=301 if permanent else 302, location="https://r/final")
        result = CheckResult(url=url, status=Status.REDIRECTED, redirects=(hop,), final_url="https://r/final", permanent=permanent)
        return LinkResult(link=link, resolved=url, scope=Scope.EXTERNAL, result=result)

    report = Report(results=(redirected("http://r/perm#sec", True), redirected("http://r/temp", False)))
    assert plan_fixes(report, FixOptions()).fixes == ()
    fixes = plan_fixes(report, FixOptions(update_redirects=True)).fixes
    assert [(f.url, f.new_url, f.method) for f in fixes] == [("http://r/perm#sec", "https://r/final#sec", "redirect")]


def test_a_redirect_from_the_cache_is_never_written_unconfirmed():
    """The plan writes only redirects a request saw: one the cache alone holds (a record is
    input: issue 27, finding 8) gets a note; `fix` asks it again first (fix.confirm)."""
    text = "[a](http://r/perm)\n"
    link = occurrence(text, "http://r/perm")
    hop = Redirect(url=link.url, status=301, location="https://attacker.test/")
    result = CheckResult(url=link.url, status=Status.REDIRECTED, redirects=(hop,), final_url="https://attacker.test/", permanent=True,
                         from_cache=True)
    plan = plan_fixes(Report(results=(LinkResult(link=link, resolved=link.url, scope=Scope.EXTERNAL, result=result),)),
                      FixOptions(update_redirects=True))
    assert plan.fixes == ()
    assert [n.message for n in plan.notes] == ["not rewritten: the redirect to https://attacker.test/ comes from the cache and no request confirmed it"]


def test_archive_fallback_is_opt_in():
    text = "[a](http://gone/)\n"
    archived = Archived(url="https://web.archive.org/web/2020/http://gone/", datetime="2020-01-01T00:00:00Z")
    report = Report(results=(broken(occurrence(text, "http://gone/"), archived=archived),))
    assert plan_fixes(report, FixOptions()).fixes == ()
    assert [f.new_url for f in plan_fixes(report, FixOptions(archive_fallback=True)).fixes] == [archived.url]


def test_archive_candidates_only_with_archive_fallback():
    text = "[a](http://gone/)\n"
    capture = Candidate(url="https://web.archive.org/web/2020/http://gone/", confidence=0.95, method="archive")
    report = Report(results=(broken(occurrence(text, "http://gone/"), capture, cand("https://weak/", 0.3)),))
    plan = plan_fixes(report, FixOptions(min_confidence=0.5))
    assert plan.fixes == () and "confidence 0.30 < 0.50" in plan.notes[0].message
    assert [f.new_url for f in plan_fixes(report, FixOptions(archive_fallback=True)).fixes] == [capture.url]


def test_unsafe_suggestion_is_refused():
    text = "[a](http://old/)\n"
    report = Report(results=(broken(occurrence(text, "http://old/"), cand("javascript:alert(1)", 0.99)),))
    plan = plan_fixes(report, FixOptions())
    assert plan.fixes == ()
    assert "only http(s) URLs" in plan.notes[0].message


@dataclasses.dataclass
class Seen:
    first_broken: float
    last_broken: float
    broken_runs: int


def test_confirmation_by_history():
    text = "[a](http://old/)\n"
    report = Report(results=(broken(occurrence(text, "http://old/"), cand("https://new/", 0.95)),))
    options = FixOptions(confirm_runs=3, confirm_days=2)
    day = 86400.0
    histories = {
        "young": Seen(first_broken=0, last_broken=day, broken_runs=5),
        "few": Seen(first_broken=0, last_broken=5 * day, broken_runs=2),
        "ripe": Seen(first_broken=0, last_broken=2 * day, broken_runs=3),
    }
    for name, seen in histories.items():
        plan = plan_fixes(report, options, lambda url, seen=seen: seen)
        assert bool(plan.fixes) is (name == "ripe"), name
    held = plan_fixes(report, options, None)
    assert held.fixes == () and "cache" in held.notes[0].message
    looked_up = []
    plan_fixes(report, options, lambda url: looked_up.append(url) or histories["ripe"])
    assert looked_up == ["http://old/"]


def test_html_source_attribute_escaped(tmp_path):
    text = '<p><a href="http://old/?a=1&amp;b=2">x</a></p>\n'
    (tmp_path / "page.html").write_text(text)
    link = occurrence(text, "http://old/?a=1&b=2", path="page.html", kind=LinkKind.HTML, tag="a[href]", written="http://old/?a=1&amp;b=2")
    report = Report(results=(broken(link, cand('https://new/?a=1&b="2"', 0.95)),))
    assert run_fix(tmp_path, report, FixOptions()) == (["page.html"], [])
    assert (tmp_path / "page.html").read_text() == '<p><a href="https://new/?a=1&amp;b=&quot;2&quot;">x</a></p>\n'


def decisions(*entries) -> dict:
    return {"schema": DECISIONS_SCHEMA, "version": 1, "decisions": list(entries)}


def decision(text: str, url: str, replacement: str, verdict: str = "accept") -> dict:
    link = occurrence(text, url)
    s = link.span
    return {"file": s.path, "line": s.line, "column": s.column, "start": s.start, "end": s.end, "url": url,
            "kind": "inline", "tag": "", "replacement": replacement, "decision": verdict}


def test_decisions_apply_exactly_the_accepted(tmp_path):
    text = "[a](http://old/a) [b](http://old/b) [c](http://old/c)\n"
    (tmp_path / "doc.md").write_text(text)
    data = json.loads(json.dumps(decisions(
        decision(text, "http://old/a", "https://new/a"),
        decision(text, "http://old/b", "https://new/b", "reject"),
        decision(text, "http://old/c", "https://new/c (2)"),
    )))
    plan = plan_decisions(data)
    changes, problems = prepare_changes(plan, base=tmp_path, root=tmp_path)
    changed, more = write_changes(changes, base=tmp_path, root=tmp_path)
    assert (changed, problems, more) == (["doc.md"], [], [])
    assert (tmp_path / "doc.md").read_text() == "[a](https://new/a) [b](http://old/b) [c](https://new/c%20(2))\n"


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "not a linkfix decisions file"),
        ({"schema": DECISIONS_SCHEMA, "version": 9, "decisions": []}, "version 9"),
        (decisions({"decision": "maybe"}), "decision"),
        (decisions({"decision": "accept", "file": "a.md"}), r"decisions\[0\]\.line"),
        (decisions({"decision": "accept", "file": "a", "line": 1, "column": 1, "start": 5, "end": 2, "url": "u", "kind": "inline", "replacement": "https://x"}), "bad span"),
        (decisions({"decision": "accept", "file": "a", "line": 1, "column": 1, "start": 0, "end": 2, "url": "u", "kind": "weird", "replacement": "https://x"}), "kind"),
    ],
)
def test_bad_decisions_file(data, message):
    with pytest.raises(InputError, match=message):
        plan_decisions(data)


def test_decision_with_unsafe_url_is_refused():
    text = "[a](http://old/a)\n"
    plan = plan_decisions(decisions(decision(text, "http://old/a", "javascript:alert(1)")))
    assert plan.fixes == () and "refused" in plan.notes[0].message


def test_disagreeing_uses_of_one_span_are_left_alone():
    text = "[r]: http://old/r\n"
    link = occurrence(text, "http://old/r", kind=LinkKind.REFERENCE)
    report = Report(results=(broken(link, cand("https://a/", 0.95)), broken(link, cand("https://b/", 0.95))))
    plan = plan_fixes(report, FixOptions())
    assert plan.fixes == () and "disagree" in plan.notes[-1].message


def test_paths_outside_the_project_are_refused(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    secret = tmp_path / "secret.md"
    secret.write_text("[a](http://old/a)\n")
    entry = decision("[a](http://old/a)\n", "http://old/a", "https://new/a")
    for name in ("../secret.md", str(secret)):
        plan = plan_decisions(decisions({**entry, "file": name}))
        changes, problems = prepare_changes(plan, base=project, root=project)
        assert changes == [] and "outside the project root" in problems[0]
    assert secret.read_text() == "[a](http://old/a)\n"


# -- replacement URLs that would break their place, or hide in it -----------------------------------------
def _table_rows(text: str) -> list[list[str]]:
    """The cells of every body row, as a GFM table parser splits them."""
    from markdown_it import MarkdownIt

    rows, row = [], None
    for token in MarkdownIt("commonmark").enable("table").parse(text):
        if token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:
            row.append(token.content)
        elif token.type == "tr_close":
            rows.append(row)
            row = None
    return rows[1:]  # without the header row


@pytest.mark.parametrize("kind, cell", [
    (LinkKind.INLINE, "[docs](http://old/a)"),
    (LinkKind.AUTOLINK, "<http://old/a>"),
    (LinkKind.BARE, "see http://old/a here"),
    (LinkKind.HTML, '<a href="http://old/a">docs</a>'),
])
def test_a_pipe_in_the_new_url_keeps_the_table_row_one_row(tmp_path, kind, cell):
    from linkfix.formats.markdown import extract_markdown

    text = f"| name | where |\n|---|---|\n| one | {cell} |\n| two | plain |\n"
    (tmp_path / "doc.md").write_text(text)
    (link,) = extract_markdown(text, "doc.md").links
    assert link.kind is kind
    report = Report(results=(broken(link, cand("https://new/a|b?x=1|2", 0.95)),))
    assert run_fix(tmp_path, report, FixOptions()) == (["doc.md"], [])
    after = (tmp_path / "doc.md").read_text()
    rows = _table_rows(after)
    assert len(rows) == 2 and rows[1] == ["two", "plain"]
    assert rows[0][0] == "one" and "b?x=1" in rows[0][1] and rows[0][1].endswith(("2)", "2>", "2 here", "</a>"))
    (again,) = extract_markdown(after, "doc.md").links
    assert urllib.parse.unquote(again.url) == "https://new/a|b?x=1|2"


INVISIBLE = ["\u2028", "\u2029", "\u202e", "\u200f", "\u2066", "\ufeff", "\u00a0", "\u200b"]


@pytest.mark.parametrize("char", INVISIBLE)
@pytest.mark.parametrize("name, text", [("doc.md", "[a](http://old/a)\n"), ("page.html", '<a href="http://old/a">a</a>\n')])
def test_invisible_and_line_breaking_characters_are_percent_encoded(tmp_path, char, name, text):
    from linkfix.extract.documents import extract_document

    (tmp_path / name).write_text(text)
    (link,) = extract_document(tmp_path / name, text, want_text=False).links
    link = dataclasses.replace(link, span=dataclasses.replace(link.span, path=name))
    wanted = f"https://new/a{char}b?q={char}#f{char}"
    report = Report(results=(broken(link, cand(wanted, 0.95)),))
    assert run_fix(tmp_path, report, FixOptions()) == ([name], [])
    after = (tmp_path / name).read_text()
    assert char not in after
    assert after.count("\n") == text.count("\n")
    (again,) = extract_document(tmp_path / name, after, want_text=False).links
    assert urllib.parse.unquote(again.url) == wanted


@pytest.mark.parametrize("url", [
    "https://new/a\u0085b",  # NEL, a C1 control
    "https://new/a\x9bb",  # CSI, a C1 control
    "https://new/a\ud800b",  # a lone surrogate: not even encodable
    "https://ne\u202ew.test/a",  # a bidi override in the host name
    "https://new\u2028.test/a",  # a line separator in the host name
])
def test_control_characters_and_invisible_host_names_are_refused(tmp_path, url):
    text = "[a](http://old/a)\n"
    (tmp_path / "doc.md").write_text(text)
    report = Report(results=(broken(occurrence(text, "http://old/a"), cand(url, 0.95)),))
    plan = plan_fixes(report, FixOptions())
    assert plan.fixes == () and "refused" in plan.notes[0].message
    assert run_fix(tmp_path, report, FixOptions()) == ([], [])
    assert (tmp_path / "doc.md").read_text() == text


def test_a_new_url_that_would_not_read_back_is_never_written(tmp_path, monkeypatch):
    from linkfix.fix import changes as changes_module

    text = "[a](http://old/a) and [b](http://old/b)\n"
    (tmp_path / "doc.md").write_text(text)
    report = Report(results=(broken(occurrence(text, "http://old/a"), cand("https://new/a", 0.95)),))
    # a spelling bug: the destination ends early, the rest becomes prose
    monkeypatch.setattr(changes_module, "format_target", lambda url, **place: f"{url}) oops")
    changed, problems = run_fix(tmp_path, report, FixOptions())
    assert changed == [] and "would not read back as a link target" in problems[0]
    assert (tmp_path / "doc.md").read_text() == text
