"""Inputs as lychee takes them (issue 22): `-` is a document on stdin, `--files-from FILE` (or
`-`) a list of files, one per line."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from linkfix.cli import main


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("docs").mkdir()
    Path("docs/index.md").write_text("# Home\n\n[gone](gone.md)\n")
    Path("docs/guide.md").write_text("# Guide\n\n[home](index.md#home)\n")
    Path("docs/other.md").write_text("# Other\n\n[also gone](also-gone.md)\n")
    return tmp_path


def stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))


def check(*args: str) -> tuple[int, dict]:
    code = main(["check", "--offline", "--no-cache", "-f", "json", "-o", "r.json", *args])
    return code, json.loads(Path("r.json").read_text())


def test_a_markdown_document_on_stdin(tree, monkeypatch):
    stdin(monkeypatch, "# Notes\n\n[guide](docs/guide.md#guide) [typo](docs/gide.md) [web](https://example.org/)\n")
    code, data = check("-")
    assert code == 1
    assert {(link["file"], link["line"], link["url"], link["status"]) for link in data["links"]} == {
        ("-", 3, "docs/guide.md#guide", "ok"), ("-", 3, "docs/gide.md", "broken"), ("-", 3, "https://example.org/", "excluded")}


def test_an_html_document_on_stdin_is_read_as_html(tree, monkeypatch):
    stdin(monkeypatch, "<!DOCTYPE html><p><a href=\"docs/guide.md\">g</a> &amp; [not a link](nope.md)</p>\n")
    code, data = check("-")
    assert code == 0 and [link["url"] for link in data["links"]] == ["docs/guide.md"]


def test_files_from_a_list_on_stdin(tree, monkeypatch):
    stdin(monkeypatch, "docs/index.md\n# a comment\n\ndocs/guide.md\n")
    code, data = check("--files-from", "-")
    assert code == 1
    assert sorted({link["file"] for link in data["links"]}) == ["docs/guide.md", "docs/index.md"]  # not other.md


def test_files_from_a_file_adds_to_the_inputs(tree):
    Path("list.txt").write_text("docs/other.md\n")
    code, data = check("docs/guide.md", "--files-from", "list.txt")
    assert code == 1  # other.md's broken link
    assert sorted({link["file"] for link in data["links"]}) == ["docs/guide.md", "docs/other.md"]


def test_stdin_cannot_be_read_twice(tree, monkeypatch, capsys):
    stdin(monkeypatch, "docs/index.md\n")
    assert main(["check", "--offline", "-", "--files-from", "-"]) == 2
    assert "stdin cannot be both a document ('-') and the list of files" in capsys.readouterr().err


def test_fix_refuses_a_document_on_stdin(tree, monkeypatch, capsys):
    stdin(monkeypatch, "[gone](gone.md)\n")
    assert main(["fix", "--offline", "-"]) == 2
    assert "cannot be fixed: give its file" in capsys.readouterr().err


def test_fix_takes_files_from_a_list(tree, capsys):
    Path("list.txt").write_text("docs/guide.md\n")
    assert main(["fix", "--offline", "--no-cache", "--dry-run", "--files-from", "list.txt"]) == 0


def test_no_input_at_all_is_a_usage_error(tree, capsys):
    assert main(["check", "--offline"]) == 2
    assert "nothing to check" in capsys.readouterr().err
