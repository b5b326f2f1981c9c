""".gitignore files, as the directory walk applies them.

A directory named on the command line (or a MkDocs docs_dir) is the user's word: the .gitignore
files above it still apply to what is inside it, except the patterns that ignore the directory
itself or one of its parents. `linkfix check site/` checks the built site that the repository's
`.gitignore` lists (`site/`), and so does `cd site && linkfix check .`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from .read import Unreadable, read_bytes

if TYPE_CHECKING:
    import pathspec

log = logging.getLogger(__name__)

GITIGNORE_BYTES = 1024 * 1024
Ignores = list[tuple[Path, "pathspec.GitIgnoreSpec"]]


def gitignores_above(top: Path) -> Ignores:
    """The .gitignore files of the enclosing git work tree above `top`, each without the
    patterns that would ignore `top` or a directory between it and the .gitignore."""
    found: Ignores = []
    top = top.resolve()
    current = top.parent
    while True:
        spec = read_gitignore(current / ".gitignore")
        if spec is not None:
            found.append((current, _not_hiding(spec, current, top)))
        if (current / ".git").exists() or current.parent == current:
            break
        current = current.parent
    found.reverse()
    return found


def _not_hiding(spec: pathspec.GitIgnoreSpec, base: Path, top: Path) -> pathspec.GitIgnoreSpec:
    """`spec` less its ignoring patterns that match `top` or a directory on the way to it."""
    try:
        parts = top.relative_to(base).parts
    except ValueError:
        return spec
    on_the_way = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    hiding = [p for p in spec.patterns if p.include and any(p.match_file(d + "/") or p.match_file(d) for d in on_the_way)]
    if not hiding:
        return spec
    import pathspec

    log.info("%s/.gitignore ignores %s, which was named to be checked: those patterns do not apply to it",
             base, top)
    return pathspec.GitIgnoreSpec([p for p in spec.patterns if p not in hiding])


def gitignore_lines(path: Path) -> list[str]:
    """The lines of the .gitignore file `path` ([] when there is none); Unreadable when it cannot be read."""
    if not path.exists():
        return []
    return read_bytes(path, limit=GITIGNORE_BYTES).decode("utf-8", errors="replace").splitlines()


def read_gitignore(path: Path) -> pathspec.GitIgnoreSpec | None:
    if not path.exists():
        return None
    try:
        lines = gitignore_lines(path)
    except Unreadable as exc:
        log.warning("ignoring %s: %s", path, exc)
        return None
    import pathspec  # here, not at start-up: only a walk over a directory needs it

    return pathspec.GitIgnoreSpec.from_lines(lines)


def ignored(path: Path, is_dir: bool, ignores: Ignores) -> bool:
    resolved = path.absolute()
    for base, spec in ignores:
        try:
            rel = resolved.relative_to(base.absolute()).as_posix()
        except ValueError:
            continue
        if spec.match_file(rel + "/" if is_dir else rel):
            return True
    return False
