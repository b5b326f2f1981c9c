"""Walking a tree for the documents linkfix reads: which suffixes are documentation, which
directories are never documentation (tools, VCS, virtualenvs), what .gitignore and exclude_path
leave out, symlinks that lead out of the project, and why a walk that found nothing found nothing."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..config.patterns import RepositoryPattern
from ..files.gitignore import Ignores, gitignores_above, ignored, read_gitignore
from ..files.read import display_path
from .site_tree import dead_symlink

log = logging.getLogger(__name__)

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
DOCUMENT_SUFFIXES = MARKDOWN_SUFFIXES | HTML_SUFFIXES
RST_SUFFIXES = frozenset({".rst"})  # not read: said (a Sphinx tree's built HTML is what can be checked)
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


def say_unread_rst(top: Path, excluded: list[RepositoryPattern], use_gitignore: bool) -> None:
    """A warning when `top` holds reStructuredText pages (a Sphinx tree beside a README.md):
    they are not read, and passing on the markdown alone must not look like a checked site."""
    hint = unread_rst(top, excluded, use_gitignore)
    if hint:
        log.warning("%s", hint)


def unread_rst(top: Path, excluded: list[RepositoryPattern], use_gitignore: bool) -> str:
    """'N reStructuredText pages under top/ were not read ...' ('' when there are none)."""
    pages = list(walk(top, excluded, use_gitignore, suffixes=RST_SUFFIXES))
    if not pages:
        return ""
    sphinx = next((p.parent for p in pages if (p.parent / "conf.py").is_file()), None)
    source = display_path(sphinx) if sphinx is not None else display_path(top)
    built = f"{source}/_build/html"
    return (f"{len(pages)} reStructuredText page{'s' if len(pages) != 1 else ''} under {display_path(top)}/ "
            f"{'were' if len(pages) != 1 else 'was'} not read (linkfix reads markdown and HTML){': a Sphinx project' if sphinx else ''}; "
            f"check its built HTML instead: sphinx-build {source} {built} && linkfix check {built}")


def nothing_read(top: Path, excluded: list[RepositoryPattern], use_gitignore: bool, suffixes: frozenset[str], *, what: str = "") -> str:
    """Why a walk of `top` found no document: what a walk without the filters finds, and
    which filter left it out (walked again: this is the error path only)."""
    kinds = "markdown" if suffixes == MARKDOWN_SUFFIXES else "markdown or HTML"
    where = f"{what}{display_path(top)}/"
    everything = list(walk(top, [], False, suffixes=suffixes))
    if not everything:
        rst = unread_rst(top, excluded, use_gitignore)
        return f"{where}: no {kinds} files to check ({', '.join(sorted(suffixes))})" + (f"; {rst}" if rst else "")
    count = f"none of the {len(everything)} {kinds} files"
    if use_gitignore and not list(walk(top, excluded, False, suffixes=suffixes)):
        return f"{where}: {count} were read: all match exclude_path ({', '.join(p.pattern for p in excluded)})"
    if use_gitignore and not list(walk(top, [], True, suffixes=suffixes)):
        return f"{where}: {count} were read: all are ignored by .gitignore (use --no-gitignore)"
    if use_gitignore:
        return f"{where}: {count} were read: they are ignored by .gitignore or match exclude_path (use --no-gitignore)"
    return f"{where}: {count} were read: all match exclude_path ({', '.join(p.pattern for p in excluded)})"


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


def is_excluded(path: Path, excluded: list[RepositoryPattern]) -> bool:
    text = path.as_posix()
    return any(p.matches(text, otherwise=False) for p in excluded)


def walk(
    top: Path,
    excluded: list[RepositoryPattern],
    use_gitignore: bool,
    *,
    suffixes: frozenset[str],
    boundary: Path | None = None,
    skipped: list[str] | None = None,
) -> Iterator[Path]:
    """Files under `top` with one of `suffixes`, skipping tool/VCS/virtualenv directories,
    `exclude_path` matches and (by default) what .gitignore files say. With a `boundary`,
    symlinks that lead out of it are not followed; they are named in `skipped`, with why."""
    ignores: Ignores = []
    if use_gitignore:
        ignores = gitignores_above(top)
    seen: set[tuple[int, int]] = set()  # (device, inode) of visited dirs: symlink loops end here
    walker = _Walker(excluded, use_gitignore, suffixes, boundary, skipped if skipped is not None else [], seen)
    yield from walker.walk(top, ignores)


@dataclass(slots=True)
class _Walker:
    excluded: list[RepositoryPattern]
    use_gitignore: bool
    suffixes: frozenset[str]
    boundary: Path | None
    skipped: list[str]
    seen: set[tuple[int, int]]

    def walk(self, directory: Path, ignores: Ignores) -> Iterator[Path]:
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
            spec = read_gitignore(directory / ".gitignore")
            if spec is not None:
                ignores = [*ignores, (directory, spec)]
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            log.warning("cannot list directory %s: %s", directory, exc.strerror)
            return
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir()
            except OSError:  # a symlink loop: said below, when it is named like a document
                is_dir = False
            if is_dir:
                if skipped_directory(path):
                    continue
            elif path.suffix.lower() not in self.suffixes:
                continue
            if is_excluded(path, self.excluded) or ignored(path, is_dir, ignores):
                continue
            if entry.is_symlink():
                reason = outside_reason(path, self.boundary) if self.boundary is not None else None
                if reason is None and not is_dir and (dead := dead_symlink(entry.path)):
                    reason = f"{dead}; not read"
                if reason is not None:
                    self.skipped.append(f"{display_path(path)}: {reason}")
                    log.warning("skipping %s: %s", path, reason)
                    continue
            if is_dir:
                yield from self.walk(path, ignores)
            else:
                yield path
