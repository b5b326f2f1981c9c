"""`python -m linkfix --trust-project-code` puts the working tree back on sys.path (its modules
stand in for installed ones, as the project's hooks and scripts expect); a project module named
like a package linkfix reads the project with (bfg9000 keeps its macros in `mkdocs.py`) must not
replace that package."""

from __future__ import annotations

import subprocess
import sys


def test_a_project_module_named_mkdocs_does_not_replace_mkdocs_under_the_trust(tmp_path, checkout_env):
    (tmp_path / "mkdocs.py").write_text("raise SystemExit('the project module ran in place of MkDocs')\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: test\ntheme:\n  name: readthedocs\nplugins:\n  - search\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[gone](missing.md)\n")
    run = subprocess.run([sys.executable, "-m", "linkfix", "check", "--offline", "--no-cache", "--trust-project-code", "mkdocs.yml"],
                         cwd=tmp_path, env=checkout_env, capture_output=True, text=True, timeout=120)
    assert "in place of MkDocs" not in run.stdout + run.stderr
    assert run.returncode == 1, run.stderr  # the broken link found, not a crash (3) or the module's exit
    assert "missing.md" in run.stdout
