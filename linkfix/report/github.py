"""The `github` format: workflow-command annotations (`::error file=..,line=..,col=..::msg`).

GitHub Actions reads these from a step's output and pins them to the lines of a pull request.
It shows at most 10 annotations of each level per step and 50 per run, so one is written per
target (`groups`), at its first place, saying how many links lead there and where the next few
are; a summary notice comes first (it is always shown) and says how many targets there are.
Every value is escaped by the workflow-command rules (`%`, CR and LF everywhere; also `:` and `,`
in properties), so a fetched page title cannot end the command early or start a new one.
"""

from __future__ import annotations

from ..model import Report, Status
from . import register
from .common import follow_up, plural, problems
from .groups import SHOWN_PLACES, Group, group_results, place
from .text import clean, summarize

#: What GitHub shows of the annotations of one step, per level.
SHOWN_PER_STEP = 10

_LEVEL = {Status.BROKEN: "error", Status.ERROR: "warning", Status.TIMEOUT: "warning", Status.BLOCKED: "warning",
          Status.UNVERIFIED: "notice"}


def escape_data(value: str) -> str:
    # Other control characters shown as \xNN: the Actions log renders ANSI escape sequences.
    return clean(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


@register("github")
def format_github(report: Report) -> str:
    listed = problems(report)
    groups = group_results(listed)
    summary = summarize(report)
    if len(groups) < len(listed):
        summary += f"; {len(listed)} problem links to {plural(len(groups), 'target')}, one annotation each, at its first place"
    if len(groups) > SHOWN_PER_STEP:
        summary += f"; GitHub shows {SHOWN_PER_STEP} annotations of each level per step: the full report lists every one"
    lines = [f"::notice title=linkfix::{escape_data(summary)}"]
    lines += [_annotation(group) for group in groups]
    return "\n".join(lines) + "\n"


def _annotation(group: Group) -> str:
    item = group.first
    span, result = item.link.span, item.result
    properties = {"file": span.path, "line": str(span.line), "col": str(span.column)}
    if "\n" not in item.link.url:
        properties["endColumn"] = str(span.column + (span.end - span.start))
    properties["title"] = f"linkfix: {result.status.value} link" + (f" ({group.count} links to it)" if group.count > 1 else "")
    message = f"{result.status.value}: {item.link.url}"
    if result.detail or result.reason:
        message += f" ({result.detail or result.reason})"
    message += "".join(f"\n{line}" for line in follow_up(item))
    if group.count > 1:
        places = group.places
        others = ", ".join(place(other.item) for other in places[1:SHOWN_PLACES])
        hidden = len(places) - SHOWN_PLACES
        message += f"\n{group.count} links to {group.target}" + (f"; also at {others}" if others else "")
        message += (f" and {hidden} more (see the full report)" if hidden > 0 else "") + (f"\nhere: {places[0].uses_note}" if places[0].uses_note else "")
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{_LEVEL[result.status]} {props}::{escape_data(message)}"
