import dataclasses

from linkfix.model import Report, Status
from linkfix.report import FORMATS
from linkfix.report.text import format_text


def test_text_is_registered():
    assert FORMATS["text"] is format_text


def test_text_lists_problems_grouped_by_file(report):
    out = format_text(report)
    lines = out.splitlines()
    assert "docs/guide.md:3:14  BROKEN  https://old.example.org/manual/install.html  (Not Found)" in lines
    assert "    -> https://new.example.org/docs/install/  [same-site, confidence 0.93]" in lines
    # sorted by position inside a file: line 3 before line 5
    assert out.index("docs/guide.md:3:14") < out.index("docs/guide.md:5:2")
    # ok, redirected, excluded and unsupported links are only counted
    assert "img/logo.png" not in out and "mailto:" not in out and "example.com/moved" not in out
    assert lines[-1] == (
        "10 links in 3 files: 1 ok, 1 redirected, 3 broken, 1 blocked, 1 timeout, 1 error, 1 excluded (private), "
        "1 unsupported; 1 input error (2.5 s)"
    )


def test_text_quiet_on_success(report):
    ok = tuple(r for r in report.results if r.result.status is Status.OK)
    out = format_text(Report(results=ok, files=1))
    assert out == "1 link in 1 file: 1 ok\n"


def test_text_neutralises_control_characters(report):
    out = format_text(report)
    assert "\x1b" not in out
    item = dataclasses.replace(
        report.results[2],
        result=dataclasses.replace(report.results[2].result, detail="bad\x1b]0;title\x07\nnext"),
    )
    out = format_text(Report(results=(item,)))
    assert "\x1b" not in out and "\x07" not in out
    assert "bad\\x1b]0;title\\x07\\x0anext" in out


def test_text_colour_only_when_asked(report):
    assert "\x1b[31mBROKEN\x1b[0m" in format_text(report, color=True)
    assert "\x1b[" not in format_text(report, color=False)


def test_text_golden(report, golden):
    golden("sample.txt", format_text(report))


def test_text_says_why_links_were_excluded(report):
    """Only JSON said why a link was `excluded`: the summary names the reasons, with those of
    the links a run only counted (`Report.excluded_reasons`)."""
    out = format_text(dataclasses.replace(report, counted={Status.EXCLUDED: 2}, excluded_reasons={"offline": 2}))
    assert "3 excluded (2 offline, 1 private), " in out.splitlines()[-1]
    one = dataclasses.replace(report, results=tuple(r for r in report.results if r.result.status is Status.EXCLUDED))
    assert format_text(one).splitlines()[-1].startswith("1 link in 3 files: 1 excluded (private); ")
