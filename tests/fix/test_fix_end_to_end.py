"""Issue 5, "done" 4: broken links in a docs tree -> check with suggestions -> fix -> every
rewritten link checks clean against the demo's web, `git diff` shows only link targets,
and a second `fix` changes nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from linkfix.cli.demo import canonical_report
from linkfix.config import Config, validate
from linkfix.fix.changes import prepare_changes, write_changes
from linkfix.fix.plan import FixOptions, plan_fixes
from linkfix.model import Status
from linkfix.pipeline import run_check

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed to show the diff")


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


async def test_check_fix_recheck(tmp_path, monkeypatch):
    from linkfix.cli.demo.acme import DOCS_DIR, acme_web, demo_config

    monkeypatch.chdir(tmp_path)
    async with acme_web() as web:
        shutil.copytree(DOCS_DIR, tmp_path / "docs")
        git(tmp_path, "init", "-q")
        git(tmp_path, "add", "docs")
        git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "docs")
        config = Config(**{**demo_config(web), "cache": False}, config_dir=str(tmp_path))
        validate(config)

        async def check():
            return canonical_report(await run_check(["docs"], config, resolver=web.resolver), web.canonical)

        report = await check()
        plan = plan_fixes(report, FixOptions(update_redirects=True))
        assert len(plan.fixes) >= 5  # moved pages, restructured API, moved blog, redirect
        changes, problems = prepare_changes(plan, base=tmp_path)
        changed, refused = write_changes(changes, base=tmp_path, root=tmp_path)
        assert problems == [] and refused == []
        assert sorted(changed) == sorted({f.span.path for f in plan.fixes})

        # `git diff` shows only link targets: every changed word is an old or a new URL
        diff = git(tmp_path, "diff", "-U0", "--word-diff=porcelain", r"--word-diff-regex=[^][()<>\" ]+")
        removed = [line[1:] for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
        added = [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
        assert sorted(removed) == sorted(f.url for f in plan.fixes)
        assert sorted(added) == sorted(f.new_url for f in plan.fixes)

        # the rewritten links check clean; links on untouched lines keep their status
        again = await check()
        before = {(r.link.span.path, r.link.span.line, r.link.span.column): r for r in report.results}
        fixed_lines = {(f.span.path, f.span.line) for f in plan.fixes}
        new_urls = {f.new_url for f in plan.fixes}
        for item in again.results:
            span = item.link.span
            if (span.path, span.line) in fixed_lines:
                if item.link.url in new_urls:
                    assert item.result.status is Status.OK, (item.link.url, item.result)
            else:
                assert item.result.status is before[(span.path, span.line, span.column)].result.status

        # a second fix on the fresh result has nothing to do
        assert plan_fixes(again, FixOptions(update_redirects=True)).fixes == ()
        status = git(tmp_path, "status", "--porcelain", "--untracked-files=no").splitlines()
        assert sorted(line[3:] for line in status) == sorted(changed)
