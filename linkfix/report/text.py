"""The `text` format: what a person reads in a terminal.

Problems only (broken, error, timeout, blocked, unverified), one group per target (`groups`): its
first place, status and detail, its top suggestion, then its other places (SHOWN_PLACES at most,
and how many more: a page linked 1,451 times is a few lines, not 1,451); then one summary line.
A clean run prints just the summary.
Everything that came from a fetched page or a source file is shown escaped where a terminal or
a viewer would act on it (`clean`), so a hostile title or URL cannot move the cursor, recolour
the terminal, forge a line or reorder what the reader sees.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from ..model import LinkResult, Reason, Report, Status
from . import evidence, register
from .common import archive_note, cache_summary, deferred_summary, plural, problems, status_counts, top_suggestion
from .groups import SHOWN_PLACES, Group, Place, group_results, place

_COLOURS = {
    Status.BROKEN: "\x1b[31m",  # red
    Status.ERROR: "\x1b[35m",  # magenta
    Status.TIMEOUT: "\x1b[33m",  # yellow
    Status.BLOCKED: "\x1b[33m",
    Status.UNVERIFIED: "\x1b[36m",  # cyan
}
_BOLD, _DIM, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"

# What is acted on rather than shown: C0/C1 controls and DEL (terminal escape sequences, NEL);
# the bidirectional controls that reorder a line (marks, embeddings, overrides, isolates: the
# "Trojan Source" set); the line and paragraph separators; and lone surrogates, which is how a
# file name that is not UTF-8 arrives (os.fsdecode) and which no UTF-8 output can carry.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


def clean(value: str) -> str:
    """One line of inert text: what a terminal or viewer would act on is shown as an escape
    (\\x1b, \\u202e); a file name's undecodable byte as that byte (\\xff)."""
    if value.isprintable():  # none of them (they are all unprintable): the usual case
        return value
    return _UNSAFE.sub(_escape, value)


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(value: str) -> str:
    """Only the lone surrogates escaped as `clean` does: for formats that escape the rest their
    own way (HTML, XML) but must still be written as UTF-8."""
    if value.isprintable() or not _SURROGATE.search(value):
        return value
    return _SURROGATE.sub(_escape, value)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for the byte code - 0xDC00
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


Paint = Callable[[str, str], str]  # (colour code, text) -> the text, coloured or not


@register("text")
def format_text(report: Report, *, color: bool = False) -> str:
    def paint(code: str, value: str) -> str:
        return f"{code}{value}{_RESET}" if color else value

    shown = problems(report)
    groups = group_results(shown)
    lines: list[str] = []
    for group in groups:
        places = group.places
        lines.extend(_describe(group.first, paint))
        if places[0].uses_note:
            lines.append(paint(_DIM, f"    {clean(places[0].uses_note)}"))
        lines.extend(_other_places(group, places, paint))
    if groups:
        lines.append("")
    if len(groups) < len(shown):
        lines.append(f"{len(shown)} problem links to {plural(len(groups), 'target')}: each target once, with its places")
    for error in report.errors:
        lines.append(f"{paint(_COLOURS[Status.ERROR], 'ERROR')}  {clean(error)}")
    if report.errors:
        lines.append("")
    lines.append(summarize(report))
    return "\n".join(lines) + "\n"


def _describe(item: LinkResult, paint: Paint) -> list[str]:
    span, result = item.link.span, item.result
    status = result.status.value.upper()
    line = f"{clean(span.path)}:{span.line}:{span.column}  {paint(_COLOURS[result.status], status)}  {clean(item.link.url)}"
    detail = result.detail or result.reason
    if detail:
        line += f"  ({clean(detail)})"
    lines = [line]
    top = top_suggestion(item)
    if top is not None:
        low = ", low confidence" if evidence.level(top) == "low" else ""
        lines.append(f"    -> {clean(top.url)}  [{clean(top.method)}, confidence {top.confidence:.2f}{low}]")
        held = evidence.hold(top)
        lines.append(paint(_DIM, f"       why: {clean('; '.join(evidence.reasons(top)))}" + (f"; held for review: {clean(held)}" if held else "")))
    elif item.archived is not None:
        lines.append(paint(_DIM, f"    archived: {clean(item.archived.url)}"))
    note = archive_note(item)
    if note:
        lines.append(paint(_DIM, f"    {clean(note)}"))
    return lines


def _other_places(group: Group, places: list[Place], paint: Paint) -> list[str]:
    """'    and 2 more links to configuration.md:' and those places (each once, with its uses),
    SHOWN_PLACES in all at most."""
    more = group.count - places[0].uses
    if not more:
        return []
    lines = [paint(_DIM, f"    and {plural(more, 'more link')} to {clean(group.target)}:")]
    lines += [f"      {clean(place(other.item))}  {clean(other.item.link.url)}" + (f"  ({other.uses} uses)" if other.uses > 1 else "")
              for other in places[1:SHOWN_PLACES]]
    hidden = len(places) - SHOWN_PLACES
    if hidden > 0:
        lines.append(paint(_DIM, f"      and {hidden} more (the JSON and HTML reports list every place)"))
    return lines


def summarize(report: Report) -> str:
    """'123 links in 4 files: 120 ok, 2 broken, 1 redirected (1.2 s)'."""
    counts = status_counts(report)
    why = why_excluded(report) if counts[Status.EXCLUDED] else ""
    parts = [f"{counts[s]} {s.value}" + (f" ({why})" if s is Status.EXCLUDED and why else "") for s in Status if counts[s]]
    text = f"{plural(report.total, 'link')} in {plural(report.files, 'file')}"
    if report.rules:
        text += f", by {report.rules}"
    if parts:
        text += ": " + ", ".join(parts)
    if report.errors:
        text += f"; {plural(len(report.errors), 'input error')}"
    for clause in (deferred_summary(report), cache_summary(report)):
        if clause:
            text += f"; {clause}"
    if report.duration:
        text += f" ({report.duration:.1f} s)"
    return text


#: How a reason reads after its count where its code would not ("1 excluded (1 excluded)").
_REASON_WORDS: dict[str, str] = {Reason.EXCLUDED: "by exclude", "": "no reason given"}


def why_excluded(report: Report) -> str:
    """'2 offline, 1 by exclude': the excluded links by reason, most first; the reason alone
    when it is the only one ('offline'); '' when none is known."""
    reasons = Counter(report.excluded_reasons)
    reasons.update(str(item.result.reason) for item in report.results if item.result.status is Status.EXCLUDED)
    if len(reasons) == 1:
        return next(_REASON_WORDS.get(reason, reason) for reason in reasons)
    return ", ".join(f"{n} {_REASON_WORDS.get(reason, reason)}" for reason, n in reasons.most_common())
