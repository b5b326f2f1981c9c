"""`linkfix report RESULT.json`: render a saved JSON result again, in any format."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...config import Config
from ...errors import EXIT_OK, InputError
from ...model import Report
from ..output import write_reports

NAME = "report"
HELP = "render a saved JSON result (from check --format json) in other formats"
ORDER = 30
USES_CONFIG = True
CONFIG_FLAGS = ("format", "output")  # what it reads of the config


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("result", metavar="RESULT.json", help="a result written by `linkfix check --format json` ('-' for stdin)")


def read_report_file(name: str) -> Report:
    """Load a saved JSON result; every failure is an InputError that names the file."""
    from ...report.json_format import read_report  # the JSON reader loads only when a result is read

    try:
        raw = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from exc
    try:
        return read_report(raw)
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None


def run(args: argparse.Namespace, config: Config) -> int:
    write_reports(read_report_file(args.result), config, quiet=args.quiet)
    return EXIT_OK
