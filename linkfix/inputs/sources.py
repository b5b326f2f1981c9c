"""Find the inputs: markdown trees, built HTML sites, MkDocs projects, explicit file lists.

The result is a `Project`: which files to read, which directory is the site root for
root-relative links, and how markdown sources map to built URLs (MkDocs rules).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Config
from ..errors import InputError
from .mkdocs import MkDocsProject, read_mkdocs
from .read import Unreadable, display_path, read_bytes

if TYPE_CHECKING:
    import pathspec

log = logging.getLogger(__name__)

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
DOCUMENT_SUFFIXES = MARKDOWN_SUFFIXES | HTML_SUFFIXES
# Directories that never hold documentation sources of the project itself.
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".tox", ".nox", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".linkfix-cache", "site-packages", ".venv", "venv"}
)
GITIGNORE_BYTES = 1024 * 1024


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
    # Files are read only from under this directory (default: root), through no SKIP_DIRS
    # directory: a symlink in the docs cannot make linkfix read (and report) ../.git/config.
    boundary: Path | None = None

    def refusal(self, path: Path) -> str | None:
        """Why `path` must not be read, or None when it may be."""
        return outside_reason(path, self.boundary or self.root)

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
    skipped: list[str] = []

    if len(paths) == 1 and paths[0].is_file() and paths[0].name in ("mkdocs.yml", "mkdocs.yaml"):
        mk = read_mkdocs(paths[0])
        root = (Path(config.path(config.root_dir)) if config.root_dir else mk.docs_dir).resolve()
        # What MkDocs itself builds from: the project directory (docs/index.md -> ../README.md
        # is a common idiom), or wider when docs_dir or root_dir is set outside it.
        boundary = Path(os.path.commonpath([mk.config_file.parent.resolve(), mk.docs_dir, root]))
        files = list(walk(mk.docs_dir, excluded, config.gitignore, suffixes=MARKDOWN_SUFFIXES, boundary=boundary, skipped=skipped))
        return _finish(Project(files=files, root=root, markdown=True, mkdocs=mk, errors=skipped, boundary=boundary))

    if config.root_dir:
        root = config.path(config.root_dir)
    elif len(paths) == 1 and paths[0].is_dir():
        root = paths[0]
    else:
        # From the paths as given: a symlink among them must not move the root to its target.
        root = Path(os.path.commonpath([os.path.abspath(p if p.is_dir() else p.parent) for p in paths]))
    if not root.is_dir():
        raise InputError(f"root_dir: not a directory: {root}")
    # Reads stay under the root and the directories named on the command line; a file named
    # there (pre-commit passes every changed file) is read only if its real path is inside too.
    named = [os.path.realpath(p if p.is_dir() else p.parent) for p in paths]
    boundary = Path(os.path.commonpath([os.path.realpath(root), *named]))
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(walk(p, excluded, config.gitignore, suffixes=MARKDOWN_SUFFIXES | HTML_SUFFIXES,
                              boundary=boundary, skipped=skipped))
        elif not _is_excluded(p, excluded):
            reason = outside_reason(p, boundary)
            if reason is None:
                files.append(p)
            else:
                skipped.append(f"{display_path(p)}: {reason}")
                log.warning("skipping %s: %s", p, reason)
    markdown_count = sum(f.suffix.lower() in MARKDOWN_SUFFIXES for f in files)
    markdown = markdown_count * 2 >= len(files) if files else True
    return _finish(Project(files=files, root=root.resolve(), markdown=markdown, errors=skipped, boundary=boundary))


def outside_reason(path: Path, boundary: Path) -> str | None:
    """Why reading `path` would leave the project (`boundary`, resolved), or None.

    The real path decides, so a symlink anywhere on the way counts; directories the walk never
    enters (.git, node_modules, virtualenvs, ...) count as outside too."""
    real = Path(os.path.realpath(path))
    try:
        inside = real.relative_to(boundary).parts
    except ValueError:
        return "symlink leads outside the project root; not read"
    hidden = next((part for part in inside[:-1] if part in SKIP_DIRS), None)
    if hidden is not None:
        return f"symlink leads outside the project's files (into {hidden}); not read"
    return None


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
    boundary: Path | None = None,
    skipped: list[str] | None = None,
) -> Iterator[Path]:
    """Files under `top` with one of `suffixes`, skipping tool/VCS/virtualenv directories,
    `exclude_path` matches and (by default) what .gitignore files say. With a `boundary`,
    symlinks that lead out of it are not followed; they are named in `skipped`, with why."""
    ignores: list[tuple[Path, pathspec.PathSpec]] = []
    if use_gitignore:
        ignores = _gitignores_above(top)
    seen: set[tuple[int, int]] = set()  # (device, inode) of visited dirs: symlink loops end here
    walker = _Walker(excluded, use_gitignore, suffixes, boundary, skipped if skipped is not None else [], seen)
    yield from walker.walk(top, ignores)


@dataclass(slots=True)
class _Walker:
    excluded: list[re.Pattern[str]]
    use_gitignore: bool
    suffixes: frozenset[str]
    boundary: Path | None
    skipped: list[str]
    seen: set[tuple[int, int]]

    def walk(self, directory: Path, ignores: list) -> Iterator[Path]:
        try:
            st = directory.stat()
        except OSError as exc:
            log.warning("cannot read directory %s: %s", directory, exc.strerror)
            return
        if (st.st_dev, st.st_ino) in self.seen:
            log.warning("skipping %s: directory already visited (symlink loop?)", directory)
            return
        self.seen.add((st.st_dev, st.st_ino))
        if self.use_gitignore:
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
            if is_dir:
                if skipped_directory(path):
                    continue
            elif path.suffix.lower() not in self.suffixes:
                continue
            if _is_excluded(path, self.excluded) or _ignored(path, is_dir, ignores):
                continue
            if self.boundary is not None and entry.is_symlink():
                reason = outside_reason(path, self.boundary)
                if reason is not None:
                    self.skipped.append(f"{display_path(path)}: {reason}")
                    log.warning("skipping %s: %s", path, reason)
                    continue
            if is_dir:
                yield from self.walk(path, ignores)
            else:
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
    if not path.exists():
        return None
    try:
        lines = read_bytes(path, limit=GITIGNORE_BYTES).decode("utf-8", errors="replace").splitlines()
    except Unreadable as exc:
        log.warning("ignoring %s: %s", path, exc)
        return None
    import pathspec  # here, not at start-up: only a walk over a directory needs it

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
