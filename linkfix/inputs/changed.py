"""`--changed-since REF`: which files and lines a pull request touched, from `git diff`.

A PR should be judged on what it changed, not on the rot it inherited. So a file changed since
REF is checked, and for a file that existed at REF only the links on added or modified lines
are. The diff is `git diff --unified=0 --no-renames REF` against the working tree (so staged and
unstaged edits count), plus untracked files (new pages not yet added count as wholly new).
Renames are a delete plus an add on purpose: a moved page's relative links may all have broken.

A reference-style link is judged by its definition line (that is where its span points), so
using an old `[label]` on a new line is not re-checked.

A change that deletes a file (or renames one away) breaks the links *to* it, which live in files
the change did not touch: the most common way docs links break. So the deleted files are part
of the change too (`deleted`): every link of the inputs whose target is one of them is checked,
wherever it is written. `staged` is the same for the index (a pre-commit hook: the commit being
made), with the files pre-commit passes as the changed ones.
"""

from __future__ import annotations

import logging
import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import InputError
from ..model import Document
from .git import git_command, git_environment

log = logging.getLogger(__name__)

#: Seconds a git command may take before we give up (a huge repo, a stuck credential helper).
GIT_TIMEOUT = 120.0

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
# Options that make the output independent of the user's git config (prefixes, colour, drivers).
_DIFF_OPTIONS = (
    "--unified=0", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv",
    "--src-prefix=a/", "--dst-prefix=b/", "--diff-filter=d",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Changes:
    """Changed files by absolute posix path -> changed line numbers (None: the whole file)."""

    ref: str
    files: Mapping[str, frozenset[int] | None]
    deleted: frozenset[str] = frozenset()  # absolute posix paths the change deletes or renames away

    def changed(self, path: Path) -> bool:
        return _key(path) in self.files

    def covers(self, path: Path, line: int) -> bool:
        """True when `line` (1-based) of `path` was added or modified since the ref."""
        key = _key(path)
        if key not in self.files:
            return False
        lines = self.files[key]
        return lines is None or line in lines

    def select_files(self, paths: Iterable[Path]) -> list[Path]:
        return [p for p in paths if self.changed(p)]

    def filter_documents(self, documents: Iterable[tuple[str, Document]], root: Path) -> Iterator[tuple[str, Document]]:
        """Each document keeping only its links on changed lines (documents keyed by the
        root-relative path, or an absolute one for files outside the root, as the runner does).
        Lazy, like the runner's extraction."""
        for rel, doc in documents:
            path = Path(rel) if Path(rel).is_absolute() else root / rel
            links = tuple(link for link in doc.links if self.covers(path, link.span.line))
            yield rel, replace(doc, links=links)


def _key(path: Path) -> str:
    return path.resolve().as_posix()


def parse_diff(text: str) -> dict[str, frozenset[int]]:
    """Added/modified line numbers per new-side path, from `git diff --unified=0` output.

    Paths are as git prints them (repo-relative, C-quoted when unusual). A file whose diff has
    no hunk (mode change, binary) maps to an empty set: changed, but no line to check.
    """
    files: dict[str, set[int]] = {}
    current: set[int] | None = None
    for line in text.splitlines():
        if line.startswith("diff --git "):
            current = None
        elif line.startswith("+++ "):
            target = line[4:]
            if target == "/dev/null":
                current = None  # deleted: nothing left to check
                continue
            path = _unquote(target)
            path = path[2:] if path.startswith("b/") else path
            if not path:
                current = None
                continue
            current = files.setdefault(path, set())
        elif current is not None and line.startswith("@@"):
            m = _HUNK.match(line)
            if m is None:
                continue
            start = int(m.group(1))
            count = int(m.group(2)) if m.group(2) is not None else 1
            current.update(range(start, start + count))
    return {path: frozenset(lines) for path, lines in files.items()}


_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def _unquote(path: str) -> str:
    """Undo git's C-style quoting of unusual paths ("a/t\\303\\251st.md" -> a/tést.md)."""
    path = path.rstrip("\t")  # git appends a tab after names that contain spaces
    if not (len(path) >= 2 and path[0] == '"' and path[-1] == '"'):
        return path
    body, out, i = path[1:-1], bytearray(), 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if re.fullmatch(r"[0-7]{3}", body[i + 1:i + 4]):
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out.extend(_ESCAPES.get(nxt, nxt).encode())
            i += 2
            continue
        out.extend(ch.encode())
        i += 1
    return out.decode("utf-8", errors="replace")


def _git(args: Sequence[str], cwd: Path) -> str:
    try:
        done = subprocess.run(
            [*git_command(directory=cwd), "-c", "core.quotePath=true", *args],
            capture_output=True, timeout=GIT_TIMEOUT, check=False, stdin=subprocess.DEVNULL, env=git_environment(),
        )
    except FileNotFoundError as exc:
        raise InputError("--changed-since needs git, which is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise InputError(f"--changed-since: 'git {' '.join(args[:2])}' took longer than {GIT_TIMEOUT:.0f} s") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise InputError(f"--changed-since: git {args[0]} failed: {message[-1] if message else done.returncode}")
    return done.stdout.decode("utf-8", errors="replace")


def _deleted(top: Path, args: Sequence[str]) -> frozenset[str]:
    """The files `git diff ARGS` shows deleted (a rename is a deletion plus an addition)."""
    names = _git(["diff", "--name-only", "--no-renames", "--diff-filter=D", "-z", *args, "--"], top)
    return frozenset((top / path).resolve().as_posix() for path in filter(None, names.split("\0")))


def staged(paths: Sequence[str], *, cwd: Path | None = None) -> Changes:
    """The commit being made: the staged files pre-commit passes (`paths`, wholly changed) and
    the files the index deletes or renames away, against HEAD."""
    cwd = cwd or Path.cwd()
    top = Path(_git(["rev-parse", "--show-toplevel"], cwd).strip())
    try:
        _git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], cwd)
    except InputError:  # the first commit: nothing can be deleted yet
        deleted: frozenset[str] = frozenset()
    else:
        deleted = _deleted(top, ["--cached", "HEAD"])
    files: dict[str, frozenset[int] | None] = {Path(path).resolve().as_posix(): None for path in paths}
    return Changes(ref="the index", files=files, deleted=deleted)


def changed_since(ref: str, *, cwd: Path | None = None) -> Changes:
    """Files and lines changed between `ref` and the working tree of the repo at `cwd`."""
    cwd = cwd or Path.cwd()
    if not ref or ref.startswith("-"):
        raise InputError(f"--changed-since: not a git revision: {ref!r}")
    top = Path(_git(["rev-parse", "--show-toplevel"], cwd).strip())
    # Verify first, so a typo gets a clear message rather than git diff's path ambiguity error.
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd)
    except InputError as exc:
        raise InputError(f"--changed-since: unknown git revision {ref!r} (in a shallow CI clone, fetch it first)") from exc
    diff = _git(["diff", *_DIFF_OPTIONS, ref, "--"], top)
    files: dict[str, frozenset[int] | None] = {
        (top / path).resolve().as_posix(): lines for path, lines in parse_diff(diff).items()
    }
    untracked = _git(["ls-files", "--others", "--exclude-standard", "-z"], top)
    for path in filter(None, untracked.split("\0")):
        files[(top / path).resolve().as_posix()] = None
    deleted = _deleted(top, [ref])
    log.info("--changed-since %s: %d changed file(s), %d deleted", ref, len(files), len(deleted))
    return Changes(ref=ref, files=files, deleted=deleted)
