"""Nav entries go through the pipeline as every link does (issue 42: they skipped extraction
and recovery): read as a document of the config's after the pages, resolved, checked, filtered,
and suggested for — a renamed page's entry gets the rename, written from the docs' root — while
`fix` still leaves the config's YAML alone, and the config counts as no page of the site."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from linkfix.cli import main


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root, check=True, capture_output=True)


def test_a_nav_entry_of_a_renamed_page_is_suggested_the_rename(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nnav:\n  - A: a.md\n  - B: setup-guide.md\n", encoding="utf-8")
    (tmp_path / "docs" / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "docs" / "setup-guide.md").write_text("# Setup guide\n\nhow to set up\n", encoding="utf-8")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "a")
    git(tmp_path, "mv", "docs/setup-guide.md", "docs/installing.md")
    git(tmp_path, "commit", "-qm", "rename")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    assert main(["check", "--offline", "--no-cache", "--suggest", "mkdocs.yml", "-f", "json", "-o", str(out)]) == 1
    report = json.loads(out.read_text())
    (entry,) = [link for link in report["links"] if link["status"] == "broken"]
    assert entry["file"].endswith("mkdocs.yml") and entry["url"] == "setup-guide.md"
    assert [s["url"] for s in entry["suggestions"]][:1] == ["installing.md"]
    assert report["files"] == 2  # the pages; the config is no page
    before = (tmp_path / "mkdocs.yml").read_text()
    main(["fix", "--offline", "--no-cache", "mkdocs.yml"])
    assert (tmp_path / "mkdocs.yml").read_text() == before
