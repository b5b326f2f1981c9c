"""The hooks of .pre-commit-hooks.yaml, run by the real `pre-commit run` on a config naming the
repository and its revision, as a project's .pre-commit-config.yaml does.

pre-commit clones a committed repository, so the package is copied into a temporary git repo and
committed there; pre-commit then builds its own virtualenv and pip-installs linkfix from it (that
step downloads the dependencies from PyPI once per module, in the module's pre-commit home:
marked slow). Not `pre-commit try-repo`: it builds that virtualenv again on each call, in a store
of its own.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import copy_checkout

pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install pre-commit)")

pytestmark = pytest.mark.slow

_COPIED = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "linkfix", "plugins")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false", *args],
        cwd=repo, check=True, capture_output=True, text=True,
    ).stdout


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("linkfix-hooks")
    copy_checkout(_COPIED, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "linkfix under test")
    return repo


@pytest.fixture(scope="module")
def precommit_env(tmp_path_factory) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CI")}
    # One pre-commit home per session: the hook venv is built once and reused by every test.
    env["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    env["PRE_COMMIT_COLOR"] = "never"
    return env


def run_hook(hook_repo: Path, hook: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """`hook` of `hook_repo` run on the staged files of the repository at `cwd`."""
    config = Path(env["PRE_COMMIT_HOME"]).parent / f"config-{hook}.yaml"
    config.write_text(f"repos:\n  - repo: {hook_repo}\n    rev: {git(hook_repo, 'rev-parse', 'HEAD').strip()}\n"
                      f"    hooks:\n      - id: {hook}\n", encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--config", str(config), "--verbose"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture
def docs_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "docs-repo"
    (repo / "docs" / "guide").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("# Project\n\nSee [the docs](docs/index.md).\n")
    (repo / "docs" / "guide" / "a.md").write_text("# A\n\n## Setup\n\nText.\n")
    (repo / "docs" / "old.md").write_text("# Old\n\n[inherited rot](nowhere.md)\n")  # committed, not staged
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def test_linkfix_hook_checks_staged_files_offline(hook_repo, docs_repo, precommit_env):
    docs = docs_repo / "docs"
    (docs / "index.md").write_text(
        "# Docs\n\n[a](guide/a.md) [setup](guide/a.md#setup) [readme](../README.md)\n\n"
        "[missing page](guide/nope.md) [missing section](guide/a.md#nope) [web](https://example.com/x)\n"
    )
    (docs / "guide" / "b.md").write_text("# B\n\n[up two](../../README.md) [sibling](a.md#setup)\n")
    git(docs_repo, "add", "docs/index.md", "docs/guide/b.md")
    failed = run_hook(hook_repo, "linkfix", docs_repo, precommit_env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    out = failed.stdout
    assert "guide/nope.md" in out and "guide/a.md#nope" in out
    assert "nowhere.md" not in out  # only staged files are checked
    assert "../README.md" not in out and "../../README.md" not in out  # resolved from the repo root

    (docs / "index.md").write_text("# Docs\n\n[a](guide/a.md) [setup](guide/a.md#setup) [web](https://example.com/x)\n")
    git(docs_repo, "add", "docs/index.md")
    passed = run_hook(hook_repo, "linkfix", docs_repo, precommit_env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout


def test_linkfix_hook_fails_a_commit_that_deletes_a_linked_page(hook_repo, docs_repo, precommit_env):
    """Issue 44.1: pre-commit passes a deleting commit no markdown file; the hook runs anyway
    (`always_run`) and checks every link to what the index deletes (`--staged`)."""
    (docs_repo / "docs" / "index.md").write_text("# Docs\n\n[a](guide/a.md) [setup](guide/a.md#setup)\n")
    git(docs_repo, "add", "docs/index.md")
    git(docs_repo, "commit", "-q", "-m", "index")
    git(docs_repo, "rm", "-q", "docs/guide/a.md")
    failed = run_hook(hook_repo, "linkfix", docs_repo, precommit_env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "guide/a.md" in failed.stdout and "Skipped" not in failed.stdout
    assert "nowhere.md" not in failed.stdout  # the inherited rot is not the commit's


async def test_linkfix_fix_hook_rewrites_and_fails_the_commit(hook_repo, docs_repo, precommit_env):
    from linkfix_simweb import SimWeb

    web = SimWeb()
    site = web.add_site("127.0.0.1")  # a literal IP: the hook's own process needs no resolver
    site.page("/guide/install/", "<html><head><title>Install guide</title></head><body><h1>Install guide</h1></body></html>")
    # No real archive or search service: recovery stays on the (loopback) site itself.
    (docs_repo / "linkfix.yml").write_text("allow_private: true\narchive: []\nsearch: [{provider: site}]\nmax_retries: 0\n")
    async with web:
        base = f"http://127.0.0.1:{web.port}"
        page = docs_repo / "docs" / "index.md"
        page.write_text(f"# Docs\n\nRead the [install guide]({base}/guide/install.html).\n")
        git(docs_repo, "add", "-A")
        done = await asyncio.to_thread(run_hook, hook_repo, "linkfix-fix", docs_repo, precommit_env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "files were modified by this hook" in done.stdout
    assert f"[install guide]({base}/guide/install/)" in page.read_text()
