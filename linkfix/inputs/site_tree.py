"""Every file and directory under a site root, indexed once, so that resolving a link never stats.

Beside the names, the two kinds of symlink a link to must not pass as a file that exists:
- one that leads out of the project (its target's existence and ids are no business of the
  report: `outside`);
- one that leads nowhere (`dead`): its target does not exist, or it is a loop (`a -> b -> a`,
  `a -> a`). A web server answers 404 for both, and a clone of the repository has no file
  there either; the reason is kept for the report.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SymlinkRefusal = Callable[[Path], str | None]  # why a symlink leads out of the project, or None


@dataclass(frozen=True, slots=True)
class SiteTree:
    files: frozenset[str]  # root-relative posix paths of every file (a symlink that is no directory counts as one)
    dirs: frozenset[str]  # root-relative directories, "" the root itself
    outside: frozenset[str]  # files that are symlinks leading out of the project
    dead: dict[str, str]  # files that are symlinks leading nowhere -> why, in words


def index_tree(root: Path, skip_dirs: frozenset[str], outside_reason: SymlinkRefusal) -> SiteTree:
    """The tree under `root` in os.walk's order of business (a symlinked directory is one
    name, not entered), with each entry's kind at hand; directories named in `skip_dirs` left out."""
    files: set[str] = set()
    dirs: set[str] = {""}
    outside: set[str] = set()
    dead: dict[str, str] = {}
    pending = [(str(root), "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:  # a symlink loop: ELOOP from stat
                is_dir = False
            if is_dir:
                if entry.name not in skip_dirs:
                    dirs.add(prefix + entry.name)
                    if not entry.is_symlink():
                        pending.append((entry.path, f"{prefix}{entry.name}/"))
                continue
            name = prefix + entry.name
            files.add(name)
            if entry.is_symlink():
                if outside_reason(Path(entry.path)) is not None:  # first: what lies outside is not ours to tell
                    outside.add(name)
                elif why := dead_symlink(entry.path):
                    dead[name] = why
    return SiteTree(frozenset(files), frozenset(dirs), frozenset(outside), dead)


def dead_symlink(path: str) -> str:
    """Why the symlink at `path` leads nowhere ('' when its target exists)."""
    try:
        os.stat(path)
    except OSError as exc:
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        if exc.errno == errno.ELOOP:
            return f"a symlink loop ({os.path.basename(path)} -> {target} leads back to itself)"
        return f"a symlink to {target}, which does not exist"
    return ""
