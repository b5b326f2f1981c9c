"""The `sarif` format: SARIF 2.1.0 for code-scanning dashboards (GitHub code scanning & co).

One rule per problem status; one result per problem link, located by line and column (in
Unicode code points, declared with `columnKind`), with a stable fingerprint so a dashboard
tracks a link across runs, and the top suggestion as a SARIF `fix`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import quote

from ..model import LinkResult, Report, Status
from . import json_format, register
from .common import PROBLEMS, deferred_lookups, deferred_summary, follow_up, problems, top_suggestion

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

_RULES = {
    Status.BROKEN: ("LF001", "broken-link", "The link target does not exist (404/410, unknown host, missing file or fragment, soft-404).", "error"),
    Status.ERROR: ("LF002", "link-error", "The link target answered with a server error or the connection failed.", "warning"),
    Status.TIMEOUT: ("LF003", "link-timeout", "The link target did not answer in time.", "warning"),
    Status.BLOCKED: ("LF004", "link-blocked", "The site refused an automated check (403/429/999); verify by hand.", "warning"),
    Status.UNVERIFIED: ("LF005", "link-unverified", "The target could not be verified without building the site "
                        "(an id or URL made at build time).", "note"),
}


def _uri(path: str) -> str:
    """The file's URI: its bytes percent-encoded, so a name that is not UTF-8 names that file."""
    return quote(_bytes(path.replace("\\", "/")), safe="/")


def _bytes(text: str) -> bytes:
    """UTF-8, with os.fsdecode's stand-ins for undecodable bytes turned back into those bytes."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate os.fsdecode never makes
        return text.encode("utf-8", "surrogatepass")


@register("sarif")
def format_sarif(report: Report) -> str:
    rules = [
        {
            "id": rule_id,
            "name": name,
            "shortDescription": {"text": name.replace("-", " ")},
            "fullDescription": {"text": text},
            "defaultConfiguration": {"level": level},
            "helpUri": "https://pypi.org/project/linkfix/",
        }
        for rule_id, name, text, level in (_RULES[s] for s in PROBLEMS)
    ]
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if report.errors:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": error}} for error in report.errors
        ]
    deferred = deferred_summary(report)
    if deferred:
        invocation.setdefault("toolExecutionNotifications", []).append({"level": "note", "message": {"text": deferred}})
        invocation["properties"] = {"archiveLookupsDeferred": deferred_lookups(report)}
    run = {
        "tool": {
            "driver": {
                "name": "linkfix",
                "version": json_format.tool_version(),
                "informationUri": "https://pypi.org/project/linkfix/",
                "rules": rules,
            }
        },
        "columnKind": "unicodeCodePoints",
        "invocations": [invocation],
        "results": [_result(item) for item in problems(report)],
    }
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    # A lone surrogate (a file name that is not UTF-8) as its JSON escape, as in the json format.
    return json_format.escape_lone_surrogates(json.dumps(log, indent=2, ensure_ascii=False)) + "\n"


def _result(item: LinkResult) -> dict[str, Any]:
    span, result = item.link.span, item.result
    rule_id, _, _, level = _RULES[result.status]
    region = {"startLine": span.line, "startColumn": span.column}
    if "\n" not in item.link.url:
        region["endColumn"] = span.column + (span.end - span.start)
    message = f"{result.status.value.capitalize()} link: {item.link.url}"
    if result.detail or result.reason:
        message += f" ({result.detail or result.reason})"
    top = top_suggestion(item)
    message += "".join(f". {line[:1].upper()}{line[1:]}" for line in follow_up(item, "suggested replacement"))
    location = {"physicalLocation": {"artifactLocation": {"uri": _uri(span.path)}, "region": region}}
    fingerprint = hashlib.sha256(_bytes(f"{span.path}\0{item.link.url}")).hexdigest()
    out: dict[str, Any] = {
        "ruleId": rule_id,
        "ruleIndex": list(_RULES).index(result.status),
        "level": level,
        "message": {"text": message},
        "locations": [location],
        "partialFingerprints": {"linkfixLink/v1": fingerprint},
        "properties": {"url": item.link.url, "resolved": item.resolved, "reason": result.reason},
    }
    if item.archive_lookup is not None:
        out["properties"]["archive"] = item.archive_lookup.state.value
        if item.archive_lookup.reason:
            out["properties"]["archiveReason"] = item.archive_lookup.reason
    if top is not None:
        out["fixes"] = [
            {
                "description": {"text": f"Replace with {top.url} (confidence {top.confidence:.2f})"},
                "artifactChanges": [
                    {
                        "artifactLocation": {"uri": _uri(span.path)},
                        "replacements": [{"deletedRegion": dict(region), "insertedContent": {"text": top.url}}],
                    }
                ],
            }
        ]
    return out
