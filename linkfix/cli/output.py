"""Writing reports: each requested format to its file, or to stdout."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Iterable

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
    """Write a report file in one step, so a reader never sees half a report: a text (written
    as UTF-8) or a streamer's UTF-8 bytes, piece by piece."""
    pieces = [content.encode("utf-8")] if isinstance(content, str) else content
    path = path.expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise ConfigError(f"--output: cannot write {path}: {exc.strerror}") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.writelines(pieces)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        # Interrupted or failed while streaming: no temporary file is left behind.
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise ConfigError(f"--output: cannot write {path}: {exc.strerror}") from exc
        raise
