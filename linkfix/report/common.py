"""What several formats share: which links are problems, and in what order."""

from __future__ import annotations

import re
import time
import unicodedata
from datetime import datetime
from urllib.parse import urlsplit

from ..config.durations import say_duration
from ..model import Candidate, Evidence, LinkResult, Report, Scope, Status
from . import evidence

#: Schemes a rewrite may introduce, and a report may make clickable: a suggestion found on the
#: web is data, not trusted code.
SAFE_SCHEMES = frozenset({"http", "https"})

#: What the HTML report's decisions file declares and `linkfix fix --apply` checks.
DECISIONS_SCHEMA = "https://linkfix.dev/schema/decisions-1.json"

#: Statuses reported one by one (the others are only counted): broken fails a run; blocked,
#: timeout and error could not be verified and deserve a look; unverified links need the site
#: to be built to tell (a source check says which, and why, so that nothing passes silently).
PROBLEMS = (Status.BROKEN, Status.ERROR, Status.TIMEOUT, Status.BLOCKED, Status.UNVERIFIED)


def plural(n: int, noun: str, many: str = "") -> str:
    """'1 target', '2 targets': a count with its noun (`many` where it is not noun + 's')."""
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


def problems(report: Report) -> list[LinkResult]:
    """Problem links sorted by file, line and column."""
    return sorted(
        (item for item in report.results if item.result.status in PROBLEMS),
        key=lambda item: (item.link.span.path, item.link.span.line, item.link.span.column),
    )


def top_suggestion(item: LinkResult) -> Candidate | None:
    return max(item.suggestions, key=lambda c: c.confidence, default=None)


def archive_note(item: LinkResult) -> str:
    """'archive lookup deferred (rate-limit): why' when the link's archive lookup did not happen
    in this run (which is not "no capture"); '' otherwise."""
    lookup = item.archive_lookup
    if lookup is None or not lookup.deferred:
        return ""
    return f"archive lookup deferred ({lookup.reason}): {lookup.detail}" if lookup.detail else f"archive lookup deferred ({lookup.reason})"


def follow_up(item: LinkResult, suggested: str = "suggested") -> list[str]:
    """What a plain-text format says after a problem link's headline, one line each: the top
    suggestion and its evidence in words, else the archived copy; a deferred archive lookup."""
    lines = []
    top = top_suggestion(item)
    if top is not None:
        lines.append(f"{suggested}: {top.url} ({top.method}, confidence {top.confidence:.2f})")
        why = evidence.words(top)
        if why:
            lines.append(why)
    elif item.archived is not None:
        lines.append(f"archived copy: {item.archived.url}")
    note = archive_note(item)
    if note:
        lines.append(note)
    return lines


def deferred_lookups(report: Report) -> int:
    """Broken links whose archive lookup was deferred (each dead URL once)."""
    return report.archive_deferred


def deferred_summary(report: Report) -> str:
    """'3 archive lookups deferred (run again, or --archive-wait)'; '' when none was."""
    n = deferred_lookups(report)
    if not n:
        return ""
    return f"{plural(n, 'archive lookup')} deferred (run again, or --archive-wait)"


def cache_summary(report: Report) -> str:
    """How many external URLs' results came from the cache rather than a request of this run
    ('' when none did): a run on a warm cache checks nothing new, and a reader (in CI above all)
    must not take cached results for fresh ones. 'all 8 external results from the cache (the
    oldest 20 h old): none checked in this run'."""
    checked: dict[str, LinkResult] = {}
    for item in report.results:
        if item.scope is Scope.EXTERNAL and item.result.status not in (Status.EXCLUDED, Status.UNSUPPORTED):
            checked.setdefault(item.resolved.partition("#")[0], item)
    cached = [item.result.checked_at for item in checked.values() if item.result.from_cache]
    if not cached:
        return ""
    if len(cached) < len(checked):
        return f"{len(cached)} of {len(checked)} external results from the cache"
    oldest = say_duration(_started(report) - min(cached))
    return f"all {plural(len(cached), 'external result')} from the cache (the oldest {oldest} old): none checked in this run"


def _started(report: Report) -> float:
    try:
        return datetime.fromisoformat(report.started).timestamp()
    except ValueError:
        return time.time()


def status_counts(report: Report) -> dict[Status, int]:
    counts = {status: report.counted.get(status, 0) for status in Status}
    for item in report.results:
        counts[item.result.status] += 1
    return counts


def fragment_of(url: str) -> str:
    return url.partition("#")[2]


def replacement_url(item: LinkResult, candidate: Candidate) -> tuple[str, str]:
    """The URL to write for `candidate`, and a caveat ('' if none).

    The link's #fragment is kept when the candidate page is known to have that id
    (`evidence["ids"]`, the ids recovery saw on it); otherwise it is dropped and said so.
    """
    fragment = fragment_of(item.link.url)
    if not fragment or "#" in candidate.url:
        return candidate.url, ""
    ids = candidate.evidence.get(Evidence.IDS)
    if isinstance(ids, (list, tuple, set, frozenset)) and fragment in ids:
        return f"{candidate.url}#{fragment}", ""
    if ids is None:
        return candidate.url, f"#{fragment} dropped: not known whether {candidate.url} has that id"
    return candidate.url, f"#{fragment} dropped: {candidate.url} has no such id"


#: Unicode categories of characters that do not show as themselves: controls (C0, DEL, C1),
#: format characters (bidi overrides and marks, zero-width ones), surrogates, and separators
#: (spaces, U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR).
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zs", "Zl", "Zp"})


def is_invisible(char: str) -> bool:
    return unicodedata.category(char) in INVISIBLE_CATEGORIES


def is_safe_url(url: str) -> bool:
    """An http(s) URL with a host, that may be written into a source or made clickable."""
    return not unsafe_url_reason(url)


def unsafe_replacement_reason(url: str) -> str:
    """Why `url` may not be written into a source as a link target ('' when it may): an http(s)
    URL (see `unsafe_url_reason`), or a reference within the site: a relative path, `/path`,
    `?query` or `#fragment`, without scheme or host (an internal suggestion)."""
    if not is_site_reference(url):
        return unsafe_url_reason(url)
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in url):
        return "it holds control characters"
    if "\\" in url:
        return "it holds a backslash (browsers read it as '/')"
    return ""


def is_site_reference(url: str) -> bool:
    """A non-empty reference without scheme or host: a place within the same site."""
    head = re.split(r"[/?#]", url, maxsplit=1)[0]
    return bool(url) and ":" not in head and not url.startswith("//")


def unsafe_url_reason(url: str) -> str:
    """Why `url` may not be written into a source or made clickable ('' when it may).

    Controls (C0, DEL, C1) and lone surrogates are refused anywhere: no URL needs them, and
    they end lines or break encoding. Other invisible characters (bidi overrides, U+2028) are
    refused in the host, where they would disguise it; elsewhere the fixer percent-encodes them.
    """
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in url):
        return "it holds control characters"
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return "not a valid URL"
    if parts.scheme.lower() not in SAFE_SCHEMES or not parts.netloc:
        return "only http(s) URLs are written"
    if any(is_invisible(c) for c in parts.netloc):
        return "its host name holds invisible characters"
    return ""
