"""Writing reports: each requested format to its file, or to stdout."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from ..atomic import write_atomic
from ..config import Config
from ..errors import ConfigError
from ..model import Report
from ..report import FORMATS, STREAMERS


def write_reports(report: Report, config: Config) -> None:
    """Render every `--format` to the matching `-o FILE` (stdout when none or '-').

    When every format goes to a file, the human text summary still goes to stdout, so a CI log
    always says what happened.
    """
    outputs = list(config.output) + ["-"] * (len(config.format) - len(config.output))
    to_stdout = False
    for name, target in zip(config.format, outputs):
        if target == "-":
            to_stdout = True
            sys.stdout.write(_render(name, report))
        elif name in STREAMERS:
            write_text_atomic(Path(target), STREAMERS[name](report))
        else:
            write_text_atomic(Path(target), _render(name, report))
    if not to_stdout:
        sys.stdout.write(_render("text", report))
    sys.stdout.flush()


def _render(name: str, report: Report) -> str:
    formatter = FORMATS[name]
    if name == "text":
        return formatter(report, color=sys.stdout.isatty() and "NO_COLOR" not in os.environ)
    return formatter(report)


def write_text_atomic(path: Path, content: str | Iterable[bytes]) -> None:
    """Write a report file in one step, so a reader never sees half a report (and Ctrl-C
    leaves the previous report, not a temporary file): a text (written as UTF-8) or a
    streamer's UTF-8 bytes, piece by piece, through `linkfix.atomic.write_atomic`."""
    pieces = [content.encode("utf-8")] if isinstance(content, str) else content
    path = path.expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, pieces)
    except OSError as exc:
        raise ConfigError(f"--output: cannot write {path}: {exc.strerror or exc}") from exc
