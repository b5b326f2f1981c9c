"""The `json` format: the whole run, versioned, and `load_report` to read it back.

The layout is documented by `schema.json` next to this module. Page text and page ids are
left out (they are large and belong to the sources); each link keeps its page's path, URL and
title plus the words around it, so a reloaded report can still be rendered and fixed.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from json.encoder import encode_basestring
from types import EllipsisType
from typing import Iterator, Any, Callable, Mapping, TypeVar

from .. import __version__
from ..errors import InputError
from ..model import (
    Archived,
    Candidate,
    CheckResult,
    Link,
    LinkKind,
    LinkResult,
    Page,
    Reason,
    Redirect,
    Report,
    Scope,
    Span,
    Status,
)
from . import register, register_stream

SCHEMA_URL = "https://linkfix.dev/schema/report-1.json"
SCHEMA_VERSION = 1

_ONE_LINE = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))
_compact = _ONE_LINE.encode
#: A str's JSON text as `_ONE_LINE` writes it (json's C function when _json is there).
_string = encode_basestring


def tool_version() -> str:
    return __version__


@register("json")
def format_json(report: Report) -> str:
    return "".join(iter_json(report))


@register_stream("json")
def iter_json(report: Report) -> Iterator[str]:
    """Readable and diffable, yet fast on 100k links: the run's fields indented, one line per
    page and per link (json's C encoder only runs without `indent`; a link's line is what that
    encoder writes for `_dump_link`, assembled by `_encode_link`). Produced in pieces, so a
    writer holds one link's text at a time rather than the whole report."""
    data = _dump_head(report)
    pages = data.pop("pages")
    if not report.results:
        yield json.dumps({**data, "pages": pages, "links": []}, indent=2, ensure_ascii=False) + "\n"
        return
    compact = _compact
    yield json.dumps(data, indent=2, ensure_ascii=False)[:-2]  # without the closing "\n}"
    yield ',\n  "pages": {\n'
    yield ",\n".join(f"    {compact(path)}: {compact(page)}" for path, page in pages.items())
    yield '\n  },\n  "links": [\n'
    separator = "    "
    for item in report.results:
        yield separator + _encode_link(item)
        separator = ",\n    "
    yield "\n  ]\n}\n"


def dump_report(report: Report) -> dict[str, Any]:
    """The report as plain JSON-ready data (what `format_json` serialises)."""
    return {**_dump_head(report), "links": [_dump_link(item) for item in report.results]}


def _dump_head(report: Report) -> dict[str, Any]:
    """Everything but the links."""
    pages: dict[str, dict[str, str]] = {}
    for item in report.results:
        page = item.link.page
        pages.setdefault(page.path, {"url": page.url, "title": page.title, "base": page.base})
    return {
        "schema": SCHEMA_URL,
        "version": SCHEMA_VERSION,
        "tool": {"name": "linkfix", "version": tool_version()},
        "started": report.started,
        "duration": report.duration,
        "root": report.root,
        "files": report.files,
        "errors": list(report.errors),
        "totals": count_statuses(report),
        "pages": pages,
    }


def count_statuses(report: Report) -> dict[str, int]:
    """Occurrences per status (every status present, zeros included) plus `total`."""
    counts = Counter(item.result.status for item in report.results)
    totals = {status.value: counts.get(status, 0) for status in Status}
    totals["total"] = len(report.results)
    return totals


def _dump_link(item: LinkResult) -> dict[str, Any]:
    link, result = item.link, item.result
    return {
        "file": link.span.path,
        "line": link.span.line,
        "column": link.span.column,
        "start": link.span.start,
        "end": link.span.end,
        "page": link.page.path,
        "url": link.url,
        "resolved": item.resolved,
        "scope": item.scope.value,
        "kind": link.kind.value,
        "tag": link.tag,
        "reference": link.reference,
        "anchor_text": link.anchor_text,
        "context": link.context,
        "status": result.status.value,
        "reason": result.reason,
        "detail": result.detail,
        "http_status": result.http_status,
        "checked_url": result.url,
        "redirects": _dump_redirects(result.redirects),
        "final_url": result.final_url,
        "permanent": result.permanent,
        "checked_at": result.checked_at,
        "from_cache": result.from_cache,
        "suggestions": _dump_suggestions(item),
        "archived": None if item.archived is None else _dump_archived(item.archived),
    }


def _dump_redirects(redirects: Any) -> list[dict[str, Any]]:
    return [{"url": r.url, "status": r.status, "location": r.location} for r in redirects]


def _dump_suggestions(item: LinkResult) -> list[dict[str, Any]]:
    return [
        {"url": c.url, "confidence": c.confidence, "method": c.method, "score": c.score, "evidence": _plain(c.evidence)}
        for c in item.suggestions
    ]


def _dump_archived(archived: Archived) -> dict[str, Any]:
    return {"url": archived.url, "datetime": archived.datetime, "title": archived.title}


def _encode_link(item: LinkResult) -> str:
    """`_compact(_dump_link(item))`, the same text at about half the cost.

    The keys are written once in the f-string and each value is encoded directly (strings by
    json's C function), without a dict per link or the encoder's walk over it. A link with a
    value of any other type than the usual ones takes the generic path (which also raises what
    it always raised).
    """
    link, result = item.link, item.result
    span = link.span
    line, column, start, end = span.line, span.column, span.start, span.end
    http_status, checked_at = result.http_status, result.checked_at
    permanent, from_cache = result.permanent, result.from_cache
    # Exact types only: a bool is an int, and json writes NaN and Infinity its own way.
    if not (
        line.__class__ is column.__class__ is start.__class__ is end.__class__ is int
        and (http_status is None or http_status.__class__ is int)
        and checked_at.__class__ is float
        and checked_at - checked_at == 0.0  # finite
        and permanent.__class__ is from_cache.__class__ is bool
    ):
        return _compact(_dump_link(item))
    redirects = result.redirects
    try:
        # The same text is usually written twice or three times: encode it once.
        file = _string(span.path)
        url = _string(link.url)
        resolved = url if item.resolved == link.url else _string(item.resolved)
        checked_url = resolved if result.url == item.resolved else _string(result.url)
        return (
            f'{{"file": {file}, "line": {line}, "column": {column}, "start": {start}, "end": {end}, '
            f'"page": {file if link.page.path == span.path else _string(link.page.path)}, '
            f'"url": {url}, "resolved": {resolved}, '
            # `_value_` is what Enum.value returns, minus a descriptor call (three per link).
            f'"scope": {_string(item.scope._value_)}, "kind": {_string(link.kind._value_)}, '
            f'"tag": {_string(link.tag)}, "reference": {_string(link.reference)}, '
            f'"anchor_text": {_string(link.anchor_text)}, "context": {_string(link.context)}, '
            f'"status": {_string(result.status._value_)}, "reason": {_string(result.reason)}, '
            f'"detail": {_string(result.detail)}, "http_status": {"null" if http_status is None else http_status}, '
            f'"checked_url": {checked_url}, '
            f'"redirects": {_encode_redirects(redirects) if redirects else "[]"}, '
            f'"final_url": {_string(result.final_url)}, "permanent": {"true" if permanent else "false"}, '
            f'"checked_at": {checked_at!r}, "from_cache": {"true" if from_cache else "false"}, '
            f'"suggestions": {_compact(_dump_suggestions(item)) if item.suggestions else "[]"}, '
            f'"archived": {"null" if item.archived is None else _compact(_dump_archived(item.archived))}}}'
        )
    except (TypeError, AttributeError):  # a str field holding something else, a plain-str status
        return _compact(_dump_link(item))


def _encode_redirects(redirects: Any) -> str:
    hops = []
    for hop in redirects:
        if hop.status.__class__ is not int:
            return _compact(_dump_redirects(redirects))
        hops.append(f'{{"url": {_string(hop.url)}, "status": {hop.status}, "location": {_string(hop.location)}}}')
    return f"[{', '.join(hops)}]"


def _plain(value: Any) -> Any:
    """Evidence is free-form: make it JSON (tuples/sets become lists, unknowns become text)."""
    # Cheap exact-type checks first: an ABC isinstance is slow on 100k links.
    if value is None or value.__class__ in (str, int, bool):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)  # JSON has no NaN/Infinity
    if isinstance(value, (dict, Mapping)):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v) for v in value), key=str)
    if isinstance(value, (str, int)):  # subclasses (enums and the like)
        return value
    return str(value)


# ---------------------------------------------------------------------------------------------
# Loading


T = TypeVar("T")


class _Reader:
    """Typed field access that turns any shape problem into one InputError naming the field."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise InputError(f"report JSON: {where}: expected an object, got {type(data).__name__}")
        self.data = data
        self.where = where

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        try:
            value = self.data[key]
        except KeyError:
            if default is ...:
                raise InputError(f"report JSON: {self.where}: missing '{key}'") from None
            return default
        if value is None and default is None:
            return None
        # bool is an int subclass: true/false never pass for a number.
        if not isinstance(value, kind) or (value.__class__ is bool and kind is not bool):
            raise InputError(f"report JSON: {self.where}.{key}: unexpected value {value!r:.80}")
        return value

    def enum(self, key: str, enum: Callable[[str], T], default: str | EllipsisType = ...) -> T:
        value = self.get(key, str, default)
        try:
            return enum(value)
        except ValueError:
            raise InputError(f"report JSON: {self.where}.{key}: unknown value {value!r:.80}") from None


def load_report(data: dict) -> Report:
    """Rebuild a Report from `format_json` output (already parsed). Raises InputError."""
    top = _Reader(data, "report")
    if top.get("schema", str, "") != SCHEMA_URL:
        raise InputError(f"report JSON: not a linkfix report (schema must be {SCHEMA_URL})")
    version = top.get("version", int)
    if version != SCHEMA_VERSION:
        raise InputError(f"report JSON: version {version} is not supported (this linkfix reads {SCHEMA_VERSION})")
    pages_data = top.get("pages", dict, {})
    pages = {path: _load_page(path, entry) for path, entry in pages_data.items()}
    links = top.get("links", list)
    results = tuple(_load_link(i, entry, pages) for i, entry in enumerate(links))
    errors = top.get("errors", list, [])
    if not all(isinstance(e, str) for e in errors):
        raise InputError("report JSON: report.errors: expected a list of strings")
    return Report(
        results=results,
        root=top.get("root", str, ""),
        started=top.get("started", str, ""),
        duration=float(top.get("duration", (int, float), 0.0)),
        files=top.get("files", int, 0),
        errors=tuple(errors),
    )


def _load_page(path: str, entry: Any) -> Page:
    r = _Reader(entry, f"pages[{path!r}]")
    return Page(path=path, url=r.get("url", str, ""), title=r.get("title", str, ""), base=r.get("base", str, ""))


def _load_link(index: int, entry: Any, pages: dict[str, Page]) -> LinkResult:
    r = _Reader(entry, f"links[{index}]")
    path = r.get("file", str)
    page_path = r.get("page", str, path)
    page = pages.get(page_path) or Page(path=page_path)
    span = Span(
        path=path,
        line=r.get("line", int),
        column=r.get("column", int),
        start=r.get("start", int),
        end=r.get("end", int),
    )
    if not 0 <= span.start <= span.end:
        raise InputError(f"report JSON: links[{index}]: bad span {span.start}..{span.end}")
    link = Link(
        url=r.get("url", str),
        kind=r.enum("kind", LinkKind),
        span=span,
        page=page,
        anchor_text=r.get("anchor_text", str, ""),
        context=r.get("context", str, ""),
        tag=r.get("tag", str, ""),
        reference=r.get("reference", str, ""),
    )
    redirects = tuple(_load_redirect(index, i, hop) for i, hop in enumerate(r.get("redirects", list, [])))
    result = CheckResult(
        url=r.get("checked_url", str, r.get("resolved", str)),
        status=r.enum("status", Status),
        reason=r.enum("reason", Reason, ""),
        detail=r.get("detail", str, ""),
        http_status=r.get("http_status", int, None),
        redirects=redirects,
        final_url=r.get("final_url", str, ""),
        permanent=r.get("permanent", bool, False),
        checked_at=float(r.get("checked_at", (int, float), 0.0)),
        from_cache=r.get("from_cache", bool, False),
    )
    suggestions = tuple(_load_candidate(index, i, c) for i, c in enumerate(r.get("suggestions", list, [])))
    archived_data = r.get("archived", dict, None)
    archived = None
    if archived_data is not None:
        a = _Reader(archived_data, f"links[{index}].archived")
        archived = Archived(url=a.get("url", str), datetime=a.get("datetime", str), title=a.get("title", str, ""))
    return LinkResult(
        link=link,
        resolved=r.get("resolved", str),
        scope=r.enum("scope", Scope),
        result=result,
        suggestions=suggestions,
        archived=archived,
    )


def _load_redirect(index: int, hop: int, entry: Any) -> Redirect:
    r = _Reader(entry, f"links[{index}].redirects[{hop}]")
    return Redirect(url=r.get("url", str), status=r.get("status", int), location=r.get("location", str))


def _load_candidate(index: int, i: int, entry: Any) -> Candidate:
    r = _Reader(entry, f"links[{index}].suggestions[{i}]")
    confidence = float(r.get("confidence", (int, float)))
    if not 0.0 <= confidence <= 1.0:
        raise InputError(f"report JSON: links[{index}].suggestions[{i}].confidence: not in [0, 1]: {confidence}")
    return Candidate(
        url=r.get("url", str),
        confidence=confidence,
        method=r.get("method", str),
        score=float(r.get("score", (int, float), 0.0)),
        evidence=r.get("evidence", dict, {}),
    )
