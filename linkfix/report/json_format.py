"""The `json` format: the whole run, versioned, and `read_report`/`load_report` to read it back.

The layout is defined once, by the msgspec Structs of `json_document` (which also generate the
published `schema.json`): the writer fills them and msgspec encodes them; the reader has msgspec
decode and validate a file into them, then rebuilds the model. Page text and page ids are left
out (they are large and belong to the sources); each link keeps its page's path, URL and title
plus the words around it, so a reloaded report can still be rendered and fixed.

File names that are not UTF-8 (os.fsdecode's lone surrogates \\udc80-\\udcff) are written as
JSON's own \\udcXX escapes, so they come back as the same names. msgspec refuses lone
surrogates both ways, so such a value takes Python's json instead: only reports that hold one
pay for it.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import msgspec

from ..errors import InputError
from ..model import (
    AnyReason,
    Archived,
    ArchiveLookup,
    Candidate,
    CheckResult,
    Link,
    LinkResult,
    Page,
    Redirect,
    Report,
    Span,
    Status,
    parse_reason,
)
from ..version import VERSION
from . import json_document as doc
from . import register, register_stream
from .json_document import SCHEMA_URL, SCHEMA_VERSION

__all__ = ["SCHEMA_URL", "SCHEMA_VERSION", "dump_report", "escape_lone_surrogates", "format_json", "iter_json", "load_report", "read_report"]

_encode = msgspec.json.Encoder().encode
_format = msgspec.json.format
_decode = msgspec.json.Decoder(doc.Report).decode

#: Links encoded per piece the streaming writer yields.
_BATCH = 2000


def tool_version() -> str:
    return VERSION


# ---------------------------------------------------------------------------------------------
# Writing


@register("json")
def format_json(report: Report) -> str:
    return b"".join(iter_json(report)).decode("utf-8")


@register_stream("json")
def iter_json(report: Report) -> Iterator[bytes]:
    """The file's UTF-8 bytes, piece by piece. Readable and diffable, yet fast on 100k links:
    the run's fields indented, one line per page and per link (in `json.dumps`'s spelling: ", "
    and ": " between items). A writer holds a batch of links' text at a time, never the whole
    report, and the bytes msgspec writes go to the file without a round trip through str."""
    head = msgspec.to_builtins(_head(report))
    pages = head.pop("pages")
    del head["links"]
    if not report.results:
        yield (_json_text({**head, "pages": pages, "links": []}, indent=2) + "\n").encode()
        return
    yield _json_text(head, indent=2)[:-2].encode()  # without the closing "\n}"
    yield b',\n  "pages": {\n'
    yield ",\n".join(f"    {_json_text(path)}: {_json_text(page)}" for path, page in pages.items()).encode()
    yield b'\n  },\n  "links": [\n'
    results = report.results
    for first in range(0, len(results), _BATCH):
        yield (b"    " if first == 0 else b",\n    ") + _link_lines(results[first : first + _BATCH])
    yield b"\n  ]\n}\n"


def dump_report(report: Report) -> dict[str, Any]:
    """The report as plain JSON-ready data (what `format_json` writes)."""
    document = _head(report)
    document.links = [_link_document(item) for item in report.results]
    data: dict[str, Any] = msgspec.to_builtins(document)
    return data


def count_statuses(report: Report) -> dict[str, int]:
    """Occurrences per status (every status present, zeros included) plus `total`."""
    counts = Counter(item.result.status for item in report.results)
    counts.update(report.counted)
    totals = {status.value: counts.get(status, 0) for status in Status}
    totals["total"] = report.total
    return totals


def _head(report: Report) -> doc.Report:
    """The document with its pages and without its links."""
    pages: dict[str, doc.Page] = {}
    for item in report.results:
        page = item.link.page
        if page.path not in pages:
            pages[page.path] = doc.Page(url=page.url, title=page.title, base=page.base)
    return doc.Report(
        schema=SCHEMA_URL,
        version=SCHEMA_VERSION,
        tool=doc.Tool(name="linkfix", version=tool_version()),
        started=report.started,
        duration=report.duration,
        root=report.root,
        files=report.files,
        errors=list(report.errors),
        totals=doc.Totals(**count_statuses(report)),
        pages=pages,
        links=[],
        archive_deferred=report.archive_deferred,
        rules=report.rules,
    )


def _link_document(item: LinkResult) -> doc.Link:
    link, result = item.link, item.result
    span = link.span
    # Positional, in doc.Link's field order: a keyword call costs a third more on 100k links.
    return doc.Link(
        span.path, span.line, span.column, span.start, span.end, link.page.path,
        link.url, item.resolved, item.scope, link.kind, link.tag, link.reference,
        link.anchor_text, link.context, result.status, str(result.reason), result.detail,  # msgspec encodes no str subclass
        result.http_status, result.url,
        [doc.Redirect(hop.url, hop.status, hop.location) for hop in result.redirects] if result.redirects else [],
        result.final_url, result.permanent, result.checked_at, result.from_cache,
        [_suggestion_document(c) for c in item.suggestions] if item.suggestions else [],
        None if item.archived is None else doc.Archived(item.archived.url, item.archived.datetime, item.archived.title),
        None if item.archive_lookup is None else doc.ArchiveLookup(item.archive_lookup.state, item.archive_lookup.reason, item.archive_lookup.detail),
    )  # fmt: skip


def _suggestion_document(candidate: Candidate) -> doc.Suggestion:
    return doc.Suggestion(candidate.url, candidate.confidence, candidate.method, candidate.score, _plain(candidate.evidence))


def _link_lines(items: Sequence[LinkResult]) -> bytes:
    """The links' lines, joined by ",\\n    "."""
    try:
        lines = [_format(_encode(_link_document(item)), indent=0) for item in items]
    except UnicodeEncodeError:  # a lone surrogate somewhere in the batch: those links one by one
        lines = [_json_text(_link_document(item)).encode() for item in items]
    return b",\n    ".join(lines)


def _json_text(value: Any, indent: int = 0) -> str:
    """`value` as JSON text: on one line with ", " and ": " (indent 0), or indented."""
    try:
        return _format(_encode(value), indent=indent).decode()
    except UnicodeEncodeError:
        pass
    # A lone surrogate (a file name that is not UTF-8): json writes it raw into the str, where
    # it becomes the JSON escape \udcXX (valid inside a JSON string, the only place it can be).
    text = json.dumps(
        _finite(msgspec.to_builtins(value)),
        ensure_ascii=False,
        indent=indent or None,
        separators=(",", ": ") if indent else (", ", ": "),
    )
    return escape_lone_surrogates(text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_lone_surrogates(text: str) -> str:
    """JSON text with each lone surrogate as its escape \\udcXX: valid inside a JSON string
    (the only place one can be), and the text can then be written as UTF-8."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _finite(value: Any) -> Any:
    """NaN and infinities as null, as msgspec writes them (JSON has neither)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


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
# Reading


def read_report(raw: bytes | str) -> Report:
    """Rebuild a Report from the text `format_json` wrote. Raises InputError."""
    try:
        document = _decode(raw)
    except msgspec.ValidationError as exc:
        raise _invalid(exc, _header(raw)) from None
    except msgspec.DecodeError as exc:
        if isinstance(raw, bytes) and not _is_utf8(raw):
            raise InputError("not UTF-8 text, not a linkfix JSON result") from None
        if _SURROGATE_ESCAPE.search(raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")):
            return load_report(_python_json(raw))
        raise InputError(f"not JSON ({_lower(str(exc))})") from None
    except RecursionError:
        raise InputError("JSON nested too deeply") from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text, not a linkfix JSON result") from None
    return _report(document)


def load_report(data: Any) -> Report:
    """Rebuild a Report from `format_json` output already parsed by json. Raises InputError."""
    try:
        document = msgspec.convert(data, doc.Report)
    except msgspec.ValidationError as exc:
        raise _invalid(exc, data if isinstance(data, dict) else None) from None
    return _report(document)


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _python_json(raw: bytes | str) -> Any:
    """json's parse, for the JSON escapes of lone surrogates that msgspec refuses."""

    def integer(text: str) -> int:
        # What msgspec reads (64 bits) and no more: int() of thousands of digits is slow.
        if len(text.lstrip("-")) > 20:
            raise InputError(f"report JSON: an integer of {len(text)} digits")
        return int(text)

    def no_constant(name: str) -> Any:
        raise InputError(f"not JSON ({name} is not a JSON number)")

    try:
        return json.loads(raw, parse_int=integer, parse_constant=no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise InputError("JSON nested too deeply") from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text, not a linkfix JSON result") from None


class _Header(msgspec.Struct):
    """What identifies a report, read when the whole document does not validate."""

    schema: Any = None
    version: Any = None


def _header(raw: bytes | str) -> dict[str, Any] | None:
    """The report's schema and version, or None when the document is not an object."""
    try:
        header = msgspec.json.decode(raw, type=_Header)
    except (msgspec.MsgspecError, RecursionError, UnicodeDecodeError):
        return None
    return {"schema": header.schema, "version": header.version}


def _invalid(exc: msgspec.ValidationError, header: Mapping[str, Any] | None) -> InputError:
    """The error a report that does not validate gets: a foreign or newer file said as such,
    anything else with its JSON path (`report.links[3].status: unknown value 'rotten'`)."""
    if header is not None and header.get("schema") != SCHEMA_URL:
        return InputError(f"report JSON: not a linkfix report (schema must be {SCHEMA_URL})")
    if header is not None and header.get("version") != SCHEMA_VERSION:
        version = header.get("version")
        return InputError(f"report JSON: version {version!r:.20} is not supported (this linkfix reads {SCHEMA_VERSION})")
    message, _, where = str(exc).partition(" - at `$")
    if len(message) > 160:  # a long bad value, quoted
        message = message[:150] + "…" + message[-10:]
    return InputError(f"report JSON: report{where.rstrip('`')}: {_lower(message)}")


# msgspec's words for JSON types, as a person says them.
_TYPES = {"object": "an object", "array": "an array", "str": "a string", "int": "an integer",
          "float": "a number", "bool": "true or false", "null": "null"}  # fmt: skip
_WORDING = (("Object missing required field", "missing"), ("Object contains unknown field", "unknown field"),
            ("Invalid enum value", "unknown value"), ("JSON is malformed: ", ""))  # fmt: skip


def _lower(message: str) -> str:
    for theirs, ours in _WORDING:
        message = message.replace(theirs, ours)
    message = re.sub(r"`(\w+(?: \| \w+)*)`", lambda m: " or ".join(_TYPES.get(t, f"'{t}'") for t in m[1].split(" | ")), message)
    return message[:1].lower() + message[1:]


def _report(document: doc.Report) -> Report:
    pages = {path: Page(path=path, url=page.url, title=page.title, base=page.base) for path, page in document.pages.items()}
    return Report(
        results=tuple(_link_result(index, entry, pages) for index, entry in enumerate(document.links)),
        root=document.root,
        started=document.started,
        duration=document.duration,
        files=document.files,
        errors=tuple(document.errors),
        rules=document.rules,
    )


def _reason(index: int, value: str) -> AnyReason:
    try:
        return parse_reason(value)
    except ValueError:
        raise InputError(f"report JSON: report.links[{index}].reason: unknown value {value!r:.80}") from None


def _link_result(index: int, entry: doc.Link, pages: dict[str, Page]) -> LinkResult:
    if entry.start > entry.end:
        raise InputError(f"report JSON: report.links[{index}]: bad span {entry.start}..{entry.end}")
    span = Span(path=entry.file, line=entry.line, column=entry.column, start=entry.start, end=entry.end)
    link = Link(
        url=entry.url,
        kind=entry.kind,
        span=span,
        page=pages.get(entry.page) or Page(path=entry.page),
        anchor_text=entry.anchor_text,
        context=entry.context,
        tag=entry.tag,
        reference=entry.reference,
    )
    result = CheckResult(
        url=entry.checked_url,
        status=entry.status,
        reason=_reason(index, entry.reason),
        detail=entry.detail,
        http_status=entry.http_status,
        redirects=tuple(Redirect(url=hop.url, status=hop.status, location=hop.location) for hop in entry.redirects),
        final_url=entry.final_url,
        permanent=entry.permanent,
        checked_at=entry.checked_at,
        from_cache=entry.from_cache,
    )
    suggestions = tuple(
        Candidate(url=c.url, confidence=c.confidence, method=c.method, score=c.score, evidence=c.evidence)
        for c in entry.suggestions
    )
    archived = entry.archived
    return LinkResult(
        link=link,
        resolved=entry.resolved,
        scope=entry.scope,
        result=result,
        suggestions=suggestions,
        archived=None if archived is None else Archived(url=archived.url, datetime=archived.datetime, title=archived.title),
        archive_lookup=None if entry.archive_lookup is None else ArchiveLookup(
            state=entry.archive_lookup.state, reason=entry.archive_lookup.reason, detail=entry.archive_lookup.detail),
    )
