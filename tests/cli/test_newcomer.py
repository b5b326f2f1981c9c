"""What a newcomer met on the command line (issue 44's last list), one reproduction each."""

from __future__ import annotations

import json
import subprocess
import sys
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


# -- a warning that quotes a third party's text keeps its lines ------------------------------------------
def test_a_warning_quoting_a_hook_s_multi_line_error_shows_its_lines_indented(tmp_path):
    """It showed `line one\\x0alinkfix: ERROR: ...` on one line: unreadable; an indented
    continuation is readable and still cannot pass for a line of linkfix's own."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: X\nhooks:\n  - hooks.py\n")
    (tmp_path / "hooks.py").write_text('def on_page_markdown(markdown, **kw):\n'
                                       '    raise RuntimeError("line one\\nlinkfix: ERROR: forged \\x1b[31m red")\n')
    done = subprocess.run([sys.executable, "-m", "linkfix", "check", "mkdocs.yml", "--offline", "--no-cache", "--trust-project-code"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    lines = done.stderr.splitlines()
    at = next(i for i, line in enumerate(lines) if "hook hooks.py fails" in line)
    assert lines[at].startswith("linkfix: WARNING: ") and lines[at].endswith("line one")
    assert lines[at + 1] == "  linkfix: ERROR: forged \\x1b[31m red): what it changes there is unverified"
    assert "\\x0a" not in done.stderr and "\x1b" not in done.stderr


# -- why a link was excluded, in the text output ---------------------------------------------------------
def test_the_text_summary_says_why_links_were_excluded(tree, capsys):
    Path("docs/guide.md").write_text("# Guide\n\n[web](https://example.org/)\n\n<!-- linkfix-disable-next-line -->\n[x](gone.md)\n")
    assert main(["check", "--offline", "--no-cache", "docs"]) == 1
    assert "2 excluded (1 offline, 1 ignored)" in capsys.readouterr().out


# -- plurals --------------------------------------------------------------------------------------------
def test_cache_clear_says_one_entry(tree, capsys):
    from linkfix.model import CheckResult, Status
    from linkfix.store.cache import Cache

    with Cache(tree / ".linkfix-cache") as cache:
        cache.put_result("https://x.org/a", CheckResult(url="https://x.org/a", status=Status.OK, checked_at=1.0))
        assert cache.stats()["entries"] == 1
    assert main(["cache", "clear"]) == 0
    assert "cleared 1 entry from" in capsys.readouterr().out  # it said "1 entries"
