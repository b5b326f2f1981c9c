"""`check --dump` (lychee's --dump, issue 22): the links a check would check, none checked."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from linkfix.cli import main


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("docs/guide").mkdir(parents=True)
    Path("docs/index.md").write_text(
        "# Home\n\n"
        "[guide](guide/setup.md#install) [web](https://example.org/a?b=1) [mail](mailto:a@example.org)\n"
        "<!-- linkfix-disable-next-line -->\n"
        "[private](https://intranet.example.corp/)\n"
        "[skipped](https://skip.example.org/x) [gone](gone.md)\n"
    )
    Path("docs/guide/setup.md").write_text("# Setup\n\n[home](../index.md)\n")
    return tmp_path


def test_dump_lists_what_would_be_checked_with_its_place(tree, capsys):
    assert main(["check", "--dump", "--exclude", "skip\\.example", "docs"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "index.md\tdocs/guide/setup.md:3:8",  # files in the order they are read
        "guide/setup.md#install\tdocs/index.md:3:9",
        "https://example.org/a?b=1\tdocs/index.md:3:39",
        "gone.md\tdocs/index.md:6:46",  # a broken one too: the list says what would be checked
    ]
    assert not Path(".linkfix-cache").exists()  # nothing checked, so nothing cached


def test_dump_offline_leaves_out_external_links(tree, capsys):
    assert main(["check", "--dump", "--offline", "docs"]) == 0
    assert "https://" not in capsys.readouterr().out


def test_dump_reads_stdin_too(tree, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"see https://example.org/x and [a](docs/index.md)\n")))
    assert main(["check", "--dump", "-"]) == 0
    assert capsys.readouterr().out.splitlines() == ["https://example.org/x\t-:1:5", "docs/index.md\t-:1:35"]


def test_backslash_escapes_are_markdowns_own_syntax_not_raw_htmls(tmp_path, monkeypatch, capsys):
    # CommonMark spec examples 21 and 631 (Python-Markdown renders them alike): raw HTML keeps
    # its backslashes, a markdown link's `\_` is an escaped `_`; character references are decoded in both.
    monkeypatch.chdir(tmp_path)
    Path("index.md").write_text('# T\n\n<a href="sub\\/x.md">x</a> [y](sub\\_z.md)\n<a href="a&#46;md">z</a>\n')
    assert main(["check", "--dump", "index.md"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "sub\\/x.md\tindex.md:3:10",
        "sub_z.md\tindex.md:3:31",
        "a.md\tindex.md:4:10",
    ]
