"""The JSON report's one typed definition: the document as msgspec Structs.

The writer fills these Structs and msgspec encodes them, the reader has msgspec decode and
validate a file into them (types, enum values, ranges, unknown fields, with the JSON path of
whatever is wrong), and the published JSON Schema (`schema.json` beside this module) is
generated from them: `python -m linkfix.report.json_document > linkfix/report/schema.json`.

They describe the file, not the run: a link's line is flat (its span, link and check result
side by side) and pages are listed once, which is why they are Structs of their own rather
than the model's dataclasses encoded as they are.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from .. import model

# The report's fixed header values, as types (a Literal cannot name a constant) and as values
# (type-checked against the types: a value that differs is a mypy error).
SchemaUrl = Literal["https://linkfix.dev/schema/report-1.json"]
SchemaVersion = Literal[1]
SCHEMA_URL: SchemaUrl = "https://linkfix.dev/schema/report-1.json"
SCHEMA_VERSION: SchemaVersion = 1

Count = Annotated[int, Meta(ge=0)]


def _doc(description: str, **constraints: Any) -> Meta:
    return Meta(description=description, **constraints)


class _Struct(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """Common options: unknown fields are errors (the schema says additionalProperties: false);
    no reference cycles ever go through these objects, so the garbage collector skips them."""


class Tool(_Struct):
    """The program that wrote the report."""

    name: Literal["linkfix"]
    version: str


#: Statuses added after version 1 was published: a report written before has no count for
#: them, which reads as 0 (an addition, not an incompatible change).
ADDED_STATUSES = frozenset({model.Status.UNVERIFIED})

# One count per status, in the order of model.Status, plus the total: follows the enum.
Totals = msgspec.defstruct(
    "Totals",
    [(status.value, Count, 0) if status in ADDED_STATUSES else (status.value, Count) for status in model.Status]
    + [("total", Count)],
    bases=(_Struct,),
    module=__name__,
    kw_only=True,
)
Totals.__doc__ = "Link occurrences per status, and their total."


class Page(_Struct):
    """A page that holds links. Its text is not stored."""

    url: Annotated[str, _doc("The page's own URL or site path.")]
    title: str
    base: Annotated[str, _doc("<base href> of the page, if any.")]


class Redirect(_Struct):
    """One hop of a redirect chain."""

    url: str
    status: int
    location: str


class Suggestion(_Struct):
    """A proposed replacement for a broken link."""

    url: str
    confidence: Annotated[float, _doc("Calibrated probability that this is the right replacement.", ge=0, le=1)]
    method: Annotated[model.Method, _doc("How it was found.")]
    score: Annotated[float, _doc("Raw ranking score before calibration.")]
    evidence: Annotated[dict[str, Any], _doc("Why it is believed: query used, similarities, title match, fragment ids found.")]


class Archived(_Struct):
    """A capture of the target in a web archive."""

    url: Annotated[str, _doc("Capture URL.")]
    datetime: Annotated[str, _doc("ISO 8601 capture time, UTC.")]
    title: str


class ArchiveLookup(_Struct):
    """What became of the link's web-archive lookup. `deferred` is not "no capture": the
    archive's limits, a 429, a block or a failure kept it from this run (see `reason`); a later
    run asks again, or a run with archive_wait waits for it."""

    state: model.ArchiveState
    reason: Annotated[str, _doc("Why deferred: rate-limit, retry-after, blocked, error; empty otherwise.")]
    detail: Annotated[str, _doc("One human sentence.")]


class Link(_Struct, omit_defaults=True):
    """One occurrence of a link in a source file. (Fields with a default are left out when
    they have it: `archive_lookup` is written only when recovery asked the archive.)"""

    file: Annotated[str, _doc("Source file holding the link target.")]
    line: Annotated[int, _doc("1-based line of the target's first character.", ge=1)]
    column: Annotated[int, _doc("1-based column of the target's first character.", ge=1)]
    start: Annotated[int, _doc("Offset (characters of the decoded text) where the target starts.", ge=0)]
    end: Annotated[int, _doc("Offset just past the target: text[start:end] is the URL as written.", ge=0)]
    page: Annotated[str, _doc("Key into `pages`.")]
    url: Annotated[str, _doc("The target as written.")]
    resolved: Annotated[str, _doc("Absolute URL or site path (with #fragment) that was checked.")]
    scope: model.Scope
    kind: model.LinkKind
    tag: Annotated[str, _doc("HTML element and attribute, e.g. a[href]; empty for markdown syntax.")]
    reference: Annotated[str, _doc("Label of a reference-style link.")]
    anchor_text: str
    context: Annotated[str, _doc("Words around the link in its page.")]
    status: model.Status
    reason: Annotated[str, _doc("Short code: 404, missing-file, missing-fragment, dns, soft-404, ...")]
    detail: Annotated[str, _doc("One human sentence.")]
    http_status: int | None
    checked_url: Annotated[str, _doc("The target as requested (without fragment, after remaps).")]
    redirects: list[Redirect]
    final_url: Annotated[str, _doc("End of the redirect chain, when there was one.")]
    permanent: Annotated[bool, _doc("Every hop of the chain was permanent (301/308).")]
    checked_at: Annotated[float, _doc("Unix time of the check.")]
    from_cache: bool
    suggestions: Annotated[list[Suggestion], _doc("Best first.")]
    archived: Archived | None
    archive_lookup: Annotated[ArchiveLookup | None, _doc("The archive lookup for a broken link's recovery; null when recovery did not need the archive.")] = None


class Report(_Struct, omit_defaults=True):
    """One linkfix run: every link occurrence with its place in the source, its check outcome
    and the replacements found for it. Written by `linkfix check --format json`, read back by
    `linkfix report` and `linkfix fix --from`. Strings are JSON strings; a file name that is
    not UTF-8 keeps its undecodable bytes as lone surrogate escapes (\\udc80-\\udcff, Python's
    os.fsdecode), so it names the same file when read back."""

    schema: SchemaUrl
    version: Annotated[SchemaVersion, _doc("Bumped on any incompatible change; readers refuse other versions.")]
    tool: Tool
    started: Annotated[str, _doc("ISO 8601 time the run started (empty when unknown).")]
    duration: Annotated[float, _doc("Wall time of the run in seconds.", ge=0)]
    root: Annotated[str, _doc("Site root the run resolved root-relative links against.")]
    files: Annotated[int, _doc("Source files read.", ge=0)]
    errors: Annotated[list[str], _doc("Inputs that could not be read, as 'path: reason'.")]
    totals: Totals  # type: ignore[valid-type]
    pages: Annotated[dict[str, Page], _doc("The pages that hold links, by source path.")]
    links: list[Link]
    archive_deferred: Annotated[Count, _doc("Broken links (dead URLs) whose archive lookup was deferred to a later run (left out when 0).")] = 0
    rules: Annotated[str, _doc("Whose rules resolved the links of a MkDocs-family project, and what said so "
                               "(\"Zensical's rules (zensical.toml)\"; left out for other inputs).")] = ""


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the report, as published in `schema.json`."""
    (_,), components = msgspec.json.schema_components([Report], ref_template="#/$defs/{name}")
    root = components.pop("Report")
    root["title"] = "linkfix report"
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_URL, **root, "$defs": components}
    return _tidy_mapping(schema)


def _tidy_mapping(value: dict[str, Any]) -> dict[str, Any]:
    """Descriptions on one line (msgspec takes docstrings as they are indented), and the
    alternatives of an anyOf in one order (msgspec versions list them differently)."""
    tidy: dict[str, Any] = {key: " ".join(item.split()) if key == "description" else _tidy(item) for key, item in value.items()}
    if "anyOf" in tidy:
        tidy["anyOf"] = sorted(tidy["anyOf"], key=lambda option: json.dumps(option, sort_keys=True))
    return tidy


def _tidy(value: object) -> object:
    if isinstance(value, dict):
        return _tidy_mapping(value)
    if isinstance(value, list):
        return [_tidy(item) for item in value]
    return value


def schema_text() -> str:
    """`json_schema()` as `schema.json` holds it."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(schema_text())
