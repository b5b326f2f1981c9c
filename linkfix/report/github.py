"""The `github` format: workflow-command annotations (`::error file=..,line=..,col=..::msg`).

GitHub Actions reads these from a step's output and pins them to the lines of a pull request.
Every value is escaped by the workflow-command rules (`%`, CR and LF everywhere; also `:` and `,`
in properties), so a fetched page title cannot end the command early or start a new one.
"""

from __future__ import annotations

from ..model import LinkResult, Report, Status
from . import register
from .common import follow_up, problems
from .text import clean, summarize

_LEVEL = {Status.BROKEN: "error", Status.ERROR: "warning", Status.TIMEOUT: "warning", Status.BLOCKED: "warning",
          Status.UNVERIFIED: "notice"}


def escape_data(value: str) -> str:
    # Other control characters shown as \xNN: the Actions log renders ANSI escape sequences.
    return clean(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


@register("github")
def format_github(report: Report) -> str:
    lines = [_annotation(item) for item in problems(report)]
    lines.append(f"::notice title=linkfix::{escape_data(summarize(report))}")
    return "\n".join(lines) + "\n"


def _annotation(item: LinkResult) -> str:
    span, result = item.link.span, item.result
    properties = {"file": span.path, "line": str(span.line), "col": str(span.column)}
    if "\n" not in item.link.url:
        properties["endColumn"] = str(span.column + (span.end - span.start))
    properties["title"] = f"linkfix: {result.status.value} link"
    message = f"{result.status.value}: {item.link.url}"
    if result.detail or result.reason:
        message += f" ({result.detail or result.reason})"
    message += "".join(f"\n{line}" for line in follow_up(item))
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{_LEVEL[result.status]} {props}::{escape_data(message)}"
