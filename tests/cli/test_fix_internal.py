"""`linkfix fix` on broken internal links: suggestions from the project itself, applied at or
above the confidence threshold only; `--update-redirects` for mkdocs-redirects' redirect_maps."""

from __future__ import annotations

import pytest
from git_trees import commit_then_rename

from linkfix.cli import main
from linkfix.recover.internal_links.confidence import confidence_of


@pytest.fixture
def moved(tmp_path, monkeypatch):
    """docs/index.md links guide/setup.md, which `git mv` renamed to guide/installation.md."""
    monkeypatch.chdir(tmp_path)
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\nRead [the setup](guide/setup.md#usage) first.\n")
    (docs / "guide" / "setup.md").write_text("# Setup\n\n## Usage\n\nHow to set things up, at some length.\n")
    commit_then_rename(tmp_path, "docs/guide/setup.md", "docs/guide/installation.md")
    return docs


def test_fix_applies_an_internal_suggestion_at_the_threshold(moved, capsys):
    confidence = confidence_of("git-rename")
    assert main(["fix", "docs", "--offline", "--min-confidence", str(confidence)]) == 1
    assert (moved / "index.md").read_text() == "# Home\n\nRead [the setup](guide/installation.md#usage) first.\n"
    assert "1 link changed in 1 file; 0 notes" in capsys.readouterr().err


def test_by_default_fix_follows_a_git_mv(moved):
    # measured at least 99% right (benchmarks/internal_fixes.py): applied without being asked
    assert main(["fix", "docs", "--offline"]) == 1
    assert (moved / "index.md").read_text() == "# Home\n\nRead [the setup](guide/installation.md#usage) first.\n"


def test_fix_leaves_an_internal_suggestion_below_the_threshold(moved, capsys):
    before = (moved / "index.md").read_text()
    above = round(confidence_of("git-rename") + 0.001, 4)
    assert main(["fix", "docs", "--offline", "--min-confidence", str(above)]) == 0
    assert (moved / "index.md").read_text() == before
    assert "best suggestion guide/installation.md#usage has confidence" in capsys.readouterr().err


@pytest.fixture
def redirected(tmp_path, monkeypatch):
    """docs/index.md links old.md, which mkdocs-redirects maps to guide/new.md."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nplugins:\n  - redirects:\n      redirect_maps:\n        old.md: guide/new.md\n")
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\nSee [usage](old.md#usage).\n")
    (docs / "guide" / "new.md").write_text("# New\n\n## Usage\n\nText.\n")
    return docs


def test_update_redirects_rewrites_a_redirect_maps_link(redirected):
    assert main(["fix", "mkdocs.yml", "--offline"]) == 0  # a redirect works: left alone
    assert (redirected / "index.md").read_text() == "# Home\n\nSee [usage](old.md#usage).\n"
    # where the redirect page sends readers today: written like an HTTP redirect's target
    assert main(["fix", "mkdocs.yml", "--offline", "--update-redirects"]) == 1
    assert (redirected / "index.md").read_text() == "# Home\n\nSee [usage](guide/new.md#usage).\n"
