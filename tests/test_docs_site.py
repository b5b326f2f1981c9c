"""The docs site builds strictly and linkfix checks it (`.ci/docs`, which `.ci/run` runs): a
broken link in the docs fails CI."""

import os
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "docs"


def _below_the_docs_extra() -> list[str]:
    """The packages installed below the versions the `docs` extra declares (or missing): the
    site is built and tested at those versions and up (.ci/lowest installs older ones)."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]["docs"]
    below = []
    for requirement in map(Requirement, extra):
        try:
            installed = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            below.append(f"{requirement.name} (not installed)")
            continue
        if not requirement.specifier.contains(installed, prereleases=True):
            below.append(f"{requirement.name} {installed}")
    return below


pytestmark = pytest.mark.skipif(bool(_below_the_docs_extra()), reason=f"the docs extra's versions are needed: {_below_the_docs_extra()}")


def run_docs_check(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), str(project)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHON": sys.executable})


def copy_of_the_docs(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copytree(ROOT / "docs", project / "docs")
    for name in ("mkdocs.yml", "README.md"):
        shutil.copy2(ROOT / name, project / name)
    return project


def test_the_docs_build_strictly_and_every_link_checks(tmp_path):
    done = run_docs_check(copy_of_the_docs(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "none broken" in done.stderr  # the plugin ran inside the build


def test_a_broken_link_in_the_docs_fails_the_build_through_linkfixs_plugin(tmp_path):
    project = copy_of_the_docs(tmp_path)
    # MkDocs' own validation does not look at raw HTML: linkfix's plugin must catch this one.
    with (project / "docs" / "recovery.md").open("a", encoding="utf-8") as f:
        f.write('\nSee <a href="../no-such-page/">the old page</a>.\n')
    done = run_docs_check(project)
    assert done.returncode == 1
    assert "linkfix: 1 broken link(s)" in done.stderr and "docs/recovery.md:" in done.stderr


def test_a_broken_link_from_the_readme_into_the_docs_fails_the_check(tmp_path):
    project = copy_of_the_docs(tmp_path)
    readme = project / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8").replace("(docs/recovery.md)", "(docs/recovery-gone.md)", 1), encoding="utf-8")
    done = run_docs_check(project)
    assert done.returncode == 1
    assert "docs/recovery-gone.md" in done.stdout


def test_linkfix_alone_finds_the_link_mkdocs_does_not_validate(tmp_path):
    project = copy_of_the_docs(tmp_path)
    with (project / "docs" / "recovery.md").open("a", encoding="utf-8") as f:
        f.write('\nSee <a href="../no-such-page/">the old page</a>.\n')
    done = subprocess.run([sys.executable, "-m", "linkfix", "check", "--offline", "mkdocs.yml"], cwd=project,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "recovery.md" in done.stdout and "../no-such-page/" in done.stdout
