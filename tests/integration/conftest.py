"""Helpers for tests that drive linkfix from the outside (mkdocs builds, pre-commit, the demo).

Subprocesses get this checkout on PYTHONPATH, and, when linkfix is not pip-installed, a tiny
`*.dist-info` that declares the `mkdocs.plugins: linkfix` entry point exactly as pyproject does,
so `mkdocs build` finds the plugin the way it would after `pip install linkfix`.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import textwrap
import tomllib
from collections.abc import Iterable
from importlib.metadata import entry_points, version
from pathlib import Path

import pytest

from linkfix.config import Config
from linkfix.model import Report
from linkfix.pipeline import run_check

REPO = Path(__file__).resolve().parents[2]
# MkDocs validates anchors from 1.6 (`validation.links.anchors`); before, linkfix alone says them.
MKDOCS_CHECKS_ANCHORS = tuple(int(part) for part in version("mkdocs").split(".")[:2]) >= (1, 6)


def _entry_point_line() -> str:
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return f"linkfix = {data['project']['entry-points']['mkdocs.plugins']['linkfix']}"


@pytest.fixture(scope="session")
def checkout_paths(tmp_path_factory) -> list[str]:
    """sys.path entries that make this checkout (and its mkdocs entry point) importable."""
    paths = [str(REPO), str(REPO / "plugins"), str(REPO / "fixtures")]
    if not any(ep.name == "linkfix" for ep in entry_points(group="mkdocs.plugins")):
        shim = tmp_path_factory.mktemp("entry-point")
        dist = shim / "linkfix_checkout-0.0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: linkfix-checkout\nVersion: 0.0\n")
        (dist / "entry_points.txt").write_text(f"[mkdocs.plugins]\n{_entry_point_line()}\n")
        paths.append(str(shim))
    return paths


@pytest.fixture
def checkout_env(checkout_paths) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(checkout_paths + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.pop("CI", None)
    return env


@pytest.fixture
def in_process_plugin(checkout_paths, monkeypatch):
    """The entry point visible to this process too (for builds through the mkdocs API)."""
    for path in checkout_paths:
        if path not in sys.path:
            monkeypatch.syspath_prepend(path)


def check_mkdocs_project(tmp_path: Path, config: str, pages: dict[str, str], files: dict[str, str] | None = None, *,
                         site_name: str = "site_name: test\n", trust: bool = False) -> Report:
    """Write a small MkDocs project (`pages` under docs/, `files` from its root, each dedented)
    and check it like `linkfix check --offline mkdocs.yml`."""
    (tmp_path / "mkdocs.yml").write_text(site_name + textwrap.dedent(config))
    for name, text in {**{f"docs/{page}": text for page, text in pages.items()}, **(files or {})}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return asyncio.run(run_check([str(tmp_path / "mkdocs.yml")], Config(offline=True, cache=False, trust_project_code=trust)))


def worst_status_by_url(report: Report) -> dict[str, str]:
    """url -> status of every link of `report` (`broken` when any link with that URL is)."""
    found: dict[str, str] = {}
    for r in report.results:
        if found.get(r.link.url) != "broken":
            found[r.link.url] = r.result.status.value
    return found


def copy_checkout(names: Iterable[str], target: Path) -> None:
    """This checkout's files and trees `names` (pyproject.toml, linkfix, ...) copied into
    `target`, without bytecode or caches: a source tree to build or install from."""
    for name in names:
        source, copied = REPO / name, target / name
        if source.is_dir():
            shutil.copytree(source, copied, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".linkfix-cache"))
        else:
            copied.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copied)
