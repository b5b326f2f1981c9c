"""The `html` format: one self-contained page a reviewer opens in a browser.

A summary on top (totals by status; the targets with most links; the files with most
findings); filters by status, file and host (the host filter only when some link leaves the
site); then one card per target (`groups`: a page linked 1,451 times is one card): its status
and detail, its first places with the anchor text and surrounding words of the first, every
place one click away (`<details>`), its best candidates (MAX_SHOWN, those a reviewer may accept:
see `ACCEPT_FLOOR`) with confidence, method and evidence in words, the archived copy, and what
to do when nothing can be accepted (`hints`). Accept/reject controls produce the
`decisions.json` that `linkfix fix --apply` reads: a decision on a card applies to each of its
places that has the same candidate (each spelled for its own page).

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..model import Candidate, Evidence, LinkResult, Method, Report
from ..recover.calibration import DEFAULT_AUTOFIX_CONFIDENCE
from . import evidence, register
from .common import (
    DECISIONS_SCHEMA,
    archive_note,
    deferred_summary,
    is_safe_url,
    plural,
    replacement_url,
    status_counts,
    unsafe_replacement_reason,
)
from .groups import STATUS_ORDER, Group, group_results
from .hints import what_to_do
from .text import escape_surrogates

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).parent / "templates"

#: Listed: problems, and redirects (which `fix --update-redirects` can rewrite).
LISTED = STATUS_ORDER

#: Candidates shown per target, best first (the JSON report has them all).
MAX_SHOWN = 3
#: Below this confidence a candidate is not offered for acceptance, nor shown beside a better
#: one: the auto-fix threshold (0.9) takes a 1-in-10 risk of applying a wrong one unseen; a
#: candidate with less than a 1-in-10 chance of being right is not worth a reviewer's click.
ACCEPT_FLOOR = round(1 - DEFAULT_AUTOFIX_CONFIDENCE, 2)
#: Places of a target shown before the rest are folded away.
OPEN_PLACES = 3
#: Targets and files the summary names (the rest are counted).
SUMMARY_ROWS = 5
#: The permalink signs a page's own h1 carries when a title is read from it.
_PERMALINK_SIGNS = "\u00b6\u00a7\U0001f517"  # ¶ § 🔗

@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
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
    replacement: str  # what `fix` would write at the first place (fragment kept or dropped)
    caveat: str
    confidence: float
    level: str  # auto | review | low (evidence.level)
    level_words: str
    method: Method
    reasons: tuple[str, ...]  # why, in words
    hold: str  # why recovery holds it for review ('' if it does not)
    evidence: tuple[tuple[str, str], ...]  # the raw evidence, for the curious
    safe: bool  # http(s): clickable
    writable: bool  # http(s), or a link within the site (an internal suggestion): `fix --apply` writes it
    acceptable: bool  # writable, and likely enough to be offered (ACCEPT_FLOOR)
    unlikely: bool  # below ACCEPT_FLOOR: shown (as the best there is) but not offered
    applies: int  # places of the target that have this candidate


@dataclass(frozen=True, slots=True, kw_only=True)
class _Place:
    item: LinkResult
    file_json: str  # the exact file name as JSON, when it is shown escaped; else ""
    replacements: str  # JSON list: per choice, what `fix` writes here ('' where this place lacks it)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Row:
    id: str
    group: Group
    item: LinkResult  # the first place: its detail, context and candidates stand for the group
    host: str
    places: tuple[_Place, ...]
    choices: tuple[_Choice, ...]
    left_out: int  # weaker candidates not shown
    archived_safe: bool
    archive_note: str = ""  # the archive lookup was deferred: why
    hint: str = ""  # what to do, when nothing can be accepted


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


def _same(item: LinkResult, candidate: Candidate) -> tuple[str, str]:
    """What makes candidates of two places the same: the file an internal one leads to (each
    page spells the way there its own way) and its id, or that it keeps the place's own id
    ("=": `changelog.md#v1` and `changelog.md#v2` both moved to news.md); else the URL."""
    target = candidate.evidence.get(Evidence.TARGET) if isinstance(candidate.evidence, Mapping) else None
    if isinstance(target, str) and target:
        fragment = candidate.url.partition("#")[2]
        return target, "=" if fragment == item.link.url.partition("#")[2] else fragment
    return candidate.url, ""


def _shown_candidates(item: LinkResult) -> tuple[list[Candidate], int]:
    """The candidates shown (the best MAX_SHOWN at or above ACCEPT_FLOOR; the best one alone
    when none is), and how many are left out."""
    ranked = sorted(item.suggestions, key=lambda c: -c.confidence)
    shown = [c for c in ranked if c.confidence >= ACCEPT_FLOOR][:MAX_SHOWN] or ranked[:1]
    return shown, len(ranked) - len(shown)


def _choice(index: int, item: LinkResult, candidate: Candidate, applies: int) -> _Choice:
    replacement, caveat = replacement_url(item, candidate)
    likely = candidate.confidence >= ACCEPT_FLOOR
    return _Choice(
        index=index,
        url=candidate.url,
        replacement=replacement,
        caveat=caveat,
        confidence=candidate.confidence,
        level=evidence.level(candidate),
        level_words=evidence.LEVEL_WORDS[evidence.level(candidate)] if likely else f"unlikely (below {ACCEPT_FLOOR:.2f})",
        method=candidate.method,
        reasons=tuple(evidence.reasons(candidate)),
        hold=evidence.hold(candidate),
        evidence=tuple((str(k), _evidence_value(v)) for k, v in candidate.evidence.items()),
        safe=is_safe_url(replacement),
        writable=not unsafe_replacement_reason(replacement),
        acceptable=likely and not unsafe_replacement_reason(replacement),
        unlikely=not likely,
        applies=applies,
    )


def _row(number: int, group: Group) -> _Row:
    first = group.first
    shown, left_out = _shown_candidates(first)
    wanted = [_same(first, c) for c in shown]
    offered = [c.confidence >= ACCEPT_FLOOR for c in shown]
    places, applies = [], [0] * len(shown)
    for item in group.items:
        own = {_same(item, c): c for c in item.suggestions}
        replacements = []
        for index, key in enumerate(wanted):
            candidate = own.get(key)
            url = replacement_url(item, candidate)[0] if candidate is not None and offered[index] else ""
            # only what `fix --apply` may write is ever put in a decision
            replacements.append("" if unsafe_replacement_reason(url) else url)
            applies[index] += bool(replacements[-1])
        path = item.link.span.path
        places.append(_Place(item=item, file_json=json.dumps(path) if escape_surrogates(path) != path else "",
                             replacements=json.dumps(replacements, ensure_ascii=False) if shown else ""))
    choices = tuple(_choice(index, first, c, applies[index]) for index, c in enumerate(shown))
    return _Row(
        id=f"g{number}",
        group=group,
        item=first,
        host=_host(first),
        places=tuple(places),
        choices=choices,
        left_out=left_out,
        archived_safe=first.archived is not None and is_safe_url(first.archived.url),
        archive_note=archive_note(first),
        hint="" if any(c.acceptable for c in choices) else what_to_do(first),
    )


def _rows(report: Report) -> list[_Row]:
    groups = group_results(item for item in report.results if item.result.status in LISTED)
    return [_row(number, group) for number, group in enumerate(groups)]


def page_title(title: str) -> str:
    """A page title as shown: without the permalink sign an h1 read as the title may end with."""
    return title.rstrip().rstrip(_PERMALINK_SIGNS).rstrip()


def _summary(rows: list[_Row]) -> dict[str, Any]:
    """The summary's lists: targets with most links; files with most findings; per status, its
    links and targets."""
    files: dict[str, int] = {}
    for row in rows:
        for place in row.places:
            path = place.item.link.span.path
            files[path] = files.get(path, 0) + 1
    by_links = sorted(rows, key=lambda r: (-r.group.count, STATUS_ORDER.index(r.group.status)))
    statuses: dict[str, list[int]] = {}
    for row in rows:
        counts = statuses.setdefault(row.group.status.value, [0, 0])
        counts[0] += row.group.count
        counts[1] += 1
    ranked_files = sorted(files.items(), key=lambda kv: (-kv[1], kv[0]))
    return {
        "targets": by_links[:SUMMARY_ROWS],
        "more_targets": max(0, len(rows) - SUMMARY_ROWS),
        "files": ranked_files[:SUMMARY_ROWS],
        "more_files": max(0, len(files) - SUMMARY_ROWS),
        "statuses": [(name, links, targets) for name, (links, targets) in statuses.items()],
        "links": sum(row.group.count for row in rows),
    }


def root_relative(root: str) -> Callable[[str], str]:
    """How the report shows a file: without the report's root when under it, as the text report
    shows places (its full name stays where `fix --apply` reads it, and in a title)."""
    prefix = root.rstrip("/") + "/" if root and root != "." else ""
    return lambda file: file.removeprefix(prefix) if prefix else file


def _script_hash(script: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


@register("html")
def format_html(report: Report) -> str:
    rows = _rows(report)
    script = (TEMPLATES / "report.js").read_text(encoding="utf-8")
    style = (TEMPLATES / "report.css").read_text(encoding="utf-8")
    counts = status_counts(report)
    hosts = sorted({row.host for row in rows})
    return _environment().get_template("report.html.j2").render(
        report=report,
        rows=rows,
        summary=_summary(rows),
        counts=[(status.value, n) for status, n in counts.items() if n],
        statuses=[status.value for status in STATUS_ORDER if any(row.group.status is status for row in rows)],
        files=sorted({place.item.link.span.path for row in rows for place in row.places}),
        # a host filter only where links leave the site: with none, it would offer "(local)" alone
        hosts=hosts if any(host not in ("(local)", "(invalid)") for host in hosts) else [],
        page_title=page_title,
        plural=plural,
        short=root_relative(report.root),
        accept_floor=ACCEPT_FLOOR,
        open_places=OPEN_PLACES,
        script=script,
        script_hash=_script_hash(script),
        style=style,
        style_hash=_script_hash(style),
        decisions_schema=DECISIONS_SCHEMA,
        deferred=deferred_summary(report),
    )
