"""Regular expressions a checked repository writes, matched within a time bound.

A repository writes regular expressions linkfix runs: `exclude`, `include`, `exclude_path` and
`remap` in linkfix.yml, `.linkfixignore` lines, mkdocs-exclude's `regex`, mkdocstrings'
`filters`, the patterns of its hooks (and the shapes of their f-strings), the sources of its
host's redirects (`/(.*)(.*)x` in vercel.json). Python's `re` backtracks without bound:
`^https://x\\.example/(a+)+$` took past 120 s on one URL, in the main process, and a SIGTERM
waited for the match. No rewriting of a pattern makes every one linear while keeping what it
means (lookarounds and backreferences are common in `exclude`), so they are matched where a
time bound holds instead: the `regex` module, in its `re`-compatible mode, stops a match at
its `timeout`.

Every such pattern is compiled here (`repository_pattern`), once. A match that takes longer
than `seconds_for(text)` raises `RunawayPattern`, after one warning naming the pattern and
where it comes from; from then on that pattern raises at once, so each costs its bound at most
once a run. Callers give the answer that is safe for what they decide (`matches(...,
otherwise=...)`): a hook's pattern that runs away touches every page (unverified), an exclude
pattern that runs away excludes nothing (the link is checked).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from typing import Any, Literal

from ..errors import ConfigError

log = logging.getLogger(__name__)

SECONDS = 0.25  # one match of one pattern on a short string (a URL, a path); real ones take microseconds
SECONDS_PER_MB = 0.5  # and this much more per MB of the string (a page's text)
_FLAG_NAMES = ("IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE", "ASCII", "UNICODE", "LOCALE")  # re's and regex's (their values differ)


class RunawayPattern(ConfigError):
    """A repository's regular expression took longer than its bound on one string."""


class PatternError(ConfigError, ValueError):
    """A repository's regular expression does not compile (the message says why); a ValueError
    too, as `re.compile`'s own error is to its callers."""


def seconds_for(text: str) -> float:
    return SECONDS + SECONDS_PER_MB * len(text) / 1_000_000


class RepositoryPattern:
    """One regular expression of the repository: `re`'s methods, each bounded in time."""

    __slots__ = ("_compiled", "origin", "pattern", "ran_away")

    def __init__(self, pattern: str, flags: int, origin: str) -> None:
        self.pattern = pattern
        self.origin = origin  # where it comes from, for the warning ("linkfix.yml exclude", "hook docs/hooks.py")
        self.ran_away = False
        import regex  # here: a run whose repository writes no pattern never imports it (~20 ms)

        try:
            self._compiled = regex.compile(pattern, _regex_flags(regex, flags) | regex.VERSION0)
        except (regex.error, ValueError, TypeError, OverflowError, RecursionError) as exc:
            raise PatternError(str(exc)) from None

    def search(self, text: str, pos: int = 0) -> Any:
        return self._bounded(self._compiled.search, text, pos)

    def match(self, text: str, pos: int = 0) -> Any:
        return self._bounded(self._compiled.match, text, pos)

    def fullmatch(self, text: str, pos: int = 0) -> Any:
        return self._bounded(self._compiled.fullmatch, text, pos)

    def sub(self, replacement: str | Callable[[Any], str], text: str, count: int = 0) -> str:
        if self.ran_away:
            raise RunawayPattern(self.pattern)
        try:
            return str(self._compiled.sub(replacement, text, count=count, timeout=seconds_for(text)))
        except TimeoutError:
            raise self._runaway() from None

    def matches(self, text: str, how: Literal["search", "match", "fullmatch"] = "search", *, otherwise: bool) -> bool:
        """Whether it matches `text` (`how`), or `otherwise` when it runs away."""
        if self.ran_away:
            return otherwise
        try:  # (the method called directly: this runs for every URL against every exclude pattern)
            return getattr(self._compiled, how)(text, timeout=SECONDS + SECONDS_PER_MB * len(text) / 1_000_000) is not None
        except TimeoutError:
            self._runaway()
            return otherwise

    def _bounded(self, method: Callable[..., Any], text: str, pos: int) -> Any:
        if self.ran_away:
            raise RunawayPattern(self.pattern)
        try:
            return method(text, pos, timeout=seconds_for(text))
        except TimeoutError:
            raise self._runaway() from None

    def _runaway(self) -> RunawayPattern:
        self.ran_away = True
        log.warning("%s: the regular expression %r takes longer than %.2f s on one string (it backtracks without bound): "
                    "not matched again in this run, and read the safe way", self.origin, self.pattern[:200], SECONDS)
        return RunawayPattern(self.pattern)


@functools.lru_cache(maxsize=4096)
def repository_pattern(pattern: str, flags: int = 0, *, origin: str) -> RepositoryPattern:
    """The repository's `pattern` (with `re` flags), compiled once; PatternError when it does not compile."""
    return RepositoryPattern(pattern, flags, origin)


def _regex_flags(regex: Any, flags: int) -> int:
    """`re` flags as `regex`'s."""
    known = {int(getattr(re, name)): int(getattr(regex, name)) for name in _FLAG_NAMES}
    unknown = flags & ~sum(known)
    if unknown:
        raise PatternError(f"unknown flags {unknown:#x}")
    return sum(value for flag, value in known.items() if flags & flag)
