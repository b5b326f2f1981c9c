"""Writing reports: each requested format to its file, or to stdout."""

from __future__ import annotations

import os
import sys

from ..config import Config
from ..errors import ConfigError
from ..model import Report
from ..report import FORMATS
from ..report.files import write_report
from ..report.text import format_text


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
            sys.stdout.write(terminal_text(report) if name == "text" else FORMATS[name](report))
            continue
        try:
            write_report(report, target, name)
        except ConfigError as exc:
            raise ConfigError(f"--output: {exc}") from exc
    if not to_stdout:
        sys.stdout.write(terminal_text(report))
    sys.stdout.flush()


def terminal_text(report: Report) -> str:
    """The text report for stdout: in colour on a terminal, unless NO_COLOR is set."""
    return format_text(report, color=sys.stdout.isatty() and "NO_COLOR" not in os.environ)
