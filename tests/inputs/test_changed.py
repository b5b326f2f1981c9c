"""`--changed-since`: diff parsing (pure) and real git repositories in tmp_path."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from linkfix.errors import InputError
from linkfix.inputs.changed import Changes, changed_since, parse_diff
from linkfix.model import Document, Link, LinkKind, Page, Span

DIFF = """\
diff --git a/docs/a.md b/docs/a.md
index 1111111..2222222 100644
--- a/docs/a.md
+++ b/docs/a.md
@@ -3 +3 @@ intro
-old line
+new line
@@ -10,0 +11,2 @@ section
+added one
+added two
@@ -20,3 +21,0 @@
-gone
-gone
-gone
diff --git a/docs/new.md b/docs/new.md
new file mode 100644
--- /dev/null
+++ b/docs/new.md
@@ -0,0 +1,4 @@
+a
+b
+c
+d
diff --git a/docs/old.md b/docs/old.md
deleted file mode 100644
--- a/docs/old.md
+++ /dev/null
@@ -1,2 +0,0 @@
-x
-y
diff --git "a/docs/t\\303\\251st \\"q\\".md" "b/docs/t\\303\\251st \\"q\\".md"
--- "a/docs/t\\303\\251st \\"q\\".md"
+++ "b/docs/t\\303\\251st \\"q\\".md"
@@ -1 +1 @@
-x
+y
"""


def test_parse_diff_lines_per_file():
    files = parse_diff(DIFF)
    assert files["docs/a.md"] == frozenset({3, 11, 12})  # a pure deletion adds no line
    assert files["docs/new.md"] == frozenset({1, 2, 3, 4})
    assert "docs/old.md" not in files
    assert files['docs/tést "q".md'] == frozenset({1})


def test_parse_diff_ignores_garbage():
    assert parse_diff("not a diff\n@@ nonsense @@\n+++ \n") == {}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false", *args],
        cwd=repo, check=True, capture_output=True, text=True,
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\n[one](one.md)\n\n[two](two.md)\n\n[three](three.md)\n")
    (tmp_path / "docs" / "b.md").write_text("# B\n\n[b](a.md)\n")
    (tmp_path / "docs" / "moved.md").write_text("# M\n\n[m](a.md)\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def test_changed_since_real_repo(repo: Path):
    docs = repo / "docs"
    (docs / "a.md").write_text("# A\n\n[one](one.md)\n\n[TWO](two-new.md)\n\n[three](three.md)\n")
    git(repo, "add", "docs/a.md")  # staged edits count as well as unstaged ones
    (docs / "c.md").write_text("# C\n\n[c](a.md)\n")  # untracked: wholly new
    git(repo, "mv", "docs/moved.md", "docs/renamed.md")  # a rename is checked as a new file
    changes = changed_since("HEAD", cwd=docs)
    assert changes.covers(docs / "a.md", 5)
    assert not changes.covers(docs / "a.md", 3)
    assert not changes.changed(docs / "b.md")
    assert changes.covers(docs / "c.md", 1) and changes.covers(docs / "c.md", 99)
    assert changes.covers(docs / "renamed.md", 3)
    assert not changes.changed(docs / "moved.md")


def test_unknown_ref_is_a_clear_input_error(repo: Path):
    with pytest.raises(InputError, match="unknown git revision 'no-such-branch'"):
        changed_since("no-such-branch", cwd=repo)


def test_option_like_ref_is_refused(repo: Path):
    with pytest.raises(InputError, match="not a git revision"):
        changed_since("--output=/tmp/x", cwd=repo)


def test_outside_a_repository(tmp_path: Path):
    with pytest.raises(InputError, match="git rev-parse failed"):
        changed_since("HEAD", cwd=tmp_path)


def _doc(path: str, lines: list[int]) -> Document:
    page = Page(path=path)
    links = tuple(
        Link(url=f"u{n}", kind=LinkKind.INLINE, span=Span(path=path, line=n, column=1, start=0, end=1), page=page)
        for n in lines
    )
    return Document(page=page, links=links)


def test_filter_documents_keeps_changed_lines_only(tmp_path: Path):
    changes = Changes(ref="x", files={(tmp_path / "a.md").resolve().as_posix(): frozenset({2, 5}),
                                      (tmp_path / "new.md").resolve().as_posix(): None})
    docs = [("a.md", _doc("a.md", [1, 2, 5, 7])), ("new.md", _doc("new.md", [1, 9])), ("b.md", _doc("b.md", [1]))]
    kept = {rel: [link.span.line for link in doc.links] for rel, doc in changes.filter_documents(docs, tmp_path)}
    assert kept == {"a.md": [2, 5], "new.md": [1, 9], "b.md": []}
    assert changes.select_files([tmp_path / "a.md", tmp_path / "b.md"]) == [tmp_path / "a.md"]


def test_check_changed_since_reports_only_touched_links(repo: Path, monkeypatch, capsys):
    import json

    from linkfix.cli import main

    docs = repo / "docs"
    # b.md keeps an old broken link (inherited rot); a.md gains a new broken link on line 5.
    (docs / "b.md").write_text("# B\n\n[b](a.md)\n\n[old rot](gone.md)\n")
    git(repo, "commit", "-q", "-am", "rot")
    (docs / "a.md").write_text("# A\n\n[one](one.md)\n\n[new rot](two-new.md)\n\n[three](three.md)\n")
    monkeypatch.chdir(repo)
    out = repo / "result.json"
    code = main(["check", "docs", "--offline", "--changed-since", "HEAD", "-f", "json", "-o", str(out), "-q"])
    urls = [link["url"] for link in _links(json.loads(out.read_text()))]
    assert urls == ["two-new.md"]
    assert code == 1
    code = main(["check", "docs", "--offline", "-f", "json", "-o", str(out), "-q"])
    assert {"gone.md", "two-new.md", "one.md"} <= set(link["url"] for link in _links(json.loads(out.read_text())))
    capsys.readouterr()


def _links(data: dict) -> list[dict]:
    return data["links"]
