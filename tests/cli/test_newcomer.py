"""What a newcomer met on the command line (issue 44's last list), one reproduction each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linkfix.cli import main


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("docs").mkdir()
    Path("docs/index.md").write_text("# Home\n\n[guide](guide.md) [gone](gone.md)\n")
    Path("docs/guide.md").write_text("# Guide\n")
    return tmp_path


# -- each subcommand's parser takes only its own flags -----------------------------------------------------
@pytest.mark.parametrize("command", [["cache"], ["report"]])
def test_cache_and_report_help_list_no_check_only_flag(command, capsys):
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    out = capsys.readouterr().out
    assert "--max-concurrency" not in out and "--offline" not in out and "--suggest" not in out


def test_cache_and_report_take_their_own_flags_and_refuse_check_s(tree, capsys):
    assert main(["cache", "stats", "--cache-dir", "nowhere"]) == 0
    assert main(["check", "--offline", "--no-cache", "docs", "-f", "json", "-o", "result.json"]) == 1
    assert main(["report", "result.json", "-f", "json", "-o", "again.json", "--config", "none.yml"]) == 2  # --config is its own
    assert main(["report", "result.json", "-f", "json", "-o", "again.json"]) == 0
    assert json.loads(Path("again.json").read_text())["links"]
    capsys.readouterr()
    for argv in (["cache", "stats", "--offline"], ["report", "result.json", "--max-concurrency", "3"]):
        with pytest.raises(SystemExit) as stopped:
            main(argv)
        assert stopped.value.code == 2
        assert "unrecognized arguments" in capsys.readouterr().err


# -- -o into a directory that does not exist ------------------------------------------------------------
def test_an_output_file_in_a_missing_directory_is_refused_before_the_run(tree, capsys):
    """`-o /nonexistent/x.sarif` made the directory without a word: a typo wrote elsewhere."""
    assert main(["check", "--offline", "--no-cache", "docs", "-f", "sarif", "-o", "reprots/x.sarif"]) == 2
    err = capsys.readouterr().err
    assert "reprots" in err and "no such directory" in err
    assert not Path("reprots").exists()
