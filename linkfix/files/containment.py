"""The project a config file belongs to, and the rule for the paths it names.

A config that comes with the repository (mkdocs.yml and what it INHERITs, linkfix.yml) decides
what renders and how links are checked, not what is read or written outside the repository: a
path it names (`INHERIT`, `docs_dir`, `cache_dir`) must resolve, symlinks followed, inside the
project that holds the config. The project is the top of the git work tree holding the config,
else (no git) the config's own directory.
"""

from __future__ import annotations

import os
from pathlib import Path


def git_top(directory: Path) -> Path | None:
    """The top of the git work tree holding `directory`, or None."""
    current = directory.absolute()
    while True:
        if (current / ".git").exists():
            return current
        if current.parent == current:
            return None
        current = current.parent


def project_of(config_file: Path, *, built_from: Path | None = None) -> Path:
    """The project `config_file` belongs to (real path): the git work tree holding it (found
    from where the file is named, so a symlink to it elsewhere does not move it), else the
    directory its build runs from when the repository's build steps name one above it
    (`built_from`), else its directory."""
    directory = Path(os.path.abspath(config_file)).parent
    top = git_top(directory)
    if top is None and built_from is not None and directory.is_relative_to(os.path.abspath(built_from)):
        top = built_from
    return Path(os.path.realpath(top or directory))


def outside_project(path: Path, project: Path) -> bool:
    """Whether `path`, symlinks followed, leads out of `project` (a real path)."""
    return not Path(os.path.realpath(path)).is_relative_to(project)


def describe_project(project: Path) -> str:
    """How error messages name the project: where it is and why it is the project, and how to
    make it the repository's when that is meant."""
    if (project / ".git").exists():
        return f"{project} (the git work tree holding the config)"
    return (f"{project} (the config's directory; no git work tree holds it: check from a git checkout, or name the "
            "directory the build runs from: run linkfix there, as `mkdocs build -f path/to/mkdocs.yml` runs, or say it in a "
            "build step linkfix reads, the repository's Makefile or workflow)")
