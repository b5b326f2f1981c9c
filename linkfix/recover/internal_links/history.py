"""Where did a page go? The renames in the sources' own git history.

`read_renames` asks git (at the edge: one `git log`, bounded by a commit count and a time
budget) for the renames of files under the project root; `Renames.follow` walks a missing
path through them, rename after rename, to the name it has now. Anything git cannot answer
(no git, not a repository, a shallow or damaged clone, a timeout) gives fewer renames, never
an error: suggestions are a bonus, not a requirement of the check.
"""

from __future__ import annotations

import logging
import re
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...inputs.git import git_command, git_environment

log = logging.getLogger(__name__)

#: Commits (that renamed something under the root) read at most, newest first.
MAX_RENAME_COMMITS = 5000
#: Seconds one `git` call may take; what it printed by then is used.
GIT_SECONDS = 10.0

_HEADER = re.compile(r"^\x01([0-9a-f]{40}) (\d{4}-\d\d-\d\d)$")
_RENAME = re.compile(r"^R(\d{0,3})$")
#: Commit id of renames staged in the index (`git mv` not committed yet).
STAGED = "staged"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rename:
    """One file renamed by one commit; paths relative to the project root."""

    old: str
    new: str
    commit: str  # full id, or STAGED
    date: str  # YYYY-MM-DD ('' when staged)
    similarity: int  # git's rename score, 0-100 (100: the content did not change)
    age: int  # 0 for the newest rename read, growing into the past

    def describe(self, prefix: str = "") -> str:
        """'renamed in commit abc1234 (2024-03-01): docs/a.md → docs/b.md'."""
        when = "renamed in the index (git mv, not committed)" if self.commit == STAGED else f"renamed in commit {self.commit[:7]} ({self.date})"
        return f"{when}: {prefix}{self.old} → {prefix}{self.new}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Trail:
    """A missing path followed through its renames to a name it has now."""

    renames: tuple[Rename, ...]  # oldest step first
    rivals: int = 0  # other names the same path was renamed to at other times

    @property
    def end(self) -> str:
        return self.renames[-1].new


class Renames:
    """Renames of files under the project root, newest first (`Rename.age`)."""

    def __init__(self, renames: Iterable[Rename] = (), *, prefix: str = "") -> None:
        self.prefix = prefix  # the root's path in the repository ('docs/'), for messages
        self._by_old: dict[str, list[Rename]] = {}
        for rename in sorted(renames, key=lambda r: r.age):
            self._by_old.setdefault(rename.old, []).append(rename)

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_old.values())

    def follow(self, path: str, exists: Callable[[str], bool], *, max_steps: int = 20) -> Trail | None:
        """The renames that lead from `path` to a file that `exists` now, or None.

        The latest rename of `path` is taken (a name reused and renamed again means its latest
        life); each next step is a later rename of the new name. A chain that ends at a name that
        no longer exists (deleted since) leads nowhere."""
        taken = self._by_old.get(path)
        if not taken:
            return None
        first = taken[0]
        rivals = len({r.new for r in taken} - {first.new})
        steps = [first]
        while not exists(steps[-1].new) and len(steps) < max_steps:
            later = [r for r in self._by_old.get(steps[-1].new, ()) if r.age < steps[-1].age]
            if not later:
                return None
            steps.append(later[-1])  # the next rename after this one: the oldest of the later ones
        if not exists(steps[-1].new):
            return None
        return Trail(renames=tuple(steps), rivals=rivals)


def read_renames(root: Path, *, revision: str = "HEAD", git_dir: Path | None = None, prefix: str | None = None,
                 max_commits: int = MAX_RENAME_COMMITS, seconds: float = GIT_SECONDS) -> Renames:
    """The renames git knows under `root`: committed ones reachable from `revision`, and (for
    a work tree) the ones staged with `git mv`.

    `git_dir` and `prefix` (the root's path inside the repository, 'docs/') read a bare
    repository instead of the work tree that holds `root` (the calibration benchmark does)."""
    base = git_command(git_dir=git_dir) if git_dir is not None else git_command(directory=root)
    if prefix is None:
        shown = git_output([*base, "rev-parse", "--show-prefix"], seconds)
        if shown is None:
            return Renames()
        prefix = shown.strip()
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    spec = [f":(top){prefix}" if prefix else ":(top)"]
    logged, whole = _git_partial([*base, "log", "-z", "-M", "--diff-filter=R", "--name-status", "--format=%x01%H %cs",
                                  f"-n{max_commits}", revision, "--", *spec], seconds)
    renames = list(parse_log(logged, prefix, first_age=1, whole=whole))
    if git_dir is None:
        staged = git_output([*base, "diff", "-z", "--cached", "-M", "--diff-filter=R", "--name-status", "--", *spec], seconds)
        renames += _parse_renames((staged or "").split("\0"), prefix, commit=STAGED, date="", age=0)
    return Renames(renames, prefix=prefix)


def parse_log(text: str, prefix: str, *, first_age: int = 0, whole: bool = True) -> Iterable[Rename]:
    """Renames from `git log -z --name-status --format=%x01%H %cs` output, newest first.
    Output that stopped early (`whole` false) may end inside a path: its last commit is left out."""
    tokens = [t.lstrip("\n") for t in text.split("\0")]
    commit = date = ""
    age = first_age - 1
    chunk: list[str] = []
    for token in tokens:
        header = _HEADER.match(token)
        if header:
            if commit:
                yield from _parse_renames(chunk, prefix, commit=commit, date=date, age=age)
            commit, date = header.groups()
            age += 1
            chunk = []
        else:
            chunk.append(token)
    if commit and whole:
        yield from _parse_renames(chunk, prefix, commit=commit, date=date, age=age)


def _parse_renames(tokens: Sequence[str], prefix: str, *, commit: str, date: str, age: int) -> list[Rename]:
    """Renames from `--name-status -z` tokens ('R095', old, new, ...); paths outside the
    root, or an entry cut short (output stopped early), are left out."""
    found = []
    i = 0
    while i + 2 < len(tokens):
        status = _RENAME.match(tokens[i])
        if status is None:
            i += 1
            continue
        old, new = tokens[i + 1], tokens[i + 2]
        i += 3
        if old.startswith(prefix) and new.startswith(prefix):
            score = int(status.group(1)) if status.group(1) else 100
            found.append(Rename(old=old[len(prefix):], new=new[len(prefix):], commit=commit, date=date,
                                similarity=score, age=age))
    return found


def git_output(command: list[str], seconds: float) -> str | None:
    """stdout of a git command, or None when git is missing, fails or runs out of time."""
    text, whole = _git_partial(command, seconds)
    return text if whole else None


def git_blobs(base: list[str], specs: list[str], seconds: float) -> list[str | None]:
    """The texts of `specs` ('commit:path') read by one `git cat-file --batch`, None for each
    one git does not have (or all, when git fails)."""
    if not specs:
        return []
    try:
        done = subprocess.run([*base, "cat-file", "--batch"], input="".join(f"{s}\n" for s in specs).encode(),
                              capture_output=True, timeout=seconds, env=git_environment())
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.debug("git cat-file not run: %s", exc)
        return [None] * len(specs)
    out, at = done.stdout, 0
    texts: list[str | None] = []
    for _ in specs:
        end = out.find(b"\n", at)
        header = out[at:end].split() if end >= 0 else []
        if len(header) != 3 or not header[2].isdigit():  # "<spec> missing", or output cut short
            texts.append(None)
            at = end + 1 if end >= 0 else len(out)
            continue
        size = int(header[2])
        texts.append(_decode(out[end + 1:end + 1 + size]) if header[1] == b"blob" else None)
        at = end + 1 + size + 1
    return texts


def _git_partial(command: list[str], seconds: float) -> tuple[str, bool]:
    """(stdout, whether the command finished well). What a command printed before it failed
    or ran out of time is kept: a long history, a clone with missing objects."""
    try:
        done = subprocess.run(command, capture_output=True, timeout=seconds, stdin=subprocess.DEVNULL, env=git_environment())
    except subprocess.TimeoutExpired as exc:
        log.info("git took more than %.0f s; using what it printed by then", seconds)
        return _decode(exc.stdout), False
    except OSError as exc:
        log.debug("git not run: %s", exc)
        return "", False
    if done.returncode != 0:
        log.debug("%s: exit %s: %s", " ".join(command[:5]), done.returncode, _decode(done.stderr).strip()[:200])
        return _decode(done.stdout), False
    return _decode(done.stdout), True


def _decode(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "surrogateescape")

