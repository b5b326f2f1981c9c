"""Where did a heading go? The renamed-heading id, from the page's own git history.

A link to `page.md#faq` breaks when the heading "FAQ" becomes "Frequently asked questions":
the id `faq` is gone, `frequently-asked-questions` came. `renamed_id` walks the page's versions,
newest first, to the last one that still had the id, and compares it with the version after it:
the ids that came in the change that removed this one are where it went. One id came: that
is it. Several came (headings rewritten together): the nearest by spelling, a weaker class.

`GitPages` reads the versions (at the edge: `git log` and `git cat-file`, bounded in versions and
time); everything else is pure.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ...inputs.git import git_command
from .history import GIT_SECONDS, STAGED, git_blobs, git_output
from .names import near_ids

log = logging.getLogger(__name__)

#: Versions of one page read at most, newest first.
MAX_VERSIONS = 30
#: Working-tree "commit" of the current text (not committed yet, or committed: the newest).
NOW = "now"


@dataclass(frozen=True, slots=True, kw_only=True)
class Version:
    commit: str  # NOW for the text as it is
    date: str
    ids: frozenset[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class RenamedId:
    new: str  # the id it has now
    commit: str  # the change that renamed it (NOW: not committed)
    date: str
    rivals: int  # other ids that came in the same change

    def describe(self, old: str, file: str) -> str:
        when = "in changes not committed yet" if self.commit in (NOW, STAGED) else f"in commit {self.commit[:7]} ({self.date})"
        return f"heading #{old} of {file} renamed {when}: now #{self.new}"


def renamed_id(fragment: str, versions: Iterable[Version], ids_now: frozenset[str]) -> RenamedId | None:
    """The id `fragment` became (and still has), from `versions`, newest first, the first being
    the page as it is now; None when no version had it or the change that removed it added no id."""
    newer: Version | None = None
    for version in versions:
        if newer is not None and fragment in version.ids:
            came = newer.ids - version.ids
            if fragment in newer.ids or not came:
                return None
            if len(came) == 1:
                (new,) = came
                rivals = 0
            else:
                near = near_ids(fragment, came)
                best = near[0].name if near else _most_words_shared(fragment, came)
                if best is None:
                    return None
                new, rivals = best, len(came) - 1
            return RenamedId(new=new, commit=newer.commit, date=newer.date, rivals=rivals) if new in ids_now else None
        newer = version
    return None


def _most_words_shared(fragment: str, ids: Iterable[str]) -> str | None:
    """The id sharing the most words with `fragment`, if one shares strictly more than the rest."""
    words = set(fragment.lower().replace("_", "-").split("-")) - {""}
    scored = sorted(((len(words & set(i.lower().replace("_", "-").split("-"))), i) for i in ids), reverse=True)
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]


class GitPages:
    """Versions of the project's pages from git: the root's work tree, or (for the calibration
    benchmark) a bare repository at a revision."""

    def __init__(self, root: Path, ids_of: Callable[[str, str], frozenset[str]], *, revision: str = "HEAD",
                 git_dir: Path | None = None, prefix: str | None = None, max_versions: int = MAX_VERSIONS,
                 seconds: float = GIT_SECONDS) -> None:
        self._base = git_command(git_dir=git_dir) if git_dir is not None else git_command(directory=root)
        self._ids_of = ids_of  # (text, root-relative path) -> the page's ids
        self._revision, self._max, self._seconds = revision, max_versions, seconds
        self._prefix = prefix
        self._spent = 0.0  # seconds of git so far: the budget is per run, not per page
        self._read: dict[str, tuple[list[Version], Iterator[Version]]] = {}  # per page: read so far, the rest

    def versions(self, file: str, ids_now: frozenset[str]) -> Iterator[Version]:
        """The page now, then its committed versions, newest first (as far as the budget goes).
        Each version is read and parsed once per run, however many links ask."""
        yield Version(commit=NOW, date="", ids=ids_now)
        if file not in self._read:
            self._read[file] = ([], self._committed(file))
        done, rest = self._read[file]
        yield from list(done)
        for version in rest:
            done.append(version)
            yield version

    def _committed(self, file: str) -> Iterator[Version]:
        prefix = self._prefix_in_repository()
        if prefix is None or self._spent > self._seconds:
            return
        listed = self._run(["log", "--format=%H %cs", f"-n{self._max}", self._revision, "--", f":(top){prefix}{file}"])
        commits = [line.partition(" ") for line in (listed or "").splitlines()]
        started = time.monotonic()
        texts = git_blobs(self._base, [f"{commit}:{prefix}{file}" for commit, _, _ in commits], self._seconds)
        self._spent += time.monotonic() - started
        for (commit, _, date), text in zip(commits, texts):
            if text is None:
                return  # deleted in that commit
            yield Version(commit=commit, date=date, ids=self._ids_of(text, file))

    def _prefix_in_repository(self) -> str | None:
        if self._prefix is None:
            shown = self._run(["rev-parse", "--show-prefix"])
            self._prefix = shown.strip() if shown is not None else ""
            if shown is None:
                self._spent = float("inf")  # no repository: never ask again
                return None
        return self._prefix

    def _run(self, args: list[str]) -> str | None:
        if self._spent > self._seconds:
            return None
        started = time.monotonic()
        try:
            return git_output([*self._base, *args], self._seconds)
        finally:
            self._spent += time.monotonic() - started
