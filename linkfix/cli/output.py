"""Writing reports: each requested format to its file, or to stdout.

The pairing rule of `-f/--format` and `-o/--output` (and of the `format`/`output` keys):
- they pair by position: the first output is the first format's file, the second the
  second's, and so on ('-' is stdout);
- a format left without an output goes to stdout; only one format may go there (two documents
  on one stream cannot be told apart), and only the last one;
- on the command line, when some format has no output, every `-o` must follow its own `-f`
  (`-f markdown -o summary.md -f github`): in `-f json -f html -o a.json` the file would be
  json's by position and html's by place, so the command is refused rather than guessed at.
When every format goes to a file, the text summary still goes to stdout, so a CI log always
says what happened. With `-q` the text report is cut to the links that fail the run, one line
each, with no summary: a clean run prints nothing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ..config import Config
from ..errors import ConfigError
from ..model import Report
from ..report import FORMATS
from ..report.files import write_report
from ..report.text import clean, format_text

STDOUT = "-"


def report_targets(formats: Sequence[str], outputs: Sequence[str]) -> list[tuple[str, str]]:
    """(format, file or '-') for every format, by the pairing rule; ConfigError when the lists
    do not pair."""
    if len(outputs) > len(formats):
        raise ConfigError(f"{len(outputs)} outputs for {len(formats)} format{'s' if len(formats) != 1 else ''} "
                          f"({_listed(formats)}): give one -o FILE per -f FORMAT, in the same order")
    pairs = list(zip(formats, outputs)) + [(name, STDOUT) for name in formats[len(outputs):]]
    to_stdout = [name for name, target in pairs if target == STDOUT]
    if len(to_stdout) > 1:
        raise ConfigError(f"{_listed(to_stdout)} would all go to stdout, where one document cannot be told from the next: "
                          "give -o FILE for all but one of them ('-' for stdout)")
    return pairs


def check_output_directories(targets: Sequence[tuple[str, str]]) -> None:
    """Each report file's directory must exist: ConfigError naming the missing one. Made
    without a word, a typo (`-o reprots/x.sarif`) wrote the report where nobody looks."""
    for _, target in targets:
        if target == STDOUT:
            continue
        directory = Path(target).expanduser().parent
        if not directory.is_dir():
            raise ConfigError(f"--output {target}: no such directory {directory} (create it first)")


def check_written_order(written: Sequence[tuple[str, str]], formats: Sequence[str], outputs: Sequence[str]) -> None:
    """On the command line, when some format goes without -o, each -o must come right after
    its own -f. `written`: ('format' or 'output', value) in the order typed."""
    if len(outputs) >= len(formats) or not any(kind == "output" for kind, _ in written):
        return
    seen_formats = seen_outputs = 0
    for kind, value in written:
        if kind == "format":
            seen_formats += 1
            continue
        seen_outputs += 1
        if seen_formats != seen_outputs:
            typed = " ".join(f"{'-f' if k == 'format' else '-o'} {v}" for k, v in written)
            raise ConfigError(f"'{typed}': which format goes to {value}? Write each -o right after its -f, or one -o per -f "
                              f"('-' for stdout), e.g. {' '.join(f'-f {name} -o FILE' for name in formats)}")


def write_reports(report: Report, config: Config, *, quiet: bool = False) -> None:
    """Render every format to its file or to stdout (see the pairing rule above)."""
    to_stdout = False
    for name, target in report_targets(config.format, config.output):
        if target == STDOUT:
            to_stdout = True
            if name == "text":
                sys.stdout.write(failing_lines(report) if quiet else terminal_text(report))
            else:
                sys.stdout.write(FORMATS[name](report))
            continue
        try:
            write_report(report, target, name)
        except ConfigError as exc:
            raise ConfigError(f"--output: {exc}") from exc
    if not to_stdout:
        sys.stdout.write(failing_lines(report) if quiet else terminal_text(report))
    sys.stdout.flush()


def terminal_text(report: Report) -> str:
    """The text report for stdout: in colour on a terminal, unless NO_COLOR is set."""
    return format_text(report, color=sys.stdout.isatty() and "NO_COLOR" not in os.environ)


def failing_lines(report: Report) -> str:
    """`-q`'s text: one line per link that fails the run (`file:line:col  BROKEN  url
    (detail)`), and one per input error (`ERROR  file: why`: `-q` hides the warnings, and
    these make the run exit 2), nothing else."""
    lines = []
    for item in sorted((r for r in report.results if r.failing), key=lambda r: (r.link.span.path, r.link.span.line, r.link.span.column)):
        span, result = item.link.span, item.result
        detail = result.detail or result.reason
        lines.append(f"{clean(span.path)}:{span.line}:{span.column}  {result.status.value.upper()}  {clean(item.link.url)}"
                     + (f"  ({clean(detail)})" if detail else "") + "\n")
    lines += [f"ERROR  {clean(error)}\n" for error in report.errors]
    return "".join(lines)


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names)
