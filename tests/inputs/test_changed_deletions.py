"""A change that deletes or renames a page is checked: the links to it (issue 44, item 1).

Links to a deleted page live in files the change did not touch. `--changed-since` passed such a
pull request green (`0 links in 0 files`), and the pre-commit hook skipped the deleting commit
(pre-commit passes it no markdown file). Both now check every link to a deleted file.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from linkfix.cli import main


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root, check=True, capture_output=True)


def repository(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


PAGES = {
    "docs/a.md": "# A\n\n[b](b.md) and [b's part](b.md#part)\n",
    "docs/c.md": "# C\n\n[b](b.md)\n\n[old and broken](nowhere.md)\n",
    "docs/d/e.md": "# E\n\n[b](../b.md)\n",
    "docs/b.md": "# B\n\n## Part\n",
}


def report(root: Path, monkeypatch, *args: str) -> tuple[int, dict]:
    monkeypatch.chdir(root)
    out = root.parent / "report.json"
    code = main(["check", "--offline", "--no-cache", *args, "-f", "json", "-o", str(out)])
    return code, json.loads(out.read_text())


def broken(document: dict) -> list[tuple[str, str]]:
    return sorted((link["file"], link["url"]) for link in document["links"] if link["status"] == "broken")


@pytest.mark.parametrize("how", ["rm", "mv"])
@pytest.mark.parametrize("with_mkdocs", [False, True], ids=["plain", "mkdocs"])
def test_a_pull_request_that_deletes_or_renames_a_linked_page_fails(tmp_path, monkeypatch, how, with_mkdocs):
    root = repository(tmp_path / "r", {**PAGES, **({"mkdocs.yml": "site_name: t\n"} if with_mkdocs else {})})
    git(root, "checkout", "-qb", "pr")
    if how == "rm":
        git(root, "rm", "-q", "docs/b.md")
    else:
        git(root, "mv", "docs/b.md", "docs/moved.md")
    git(root, "commit", "-qm", how)
    code, document = report(root, monkeypatch, "docs/", "--changed-since", "main")
    assert code == 1
    files = {row[0].split("docs/")[-1] for row in broken(document)}
    assert files == {"a.md", "c.md", "d/e.md"}
    assert len(broken(document)) == 4  # the inherited broken link (nowhere.md) is not the pull request's


def test_a_pull_request_that_deletes_an_unlinked_page_passes(tmp_path, monkeypatch):
    root = repository(tmp_path / "r", {**PAGES, "docs/lonely.md": "# Lonely\n"})
    git(root, "checkout", "-qb", "pr")
    git(root, "rm", "-q", "docs/lonely.md")
    git(root, "commit", "-qm", "rm")
    code, document = report(root, monkeypatch, "docs/", "--changed-since", "main")
    assert code == 0 and broken(document) == []


def test_a_nav_entry_naming_the_deleted_page_is_checked(tmp_path, monkeypatch):
    root = repository(tmp_path / "r", {**PAGES, "mkdocs.yml": "site_name: t\nnav:\n  - A: a.md\n  - B: b.md\n"})
    git(root, "checkout", "-qb", "pr")
    git(root, "rm", "-q", "docs/b.md")
    code, document = report(root, monkeypatch, "mkdocs.yml", "--changed-since", "main")
    assert code == 1
    assert ("mkdocs.yml", "b.md") in [(row[0].split("/")[-1], row[1]) for row in broken(document)]


def test_the_staged_commit_that_deletes_a_page_fails_with_no_file_given(tmp_path, monkeypatch):
    """The pre-commit hook (`always_run`, `--staged`): pre-commit passes no file for a deletion."""
    root = repository(tmp_path / "r", {**PAGES, "mkdocs.yml": "site_name: t\n"})
    git(root, "rm", "-q", "docs/b.md")
    code, document = report(root, monkeypatch, "--staged")
    assert code == 1 and len(broken(document)) == 4


def test_a_staged_commit_with_nothing_to_check_passes_quietly(tmp_path, monkeypatch, capsys):
    root = repository(tmp_path / "r", {**PAGES, "src.py": "x = 1\n"})
    (root / "src.py").write_text("x = 2\n", encoding="utf-8")
    git(root, "add", "src.py")
    monkeypatch.chdir(root)
    assert main(["check", "--offline", "--no-cache", "--staged"]) == 0
    assert "nothing staged to check" in capsys.readouterr().err


def test_the_staged_files_given_are_checked_whole_beside_the_deletion(tmp_path, monkeypatch):
    root = repository(tmp_path / "r", PAGES)
    (root / "docs/a.md").write_text("# A\n\n[gone](gone.md)\n", encoding="utf-8")
    git(root, "add", "docs/a.md")
    git(root, "rm", "-q", "docs/d/e.md")
    code, document = report(root, monkeypatch, "--staged", "docs/a.md")
    assert code == 1 and [row[1] for row in broken(document)] == ["gone.md"]
