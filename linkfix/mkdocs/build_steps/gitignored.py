"""Directories of the docs that the repository's .gitignore lists: made when the site is built.

A project whose build script writes pages into the docs before MkDocs runs (an API reference
tree from its sources, `docs/api/`) keeps them out of the repository with its .gitignore:
`/docs/api/  # Generated at build time by scripts/docs/`. A source check sees no such files,
and links into them are not broken for a reader of the built site: they are `build-time-file`,
unverified, with what lists them. Only literal anchored patterns are taken (`/docs/api/`,
`docs/reference`), the ones that name a place; a glob (`*.md`) or a bare name (`api/`, which git
matches at any depth) says nothing about what a build makes.
"""

from __future__ import annotations

import os
from pathlib import Path

from ...files.containment import project_of
from ...files.gitignore import gitignore_lines
from ...files.read import Unreadable
from ..building import BuildMade, MaybeMade
from ..config.project import MkDocsProject

_GLOB = frozenset("*?[")


def ignored_docs_dirs(config_file: Path, docs_dir: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The docs-relative directories (`api/`) the .gitignore files from the project's root down
    to `docs_dir` list, and the lines that list them."""
    root = project_of(config_file)
    docs = Path(os.path.realpath(docs_dir))
    if not docs.is_relative_to(root):
        return (), ()
    prefixes: list[str] = []
    shown: list[str] = []
    directory = root
    for part in ("", *docs.relative_to(root).parts):
        directory = directory / part if part else directory
        for line in _lines(directory / ".gitignore"):
            place = _anchored(line, directory)
            if place is not None and place != docs and place.is_relative_to(docs):
                prefixes.append(place.relative_to(docs).as_posix() + "/")
                shown.append(line)
    return tuple(prefixes), tuple(shown)


def _lines(path: Path) -> list[str]:
    try:
        return [line.strip() for line in gitignore_lines(path)]
    except (Unreadable, OSError):  # the walk over the docs says so when it reads the same file
        return []


def _anchored(line: str, directory: Path) -> Path | None:
    """The place a literal anchored pattern names (relative to its .gitignore's `directory`)."""
    if not line or line.startswith(("#", "!")) or _GLOB & set(line) or "\\" in line:
        return None
    body = line.rstrip("/")
    if "/" not in body:  # a bare name: matched at any depth, names no place
        return None
    parts = [p for p in body.strip("/").split("/") if p]
    if not parts or any(p in (".", "..") for p in parts):
        return None
    return directory.joinpath(*parts)


def add_gitignored(mk: MkDocsProject, made: BuildMade) -> None:
    prefixes, lines = ignored_docs_dirs(mk.config_file, mk.docs_dir)
    if prefixes:
        made.maybe.append(MaybeMade(by=f"a build step MkDocs' config does not show (the repository's .gitignore lists {', '.join(lines[:3])})",
                                    why="a source check sees only what the repository keeps",
                                    hint="check the built site (linkfix check site/) or with the linkfix MkDocs plugin",
                                    static_prefixes=prefixes))
