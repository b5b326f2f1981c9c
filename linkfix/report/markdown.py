"""The `markdown` format: a compact summary for a pull-request comment or $GITHUB_STEP_SUMMARY.

One row per target (`groups`): its first place, and when several links lead there, how many and
all their places in a `<details>` block, within a budget of characters (a PR comment holds
65,536 at most): past it a row says how many places the full report adds.

Everything that came from a source or a fetched page is escaped: markdown punctuation is
backslash-escaped, `<>&` become entities, and `@` gets a word joiner so that a page title can
neither format the comment, inject HTML, nor mention a user. Only http(s) suggestions are links.
"""

from __future__ import annotations

import re

from ..model import Report, Status
from . import evidence, register
from .common import archive_note, deferred_summary, is_safe_url, plural, problems, status_counts, top_suggestion
from .groups import Group, Place, group_results, place
from .text import clean

#: Rows (targets) shown; a PR comment is limited to 65536 characters.
MAX_ROWS = 100
#: Characters the lists of places may take in all (what is left of a comment for them).
PLACES_BUDGET = 30_000

# What can open markdown syntax mid-line in a table cell ($ is GitHub's maths).
_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+!|~$])")
_ICON = {Status.BROKEN: "❌", Status.ERROR: "⚠️", Status.TIMEOUT: "⏱️", Status.BLOCKED: "🚫", Status.UNVERIFIED: "❔"}


def escape(value: str) -> str:
    """Inert markdown text on one line."""
    # Control characters shown as \xNN: the report also goes to a terminal (stdout), where
    # an ESC from a fetched title would be a live escape sequence.
    value = clean(" ".join(value.split()))
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    value = _PUNCTUATION.sub(r"\\\1", value)
    return value.replace("@", "@\u2060")


def _link(url: str) -> str:
    if not is_safe_url(url) or clean(url) != url:
        return escape(url)
    target = url.replace(" ", "%20").replace("<", "%3C").replace(">", "%3E").replace("|", "%7C")
    return f"[{escape(url)}](<{target}>)"


@register("markdown")
def format_markdown(report: Report) -> str:
    counts = status_counts(report)
    listed = problems(report)
    groups = group_results(listed)
    broken = counts[Status.BROKEN]
    headline = "✅ no broken links" if not broken else f"❌ {plural(broken, 'broken link')}"
    lines = [f"### linkfix: {headline}", ""]
    totals = " · ".join(f"{n} {s.value}" for s, n in counts.items() if n)
    deferred = deferred_summary(report)
    grouped = f" · {len(listed)} problem links to {plural(len(groups), 'target')}" if len(groups) < len(listed) else ""
    lines.append(f"{plural(report.total, 'link')} in {plural(report.files, 'file')}" + (f": {totals}" if totals else "")
                 + grouped + (f" · {deferred}" if deferred else ""))
    lines.append("")
    if listed:
        lines += ["| | Where | Link | Detail | Suggestion |", "|---|---|---|---|---|"]
        budget = [PLACES_BUDGET]
        lines += [_row(group, budget) for group in groups[:MAX_ROWS]]
        if len(groups) > MAX_ROWS:
            rest = sum(group.count for group in groups[MAX_ROWS:])
            lines += ["", f"… and {plural(len(groups) - MAX_ROWS, 'more target')}, {plural(rest, 'link')} (see the full report)."]
        lines.append("")
    if report.errors:
        lines += ["**Inputs that could not be read**", ""]
        lines += [f"- {escape(error)}" for error in report.errors[:MAX_ROWS]]
        lines.append("")
    return "\n".join(lines)


def _row(group: Group, budget: list[int]) -> str:
    item = group.first
    result = item.result
    places = group.places
    uses = f" (used {places[0].uses} times)" if places[0].uses > 1 else ""
    where = escape(place(item)) + uses + _more_places(group, places, budget)
    detail = escape(result.detail or result.reason)
    top = top_suggestion(item)
    if top is not None:
        suggestion = f"{_link(top.url)} ({escape(top.method)}, {escape(evidence.summary(top))})"
    elif item.archived is not None:
        suggestion = f"archived: {_link(item.archived.url)}"
    else:
        suggestion = ""
    note = archive_note(item)
    if note:
        suggestion = f"{suggestion}<br>{escape(note)}" if suggestion else escape(note)
    icon = _ICON[result.status]
    return f"| {icon} {result.status.value} | {where} | {escape(item.link.url)} | {detail} | {suggestion} |"


def _more_places(group: Group, places: list[Place], budget: list[int]) -> str:
    """'<br><details><summary>and 1450 more links</summary>a.md:3:1<br>…</details>': every other
    place (each once, with its uses), as far as `budget` (characters left, shared by the rows) goes."""
    links = group.count - places[0].uses
    if not links:
        return ""
    others = places[1:]
    shown = []
    for other in others:
        text = f"{escape(place(other.item))} {escape(other.item.link.url)}" + (f" ({other.uses} uses)" if other.uses > 1 else "")
        if budget[0] < len(text) + 4:
            break
        budget[0] -= len(text) + 4
        shown.append(text)
    cut = len(others) - len(shown)
    if cut:
        shown.append(f"… {cut} more in the full report")
    return f"<br><details><summary>and {plural(links, 'more link')}</summary>{'<br>'.join(shown)}</details>"
