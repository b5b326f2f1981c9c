"""Renames from the sources' own git history (linkfix.recover.internal_links.history)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from linkfix.recover.internal_links.history import Rename, Renames, parse_log, read_renames


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2024-03-01T12:00:00Z", "GIT_COMMITTER_DATE": "2024-03-01T12:00:00Z"}
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                          capture_output=True, text=True, env=env)
    return done.stdout


def repo_with_docs(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\n[setup](guide/setup.md)\n")
    (docs / "guide" / "setup.md").write_text("# Setup\n\nHow to set things up, at some length.\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "docs")
    return docs


def exists_in(docs: Path):
    return lambda rel: (docs / rel).is_file()


def test_a_git_mv_is_followed_to_the_new_name(tmp_path):
    docs = repo_with_docs(tmp_path)
    git(tmp_path, "mv", "docs/guide/setup.md", "docs/guide/install.md")
    git(tmp_path, "commit", "-qm", "rename")
    renames = read_renames(docs)
    trail = renames.follow("guide/setup.md", exists_in(docs))
    assert trail is not None and trail.end == "guide/install.md"
    (step,) = trail.renames
    assert step.commit == git(tmp_path, "rev-parse", "HEAD").strip()
    assert step.describe(renames.prefix) == f"renamed in commit {step.commit[:7]} (2024-03-01): docs/guide/setup.md → docs/guide/install.md"


def test_several_renames_are_followed_to_the_file_that_exists_now(tmp_path):
    docs = repo_with_docs(tmp_path)
    git(tmp_path, "mv", "docs/guide/setup.md", "docs/guide/install.md")
    git(tmp_path, "commit", "-qm", "one")
    (docs / "start").mkdir()
    git(tmp_path, "mv", "docs/guide/install.md", "docs/start/installation.md")
    git(tmp_path, "commit", "-qm", "two")
    trail = read_renames(docs).follow("guide/setup.md", exists_in(docs))
    assert trail is not None
    assert [(r.old, r.new) for r in trail.renames] == [("guide/setup.md", "guide/install.md"), ("guide/install.md", "start/installation.md")]


def test_a_rename_staged_with_git_mv_counts_before_it_is_committed(tmp_path):
    docs = repo_with_docs(tmp_path)
    git(tmp_path, "mv", "docs/guide/setup.md", "docs/guide/install.md")
    trail = read_renames(docs).follow("guide/setup.md", exists_in(docs))
    assert trail is not None and trail.end == "guide/install.md" and trail.renames[0].commit == "staged"


def test_a_renamed_file_deleted_since_leads_nowhere(tmp_path):
    docs = repo_with_docs(tmp_path)
    git(tmp_path, "mv", "docs/guide/setup.md", "docs/guide/install.md")
    git(tmp_path, "commit", "-qm", "rename")
    git(tmp_path, "rm", "-q", "docs/guide/install.md")
    git(tmp_path, "commit", "-qm", "delete")
    assert read_renames(docs).follow("guide/setup.md", exists_in(docs)) is None


def test_renames_outside_the_root_are_left_out(tmp_path):
    docs = repo_with_docs(tmp_path)
    (tmp_path / "NOTES.md").write_text("notes\n" * 20)
    git(tmp_path, "add", "NOTES.md")
    git(tmp_path, "commit", "-qm", "notes")
    git(tmp_path, "mv", "NOTES.md", "docs/notes.md")
    git(tmp_path, "commit", "-qm", "move in")
    renames = read_renames(docs)
    assert len(renames) == 0


def test_no_repository_no_git_and_a_shallow_clone_give_no_error(tmp_path, monkeypatch):
    plain = tmp_path / "plain"
    plain.mkdir()
    assert len(read_renames(plain)) == 0  # not a repository

    source = tmp_path / "source"
    source.mkdir()
    docs = repo_with_docs(source)
    git(source, "mv", "docs/guide/setup.md", "docs/guide/install.md")
    git(source, "commit", "-qm", "rename")
    (docs / "more.md").write_text("# More\n")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "more")
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{source}", "shallow")
    shallow_docs = tmp_path / "shallow" / "docs"
    assert len(read_renames(shallow_docs)) == 0  # the rename is beyond the clone's depth
    assert len(read_renames(docs)) == 1  # the control: the full history has it

    monkeypatch.setenv("PATH", str(tmp_path / "no-such-bin"))  # git cannot be found
    assert len(read_renames(docs)) == 0


def test_output_cut_short_keeps_the_whole_commits_only():
    commit_a, commit_b = "a" * 40, "b" * 40
    text = (f"\x01{commit_a} 2024-03-02\0\nR100\0docs/b.md\0docs/c.md\0"
            f"\x01{commit_b} 2024-03-01\0\nR090\0docs/a.md\0docs/b")  # cut inside a path
    whole = list(parse_log(text, "docs/", whole=True))
    cut = list(parse_log(text, "docs/", whole=False))
    assert [(r.old, r.new, r.similarity) for r in whole] == [("b.md", "c.md", 100), ("a.md", "b", 90)]
    assert [(r.old, r.new) for r in cut] == [("b.md", "c.md")]


def test_the_latest_rename_of_a_reused_name_wins_and_counts_the_other_as_a_rival():
    renames = Renames([
        Rename(old="a.md", new="b.md", commit="c" * 40, date="2020-01-01", similarity=100, age=5),
        Rename(old="a.md", new="c.md", commit="d" * 40, date="2023-01-01", similarity=100, age=1),
    ])
    trail = renames.follow("a.md", {"b.md", "c.md"}.__contains__)
    assert trail is not None and trail.end == "c.md" and trail.rivals == 1


def test_blobs_are_read_in_one_batch_with_missing_ones_as_none(tmp_path):
    from linkfix.recover.internal_links.history import git_blobs

    docs = repo_with_docs(tmp_path)
    base = ["git", "-C", str(docs)]
    texts = git_blobs(base, ["HEAD:docs/index.md", "HEAD:docs/nope.md", "HEAD:docs/guide", "HEAD:docs/guide/setup.md"], 10)
    assert texts[0].startswith("# Home") and texts[1] is None and texts[2] is None and texts[3].startswith("# Setup")
    assert git_blobs(["git", "-C", str(tmp_path / "nowhere")], ["HEAD:x"], 10) == [None]
