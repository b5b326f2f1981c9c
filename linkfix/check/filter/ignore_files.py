"""Ignore files of URL patterns: links a person said not to check, without writing a regex
into linkfix.yml.

Read from the directory of the config file (the working directory when there is none), as
lychee reads its own from the working directory: `.linkfixignore`, and lychee's `.lycheeignore`
(the same format): one regular expression per line, searched for in the URL as written and as
resolved; blank lines and lines starting with `#` are skipped. A pattern that does not compile
is a config error naming its file and line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...config import Config
from ...config.patterns import PatternError, RepositoryPattern, repository_pattern
from ...errors import ConfigError
from ...files.read import Unreadable, display_path, read_text

IGNORE_FILES = (".linkfixignore", ".lycheeignore")


@dataclass(frozen=True, slots=True)
class IgnorePattern:
    pattern: RepositoryPattern
    source: str  # "file:line"


def ignore_patterns(config: Config) -> tuple[IgnorePattern, ...]:
    """The patterns of the ignore files beside the run's config."""
    return tuple(p for name in IGNORE_FILES for p in read_ignore_file(Path(config.config_dir) / name))


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
