"""The `text` format: what a person reads in a terminal.

Problems only (broken, error, timeout, blocked), grouped by file and sorted by position, each
with its top suggestion; then one summary line. A clean run prints just the summary.
Everything that came from a fetched page or a source file is stripped of control characters,
so a hostile title or URL cannot move the cursor or recolour the terminal.
"""

from __future__ import annotations

import re
from itertools import groupby

from ..model import LinkResult, Report, Status
from . import register
from .common import evidence_words, problems, status_counts, top_suggestion

_COLOURS = {
    Status.BROKEN: "\x1b[31m",  # red
    Status.ERROR: "\x1b[35m",  # magenta
    Status.TIMEOUT: "\x1b[33m",  # yellow
    Status.BLOCKED: "\x1b[33m",
}
_BOLD, _DIM, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"

# C0/C1 controls and DEL (keeps nothing that a terminal interprets).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def clean(value: str) -> str:
    """One line of inert text: control characters shown as escapes."""
    if value.isprintable():  # no control character (they are all unprintable): the usual case
        return value
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", value)


@register("text")
def format_text(report: Report, *, color: bool = False) -> str:
    def paint(code: str, value: str) -> str:
        return f"{code}{value}{_RESET}" if color else value

    shown = problems(report)
    lines: list[str] = []
    for path, group in groupby(shown, key=lambda item: item.link.span.path):
        lines.append(paint(_BOLD, clean(path)))
        for item in group:
            lines.extend(_describe(item, paint))
        lines.append("")
    for error in report.errors:
        lines.append(f"{paint(_COLOURS[Status.ERROR], 'ERROR')}  {clean(error)}")
    if report.errors:
        lines.append("")
    lines.append(summarize(report))
    return "\n".join(lines) + "\n"


def _describe(item: LinkResult, paint) -> list[str]:
    span, result = item.link.span, item.result
    status = result.status.value.upper()
    line = f"{clean(span.path)}:{span.line}:{span.column}  {paint(_COLOURS[result.status], status)}  {clean(item.link.url)}"
    detail = result.detail or result.reason
    if detail:
        line += f"  ({clean(detail)})"
    lines = [line]
    top = top_suggestion(item)
    if top is not None:
        lines.append(f"    -> {clean(top.url)}  [{top.method}, confidence {top.confidence:.2f}]")
        if evidence_words(top):
            lines.append(paint(_DIM, f"       {clean(evidence_words(top))}"))
    elif item.archived is not None:
        lines.append(paint(_DIM, f"    archived: {clean(item.archived.url)}"))
    return lines


def summarize(report: Report) -> str:
    """'123 links in 4 files: 120 ok, 2 broken, 1 redirected (1.2 s)'."""
    counts = status_counts(report)
    parts = [f"{counts[s]} {s.value}" for s in Status if counts[s]]
    total = len(report.results)
    noun = "link" if total == 1 else "links"
    files = "file" if report.files == 1 else "files"
    text = f"{total} {noun} in {report.files} {files}"
    if parts:
        text += ": " + ", ".join(parts)
    if report.errors:
        text += f"; {len(report.errors)} input error{'s' if len(report.errors) != 1 else ''}"
    if report.duration:
        text += f" ({report.duration:.1f} s)"
    return text
