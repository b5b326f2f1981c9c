"""Issue 22, the terminal: report pairing, -q, "did you mean", readable YAML errors, durations
on the command line. Offline runs of the real command line on small trees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linkfix.cli import main


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("docs").mkdir()
    Path("docs/index.md").write_text("# Home\n\n[guide](guide.md) [gone](gone.md) [web](https://example.org/)\n")
    Path("docs/guide.md").write_text("# Guide\n")
    return tmp_path


def check(*args: str) -> int:
    return main(["check", "--offline", "--no-cache", "docs", *args])


# -- -f/-o pairing ----------------------------------------------------------------------------------------
def test_an_output_that_could_belong_to_either_format_is_refused(tree, capsys):
    """`-f json -f html -o a.json` wrote JSON to a.json and dumped the HTML on the terminal."""
    assert check("-f", "json", "-f", "html", "-o", "a.json") == 2
    captured = capsys.readouterr()
    assert "which format goes to a.json?" in captured.err
    assert "<html" not in captured.out.lower() and not Path("a.json").exists()


def test_formats_pair_with_the_outputs_written_after_them(tree, capsys):
    assert check("-f", "json", "-o", "a.json", "-f", "html", "-o", "r.html", "-f", "github") == 1
    out = capsys.readouterr().out
    assert json.loads(Path("a.json").read_text())["links"]
    assert "<html" in Path("r.html").read_text().lower()
    assert "::error file=docs/index.md" in out and "<html" not in out.lower()


def test_one_output_per_format_in_any_order(tree, capsys):
    assert check("-f", "json,html", "-o", "a.json", "-o", "r.html") == 1
    assert json.loads(Path("a.json").read_text())["links"] and "<html" in Path("r.html").read_text().lower()


def test_two_formats_to_stdout_are_refused(tree, capsys):
    assert check("-f", "json", "-f", "html") == 2
    assert "json, html would all go to stdout" in capsys.readouterr().err


def test_the_config_files_formats_pair_by_the_same_rule(tree, capsys):
    # A config file may choose formats; where reports are written is the command line's (trust model).
    Path("linkfix.yml").write_text("format: [json, sarif, html]\n")
    assert check("-o", "a.json") == 2
    assert "sarif, html would all go to stdout" in capsys.readouterr().err


# -- -q -------------------------------------------------------------------------------------------------------
def test_quiet_prints_only_the_links_that_fail_the_run(tree, capsys):
    assert check("-q") == 1
    captured = capsys.readouterr()
    assert captured.out == "docs/index.md:3:26  BROKEN  gone.md  (no such file: gone.md)\n"
    assert captured.err == ""


def test_quiet_prints_nothing_for_a_clean_run(tree, capsys):
    Path("docs/index.md").write_text("# Home\n\n[guide](guide.md)\n")
    assert check("-q") == 0
    assert capsys.readouterr() == ("", "")


def test_quiet_still_writes_a_format_sent_to_stdout_on_purpose(tree, capsys):
    assert check("-q", "-f", "json") == 1
    assert json.loads(capsys.readouterr().out)["links"]


# -- did you mean ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("typed, meant", [("--ofline", "--offline"), ("--max-conc", "--max-concurrency"),
                                           ("--network-dwn=warn", "--network-down")])
def test_an_unknown_flag_gets_a_suggestion(tree, capsys, typed, meant):
    with pytest.raises(SystemExit) as stopped:
        main(["check", "docs", typed])
    assert stopped.value.code == 2
    assert f"unrecognized arguments: {typed} (did you mean {meant}?)" in capsys.readouterr().err


def test_an_unknown_command_gets_a_suggestion(capsys):
    with pytest.raises(SystemExit):
        main(["chek", "docs"])
    assert "(did you mean 'check'?)" in capsys.readouterr().err


# -- YAML syntax errors ----------------------------------------------------------------------------------
def test_a_yaml_syntax_error_is_shown_on_lines_of_its_own_with_its_place(tree, capsys):
    Path("linkfix.yml").write_text("timeout: 10\nexclude:\n  - a\n  b: c\n")
    assert check() == 2
    err = capsys.readouterr().err
    assert "\\x0a" not in err
    assert err.splitlines() == [
        "linkfix: error: linkfix.yml:4:3: not valid YAML: expected <block end>, but found '?'",
        "  (while parsing a block collection that starts at line 3, column 3)",
        "  4 |   b: c",
        "    |   ^",
    ]


def test_a_mkdocs_yml_syntax_error_names_its_place_too(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("docs").mkdir()
    Path("docs/index.md").write_text("# Home\n")
    Path("mkdocs.yml").write_text("site_name: x\nnav: [a: b: c]\n")
    assert main(["check", "--offline", "--no-cache", "mkdocs.yml"]) == 2
    assert "linkfix: error: mkdocs.yml:2:" in capsys.readouterr().err


def test_a_multi_line_error_cannot_forge_a_line_of_its_own(tree, capsys):
    """The source line shown comes from the checked repository: it is indented under the error."""
    Path("linkfix.yml").write_text("a: b: c \u202e\nlinkfix: error: all good\n")
    assert check() == 2
    lines = capsys.readouterr().err.split("\n")
    assert [line for line in lines if line.startswith("linkfix:")] == [lines[0]]
    assert lines[1] == "  1 | a: b: c \\u202e"  # a bidi override, shown escaped


def test_a_control_character_in_a_yaml_file_is_a_config_error_with_its_place(tree, capsys):
    """PyYAML refuses it before parsing: that escaped as an unexpected error (exit 3)."""
    Path("linkfix.yml").write_text("timeout: 10\nexclude: [\x1b]\n")
    assert check() == 2
    assert capsys.readouterr().err == "linkfix: error: linkfix.yml:2:11: not valid YAML: character #x001b is not allowed\n"


# -- durations on the command line ----------------------------------------------------------------------
def test_timeout_takes_a_duration_like_max_cache_age(tree):
    assert check("--timeout", "10s", "--max-cache-age", "3600") == 1
