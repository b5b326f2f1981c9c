"""`python -m linkfix` runs nothing of the checked tree (issue 38, finding 1).

For `-m`, Python puts the working directory first on sys.path and then imports the package
(`linkfix/__init__.py`) before its `__main__` can take that entry off. A `typing.py` at the top
of a pull request ran as the CI user because `__init__.py` imported `typing` (and
`__future__`) in that window.

The child runs without `site` (`-S`): site's `.pth` files import `typing` and more into this
test environment before any code runs, which would hide the window; pre-commit's and pipx's
virtualenvs import almost nothing at start. Linkfix and its dependencies come from PYTHONPATH,
which Python puts after the working directory, as a virtualenv's site-packages are.
"""

from __future__ import annotations

import os
import re
import site
import subprocess
import sys
from pathlib import Path

import pytest

import linkfix

PACKAGE_ROOT = str(Path(linkfix.__file__).resolve().parent.parent)
PAGE = "# Home\n\n[gone](missing.md)\n"


def _run(cwd: Path, *args: str, importtime: bool = False) -> subprocess.CompletedProcess[str]:
    paths = [PACKAGE_ROOT, *site.getsitepackages(), site.getusersitepackages()]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "NO_COLOR": "1"}
    env.pop("PYTHONSAFEPATH", None)
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run([sys.executable, "-S", *flags, "-m", "linkfix", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=180)


def _imports(stderr: str) -> set[str]:
    """The top-level modules `-X importtime` says were imported."""
    return {m.group(1).split(".")[0] for m in re.finditer(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", stderr, re.M)}


def _before_any_module(tmp_path: Path) -> set[str]:
    """What Python itself imports for `-m` before the module's own code (runpy and what it needs):
    those are found before linkfix runs, for any `python -m`, and a virtualenv's site imports them
    at start anyway."""
    (tmp_path / "nothing.py").write_text("", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": ""}
    result = subprocess.run([sys.executable, "-S", "-X", "importtime", "-m", "nothing"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    return _imports(result.stderr)


def _shadow(cwd: Path, names: set[str]) -> None:
    for name in names:
        (cwd / f"{name}.py").write_text(f"open({str(cwd / ('RAN-' + name))!r}, 'w').close()\n", encoding="utf-8")


def _ran(cwd: Path) -> list[str]:
    return sorted(p.name[4:] for p in cwd.glob("RAN-*"))


def test_a_checkouts_typing_json_re_and_future_modules_never_run(tmp_path):
    (tmp_path / "index.md").write_text(PAGE, encoding="utf-8")
    _shadow(tmp_path, {"typing", "json", "re", "__future__", "enum", "dataclasses"})
    result = _run(tmp_path, "check", "--offline", "--no-cache", "index.md")
    assert _ran(tmp_path) == [], result.stderr[-2000:]
    assert result.returncode == 1, result.stderr[-2000:]  # the check ran, with the real modules


def test_no_module_linkfix_imports_can_be_stood_in_for_by_the_working_tree(tmp_path):
    """Every top-level module a check imports, shadowed at once: none runs (a new import at the
    top of linkfix/__init__.py, or before __main__ cleans the path, fails here)."""
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "index.md").write_text(PAGE, encoding="utf-8")
    first = _run(clean, "check", "--offline", "--no-cache", "index.md", importtime=True)
    imported = _imports(first.stderr) - _before_any_module(tmp_path) - {"linkfix"}
    assert {"typing", "json", "re", "markdown_it"} <= imported, sorted(imported)  # the list is the real one
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    (hostile / "index.md").write_text(PAGE, encoding="utf-8")
    _shadow(hostile, imported)
    result = _run(hostile, "check", "--offline", "--no-cache", "index.md")
    assert _ran(hostile) == [], result.stderr[-2000:]
    assert result.returncode == 1, result.stderr[-2000:]


def _older_python() -> str | None:
    """A Python older than 3.11 on this machine (pyenv's, as a project's .python-version picks it)."""
    for found in sorted(Path("/root/.pyenv/versions").glob("3.10*")) + [Path(p) for p in ("/usr/bin/python3.10",)]:
        binary = found / "bin" / "python" if found.is_dir() else found
        if binary.exists():
            return str(binary)
    return None


def test_python_m_linkfix_on_an_older_python_says_which_is_needed(tmp_path):
    older = _older_python()
    if older is None:
        pytest.skip("no Python older than 3.11 on this machine")
    env = {**os.environ, "PYTHONPATH": PACKAGE_ROOT}
    result = subprocess.run([older, "-m", "linkfix", "check", "."], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "needs Python 3.11 or newer" in result.stderr and "Traceback" not in result.stderr
