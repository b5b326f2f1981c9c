"""The README's exit-code table on the command line (issue 44.4): a run that did not read
everything it was given is an input error (2), not green, and not "broken links" (1) either.
The table's other rows are held by tests/cli/test_cli.py (missing input), test_terminal.py
(unknown flag), tests/test_config.py (bad value), tests/check/test_network_down.py,
tests/hardening/test_interrupts.py (130, 143) and test_safety.py (fix refused)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linkfix.cli import main


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("docs").mkdir()
    Path("docs/index.md").write_text("# Home\n\n[guide](guide.md)\n")
    Path("docs/guide.md").write_text("# Guide\n")
    return tmp_path


def check(*args: str) -> int:
    return main(["check", "--offline", "--no-cache", "docs", *args])


def test_a_binary_file_named_md_beside_readable_ones_is_an_input_error_exit_2(tree, capsys):
    """It gave exit 0 beside '1 input error' in the summary."""
    Path("docs/image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert check() == 2
    out = capsys.readouterr().out
    assert "docs/image.md: binary file (NUL bytes)" in out
    assert "1 input error" in out


def test_an_input_error_wins_over_broken_links(tree):
    """The list of broken links is not the whole story when a file was not read: 2, not 1."""
    Path("docs/guide.md").write_text("# Guide\n\n[gone](gone.md)\n")
    Path("docs/image.md").write_bytes(b"\x00\x01binary")
    assert check() == 2


def test_an_input_error_is_2_with_the_report_written(tree):
    Path("docs/image.md").write_bytes(b"\x00\x01binary")
    assert check("-f", "json", "-o", "result.json") == 2
    assert json.loads(Path("result.json").read_text())["errors"] == ["docs/image.md: binary file (NUL bytes), not a text document"]


def test_quiet_still_names_the_input_error(tree, capsys):
    """`-q` hides warnings: the line saying why the run is 2 must be on stdout."""
    Path("docs/image.md").write_bytes(b"\x00\x01binary")
    assert check("-q") == 2
    assert capsys.readouterr().out == "ERROR  docs/image.md: binary file (NUL bytes), not a text document\n"


def test_a_file_read_with_replacement_characters_is_an_input_error(tree):
    """Not UTF-8: read and listed as an input error (the fixer refuses to edit it), so exit 2."""
    Path("docs/latin1.md").write_bytes(b"# Caf\xe9\n")
    assert check() == 2
