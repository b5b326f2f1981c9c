"""Report files: a report in a format by name, the format a file's suffix names, and a report
file written in one step (a reader never sees half a report; Ctrl-C leaves the previous one).

The one writer of report files: the CLI's `--output`, the demo, the mkdocs plugin and the public
API (`linkfix.write_report`) all write through `write_report`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..atomic import write_atomic
from ..errors import ConfigError
from ..model import Report
from . import FORMATS, STREAMERS

#: Report file suffix -> format name.
SUFFIX_FORMATS = {".json": "json", ".html": "html", ".htm": "html", ".md": "markdown", ".sarif": "sarif",
                  ".xml": "junit", ".txt": "text"}


def format_report(report: Report, name: str) -> str:
    """The report in format `name` (json, text, markdown, html, sarif, junit, github)."""
    if name not in FORMATS:
        raise ConfigError(f"unknown report format {name!r} (one of {', '.join(sorted(FORMATS))})")
    return FORMATS[name](report)


def report_format_for(path: str | Path) -> str:
    """The format a report file's suffix names; ConfigError when it names none."""
    suffix = Path(path).suffix.lower()
    name = SUFFIX_FORMATS.get(suffix)
    if name is None:
        raise ConfigError(f"cannot tell the report format of {str(path)!r} (use one of {', '.join(sorted(SUFFIX_FORMATS))})")
    if name not in FORMATS:
        raise ConfigError(f"report format {name!r} is not available")
    return name


def write_report(report: Report, path: str | Path, name: str | None = None) -> None:
    """Write the report to `path` in one step, in format `name` or the one its suffix names
    (piece by piece when the format can stream: a large report is never one string in memory).
    ConfigError when it cannot be written."""
    name = name or report_format_for(path)
    write_report_file(Path(path), STREAMERS[name](report) if name in STREAMERS else format_report(report, name))


def write_report_file(path: Path, content: str | Iterable[bytes]) -> None:
    """Write a text (as UTF-8) or a streamer's UTF-8 bytes, piece by piece, to `path` through
    `linkfix.atomic.write_atomic`, making its directory when needed. ConfigError when it cannot."""
    pieces = [content.encode("utf-8")] if isinstance(content, str) else content
    path = path.expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, pieces)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from exc
