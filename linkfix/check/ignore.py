"""Links a person said not to check, without writing a regex into linkfix.yml: ignore comments
in the sources (formats/silence.py) and ignore files of URL patterns.

Ignore files, read from the directory of the config file (the working directory when there is
none), as lychee reads its own from the working directory:
- `.linkfixignore`, and lychee's `.lycheeignore` (the same format): one regular expression per
  line, searched for in the URL as written and as resolved; blank lines and lines starting
  with `#` are skipped.
An ignored link is `excluded` (reason `ignored`, the detail naming the comment or the file and
line), counted in every report, never requested and never rewritten by `fix`. A pattern that
does not compile is a config error naming its file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..config import Config
from ..config.patterns import PatternError, RepositoryPattern, repository_pattern
from ..errors import ConfigError
from ..files.read import Unreadable, display_path, read_text
from ..formats.silence import silencing
from ..model import CheckResult, Link, Reason, Silenced, Status
from .targets import Target

IGNORE_FILES = (".linkfixignore", ".lycheeignore")


@dataclass(frozen=True, slots=True)
class IgnorePattern:
    pattern: RepositoryPattern
    source: str  # "file:line"


class Ignores:
    """The ignore files' patterns of a run, and what they and a page's comments make of a link."""

    def __init__(self, patterns: tuple[IgnorePattern, ...] = ()) -> None:
        self.patterns = patterns

    @classmethod
    def load(cls, config: Config) -> Ignores:
        return cls(tuple(p for name in IGNORE_FILES for p in read_ignore_file(Path(config.config_dir) / name)))

    def target(self, link: Link, target: Target, silenced: tuple[Silenced, ...]) -> Target:
        """`target`, or an `ignored` one when a comment covers the link's line or a pattern
        matches its URL."""
        comment = silencing(silenced, link.span.line) if silenced and link.span.path == link.page.path else None
        if comment is not None:
            return _ignored(target, f"ignored by the comment <!-- {comment.comment} --> on line {comment.line}")
        for rule in self.patterns:
            if rule.pattern.matches(link.url, otherwise=False) or rule.pattern.matches(target.resolved, otherwise=False):
                return _ignored(target, f"ignored by {rule.source} ({rule.pattern.pattern})")
        return target


def read_ignore_file(path: Path) -> list[IgnorePattern]:
    """The patterns of one ignore file ([] when there is none)."""
    if not path.is_file():
        return []
    try:
        text, _ = read_text(path)
    except Unreadable as exc:
        raise ConfigError(f"{display_path(path)}: cannot read: {exc}") from exc
    patterns = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            patterns.append(IgnorePattern(repository_pattern(line, origin=f"{display_path(path)}:{number}"), f"{display_path(path)}:{number}"))
        except PatternError as exc:
            raise ConfigError(f"{display_path(path)}:{number}: invalid regex {line!r}: {exc}") from exc
    return patterns


def _ignored(target: Target, detail: str) -> Target:
    result = CheckResult(url=target.resolved, status=Status.EXCLUDED, reason=Reason.IGNORED, detail=detail)
    return replace(target, result=result)
