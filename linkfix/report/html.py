"""The `html` format: one self-contained page a reviewer opens in a browser.

Totals; filters by status, file and host; each problem link with its place, anchor text and
surrounding words; its candidates with confidence, method and evidence, the archived copy;
and accept/reject controls that produce the `decisions.json` `linkfix fix --apply` reads.

Safety: jinja2 autoescapes every value; only http(s) URLs become links; and a Content
Security Policy allows no network access and no script but the page's own (pinned by its
sha256), so hostile text from a fetched page is shown, never run.

A file name that is not UTF-8 is shown escaped (\\xff, as in the text report); the decisions
carry its exact name, from a JSON string in `data-file-json`.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..model import LinkResult, Report, Status
from . import evidence, register
from .common import DECISIONS_SCHEMA, archive_note, deferred_summary, is_safe_url, replacement_url, status_counts, unsafe_replacement_reason
from .text import escape_surrogates

TEMPLATES = Path(__file__).parent / "templates"

#: Listed one by one: problems, and redirects (which `fix --update-redirects` can rewrite).
LISTED = (Status.BROKEN, Status.ERROR, Status.TIMEOUT, Status.BLOCKED, Status.UNVERIFIED, Status.REDIRECTED)

@functools.lru_cache(maxsize=1)
def _environment():
    """Built on first use: importing jinja2 is a fifth of a `check`'s start-up otherwise."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        finalize=_shown,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _shown(value: Any) -> Any:
    """Every value the template writes: a file name's undecodable bytes (lone surrogates,
    which UTF-8 cannot carry) shown escaped; anything else as it is."""
    return escape_surrogates(value) if isinstance(value, str) else value


@dataclass(frozen=True, slots=True, kw_only=True)
class _Choice:
    """One candidate as the page shows it."""

    index: int
    url: str  # as found
    replacement: str  # what `fix` would write (fragment kept or dropped)
    caveat: str
    confidence: float
    level: str  # auto | review | low (evidence.level)
    level_words: str
    method: str
    reasons: tuple[str, ...]  # why, in words
    hold: str  # why recovery holds it for review ('' if it does not)
    evidence: tuple[tuple[str, str], ...]  # the raw evidence, for the curious
    safe: bool  # http(s): clickable (and acceptable)
    acceptable: bool  # http(s), or a link within the site (an internal suggestion): `fix --apply` writes it


@dataclass(frozen=True, slots=True, kw_only=True)
class _Row:
    id: str
    item: LinkResult
    host: str
    choices: tuple[_Choice, ...]
    archived_safe: bool
    file_json: str  # the exact file name as JSON, when it is shown escaped; else ""
    archive_note: str = ""  # the archive lookup was deferred: why


def _host(item: LinkResult) -> str:
    try:
        return urlsplit(item.resolved).hostname or "(local)"
    except ValueError:
        return "(invalid)"


def _evidence_value(value: Any) -> str:
    """Evidence for a reader: scores to two decimals, nested scores on one line."""
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, Mapping):
        return " · ".join(f"{key} {_evidence_value(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(_evidence_value(item) for item in value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _rows(report: Report) -> list[_Row]:
    listed = sorted(
        (item for item in report.results if item.result.status in LISTED),
        key=lambda item: (item.link.span.path, item.link.span.line, item.link.span.column),
    )
    rows = []
    for number, item in enumerate(listed):
        choices = []
        for index, candidate in enumerate(sorted(item.suggestions, key=lambda c: -c.confidence)):
            replacement, caveat = replacement_url(item, candidate)
            choices.append(
                _Choice(
                    index=index,
                    url=candidate.url,
                    replacement=replacement,
                    caveat=caveat,
                    confidence=candidate.confidence,
                    level=evidence.level(candidate),
                    level_words=evidence.LEVEL_WORDS[evidence.level(candidate)],
                    method=candidate.method,
                    reasons=tuple(evidence.reasons(candidate)),
                    hold=evidence.hold(candidate),
                    evidence=tuple((str(k), _evidence_value(v)) for k, v in candidate.evidence.items()),
                    safe=is_safe_url(replacement),
                    acceptable=not unsafe_replacement_reason(replacement),
                )
            )
        archived_safe = item.archived is not None and is_safe_url(item.archived.url)
        path = item.link.span.path
        file_json = json.dumps(path) if escape_surrogates(path) != path else ""
        rows.append(
            _Row(id=f"l{number}", item=item, host=_host(item), choices=tuple(choices), archived_safe=archived_safe,
                 file_json=file_json, archive_note=archive_note(item))
        )
    return rows


def _script_hash(script: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


@register("html")
def format_html(report: Report) -> str:
    rows = _rows(report)
    script = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    style = (TEMPLATES / "report.css").read_text(encoding="utf-8")
    counts = status_counts(report)
    return _environment().get_template("report.html.j2").render(
        report=report,
        rows=rows,
        counts=[(status.value, n) for status, n in counts.items() if n],
        statuses=sorted({row.item.result.status.value for row in rows}, key=lambda s: [x.value for x in Status].index(s)),
        files=sorted({row.item.link.span.path for row in rows}),
        hosts=sorted({row.host for row in rows}),
        script=script,
        script_hash=_script_hash(script),
        style=style,
        style_hash=_script_hash(style),
        decisions_schema=DECISIONS_SCHEMA,
        deferred=deferred_summary(report),
    )
