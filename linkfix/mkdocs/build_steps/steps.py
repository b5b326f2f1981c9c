"""The repository's build steps and dependency files, as text: what a source check reads to know
how the site is built without running anything.

- build steps: the GitHub workflows, Makefile, justfile, noxfile.py, tox.ini and Read the Docs'
  config at the repository's top (a step that copies a file into the docs, a step that runs
  `zensical build`);
- dependency files: pyproject.toml, the requirements files at the top, in `requirements/` and in
  the docs directory's usual places, and the lock files (uv, Poetry, PDM, Pipenv).
Each is read as every config is (a regular file, at most MAX_BYTES); one that cannot be read is
left out. Read once per repository and run.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from ...files.read import Unreadable, read_bytes

MAX_BYTES = 512 * 1024
BUILD_FILES = ("Makefile", "makefile", "justfile", "noxfile.py", "tox.ini", ".readthedocs.yaml", ".readthedocs.yml")
WORKFLOWS = ".github/workflows"
DEPENDENCY_FILES = ("pyproject.toml", "uv.lock", "poetry.lock", "pdm.lock", "Pipfile", "Pipfile.lock", "setup.cfg")
REQUIREMENTS_DIRS = (".", "requirements", "docs", "doc", "docs/requirements")


@functools.lru_cache(maxsize=16)
def build_step_texts(root: Path) -> tuple[tuple[str, str], ...]:
    """(path as shown, text) of the build step files of the repository at `root`."""
    candidates = [root / name for name in BUILD_FILES]
    workflows = root / WORKFLOWS
    if workflows.is_dir():
        candidates += sorted(p for p in workflows.iterdir() if p.suffix in (".yml", ".yaml"))
    return _texts(root, candidates)


@functools.lru_cache(maxsize=16)
def dependency_texts(root: Path) -> tuple[tuple[str, str], ...]:
    """(path as shown, text) of the dependency files of the repository at `root`."""
    candidates = [root / name for name in DEPENDENCY_FILES]
    for directory in REQUIREMENTS_DIRS:
        folder = root / directory
        if folder.is_dir():
            candidates += sorted(p for p in folder.iterdir() if p.name.startswith("requirements") and p.suffix in (".txt", ".in"))
    return _texts(root, candidates)


_MKDOCS_WITH_CONFIG = re.compile(r"\b(?:mkdocs|properdocs|zensical)\s+(?:build|serve|gh-deploy)\b[^\n]*?(?:-f|--config-file)[ =]+([\w./\-]+)")
_LEVELS_UP = 4  # how far above a config its repository's build files are looked for


def build_directory(config_file: Path) -> Path | None:
    """Where the build runs, when a build step names the config from a directory above its own
    (`mkdocs build -f hack/api-docs/mkdocs.yml` in the repository's Makefile or workflow): the
    directory relative paths of the build (a macros `include_dir`, snippets' `base_path`, and
    `docs_dir: ../../docs`) are taken from. None when no step says so."""
    config = config_file.resolve()
    directory = config.parent.parent
    for _ in range(_LEVELS_UP):
        for _, text in build_step_texts(directory):
            for match in _MKDOCS_WITH_CONFIG.finditer(text):
                if (directory / match.group(1)).resolve() == config:
                    return directory
        if (directory / ".git").exists() or directory.parent == directory:
            return None
        directory = directory.parent
    return None


def _texts(root: Path, paths: list[Path]) -> tuple[tuple[str, str], ...]:
    found = []
    for path in paths:
        try:
            text = read_bytes(path, limit=MAX_BYTES).decode("utf-8", errors="replace")
        except Unreadable:
            continue
        found.append((path.relative_to(root).as_posix(), text))
    return tuple(found)
