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


def project_of(config_file: Path) -> Path:
    """The project `config_file` belongs to (real path): the git work tree holding it (found
    from where the file is named, so a symlink to it elsewhere does not move it), else its
    directory."""
    directory = Path(os.path.abspath(config_file)).parent
    return Path(os.path.realpath(git_top(directory) or directory))


def outside_project(path: Path, project: Path) -> bool:
    """Whether `path`, symlinks followed, leads out of `project` (a real path)."""
    return not Path(os.path.realpath(path)).is_relative_to(project)


def describe_project(project: Path) -> str:
    """How error messages name the project: where it is and why it is the project."""
    why = "the git work tree holding the config" if (project / ".git").exists() else "the config's directory; no git work tree holds it"
    return f"{project} ({why})"
