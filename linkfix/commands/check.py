"""`linkfix check INPUTS...`: check every link, optionally suggest replacements."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from ..config import Config
from ..runner import run_check
from ._output import write_reports

NAME = "check"
HELP = "check the links of markdown sources, a built site, a mkdocs.yml project, or files"
ORDER = 10
USES_CONFIG = True


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="directories, files, or a mkdocs.yml")


def run(args: argparse.Namespace, config: Config) -> int:
    progress = sys.stderr.isatty() and not os.environ.get("CI") and not args.quiet
    report = asyncio.run(run_check(args.inputs, config, progress=progress))
    write_reports(report, config)
    return 1 if any(r.failing for r in report.results) else 0
