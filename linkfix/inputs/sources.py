"""Find the inputs: markdown trees, built HTML sites, MkDocs projects, explicit file lists.

The result is a `Project`: which files to read, which directory is the site root for
root-relative links, and how markdown sources map to built URLs (MkDocs rules).
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pathspec
from ..config import Config
from ..errors import InputError
from .mkdocs import MkDocsProject, read_mkdocs

log = logging.getLogger(__name__)

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
DOCUMENT_SUFFIXES = MARKDOWN_SUFFIXES | HTML_SUFFIXES
# Directories that never hold documentation sources of the project itself.
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".tox", ".nox", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".linkfix-cache", "site-packages", ".venv", "venv"}
)


def skipped_directory(directory: Path) -> bool:
    """A tool, VCS or virtualenv directory: never walked for documentation."""
    return directory.name in SKIP_DIRS or (directory / "pyvenv.cfg").exists()


def not_documentation(path: Path, root: Path) -> str:
    """Why `path`, a file under `root`, is not one linkfix reads as documentation when it walks
    `root` ('' when it is one): the rule `fix` applies before it edits a file."""
    if path.suffix.lower() not in DOCUMENT_SUFFIXES:
        return f"not a documentation file ({', '.join(sorted(DOCUMENT_SUFFIXES))})"
    try:
        parts = path.relative_to(root).parts[:-1]
    except ValueError:
        return f"outside {root}"
    directory = root
    for part in parts:
        directory = directory / part
        if skipped_directory(directory):
            return f"inside {directory.relative_to(root).as_posix()}/, which linkfix never reads as documentation"
    return ""


@dataclass(slots=True, kw_only=True)
class Project:
    """What to read and how to resolve what is read."""

    files: list[Path]  # every file to extract links from
    root: Path  # site root: root-relative links resolve here; nothing outside is followed
    markdown: bool  # sources are markdown (links to .md files) rather than built HTML
    mkdocs: MkDocsProject | None = None
    site_files: frozenset[str] = frozenset()  # every file under root, root-relative posix paths
    site_dirs: frozenset[str] = frozenset()  # every directory under root, root-relative
    errors: list[str] = field(default_factory=list)  # inputs skipped, with the reason

    def relative(self, path: Path) -> str | None:
        """Root-relative posix path of a file, or None when it is outside the root."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None


def collect(inputs: list[str], config: Config) -> Project:
    """Turn command-line inputs into a Project, or raise InputError with a clear message."""
    if not inputs:
        raise InputError("nothing to check: give a directory, files, or a mkdocs.yml")
    paths = [Path(i) for i in inputs]
    for p in paths:
        if not p.exists() and not p.is_symlink():
            raise InputError(f"no such file or directory: {p}")
    excluded = [re.compile(p) for p in config.exclude_path]

    if len(paths) == 1 and paths[0].is_file() and paths[0].name in ("mkdocs.yml", "mkdocs.yaml"):
        mk = read_mkdocs(paths[0])
        files = list(walk(mk.docs_dir, excluded, config.gitignore, suffixes=MARKDOWN_SUFFIXES))
        root = Path(config.path(config.root_dir)) if config.root_dir else mk.docs_dir
        return _finish(Project(files=files, root=root.resolve(), markdown=True, mkdocs=mk))

    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(walk(p, excluded, config.gitignore, suffixes=MARKDOWN_SUFFIXES | HTML_SUFFIXES))
        elif not _is_excluded(p, excluded):
            files.append(p)
    markdown_count = sum(f.suffix.lower() in MARKDOWN_SUFFIXES for f in files)
    markdown = markdown_count * 2 >= len(files) if files else True
    if config.root_dir:
        root = config.path(config.root_dir)
    elif len(paths) == 1 and paths[0].is_dir():
        root = paths[0]
    else:
        root = Path(os.path.commonpath([str(p.resolve().parent if p.is_file() else p.resolve()) for p in paths]))
    if not root.is_dir():
        raise InputError(f"root_dir: not a directory: {root}")
    return _finish(Project(files=files, root=root.resolve(), markdown=markdown))


def _finish(project: Project) -> Project:
    """Index every file and directory under the root once, so resolution never stats."""
    files: set[str] = set()
    dirs: set[str] = {""}
    root = str(project.root)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        rel = os.path.relpath(dirpath, root)
        rel = "" if rel == "." else rel.replace(os.sep, "/")
        prefix = f"{rel}/" if rel else ""
        for d in dirnames:
            dirs.add(prefix + d)
        for f in filenames:
            files.add(prefix + f)
    project.site_files = frozenset(files)
    project.site_dirs = frozenset(dirs)
    return project


def _is_excluded(path: Path, excluded: list[re.Pattern[str]]) -> bool:
    text = path.as_posix()
    return any(p.search(text) for p in excluded)


def walk(
    top: Path,
    excluded: list[re.Pattern[str]],
    use_gitignore: bool,
    *,
    suffixes: frozenset[str],
) -> Iterator[Path]:
    """Files under `top` with one of `suffixes`, skipping tool/VCS/virtualenv directories,
    `exclude_path` matches and (by default) what .gitignore files say."""
    ignores: list[tuple[Path, pathspec.PathSpec]] = []
    if use_gitignore:
        ignores = _gitignores_above(top)
    seen: set[tuple[int, int]] = set()  # (device, inode) of visited dirs: symlink loops end here
    yield from _walk(top, excluded, ignores, use_gitignore, suffixes, seen)


def _walk(directory, excluded, ignores, use_gitignore, suffixes, seen) -> Iterator[Path]:
    try:
        st = directory.stat()
    except OSError as exc:
        log.warning("cannot read directory %s: %s", directory, exc.strerror)
        return
    if (st.st_dev, st.st_ino) in seen:
        log.warning("skipping %s: directory already visited (symlink loop?)", directory)
        return
    seen.add((st.st_dev, st.st_ino))
    if use_gitignore:
        spec = _read_gitignore(directory / ".gitignore")
        if spec is not None:
            ignores = ignores + [(directory, spec)]
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        log.warning("cannot list directory %s: %s", directory, exc.strerror)
        return
    for entry in entries:
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if is_dir and skipped_directory(path):
            continue
        if _is_excluded(path, excluded) or _ignored(path, is_dir, ignores):
            continue
        if is_dir:
            yield from _walk(path, excluded, ignores, use_gitignore, suffixes, seen)
        elif path.suffix.lower() in suffixes:
            yield path


def _gitignores_above(top: Path) -> list[tuple[Path, pathspec.PathSpec]]:
    """The .gitignore files of the enclosing git work tree, above `top`."""
    found = []
    current = top.resolve().parent
    while True:
        spec = _read_gitignore(current / ".gitignore")
        if spec is not None:
            found.append((current, spec))
        if (current / ".git").exists() or current.parent == current:
            break
        current = current.parent
    found.reverse()
    return found


def _read_gitignore(path: Path) -> pathspec.PathSpec | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _ignored(path: Path, is_dir: bool, ignores: list[tuple[Path, pathspec.PathSpec]]) -> bool:
    resolved = path.absolute()
    for base, spec in ignores:
        try:
            rel = resolved.relative_to(base.absolute()).as_posix()
        except ValueError:
            continue
        if spec.match_file(rel + "/" if is_dir else rel):
            return True
    return False
