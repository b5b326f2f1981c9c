"""`linkfix demo`: check and recover the bundled example docs against a simulated web (offline)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ...config import Config
from ...errors import EXIT_OK

NAME = "demo"
HELP = "run check + recovery on a bundled example docs site against a simulated web (offline, seconds)"
ORDER = 90
USES_CONFIG = False


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output-dir", type=Path, default=Path("linkfix-demo"), metavar="DIR",
                        help="where the docs copy, report.html and result.json go (default: linkfix-demo)")


def run(args: argparse.Namespace, config: Config | None) -> int:
    import asyncio  # here, like the demo itself: `linkfix --help` need not load either

    from ..demo import run_demo
    from ..output import terminal_text

    started = time.monotonic()
    result = asyncio.run(run_demo(args.output_dir))
    if args.quiet:  # the reports are in --output-dir, as its help says; nothing else is wanted
        return EXIT_OK
    out = sys.stdout
    out.write(terminal_text(result.report))
    out.write("\nSuggested patch (what `linkfix fix --update-redirects` would change):\n\n")
    out.write(result.diff or "(nothing to change)\n")
    out.write(
        f"\nReport: {result.html_report}   Result: {result.json_result}   ({time.monotonic() - started:.1f} s)\n"
        f"Apply the fixes to the copy:   linkfix fix --from {result.json_result} --update-redirects\n"
    )
    out.flush()
    return EXIT_OK
