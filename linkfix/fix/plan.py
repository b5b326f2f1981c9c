"""Decide which links to rewrite, and turn those decisions into file edits.

Planning is pure: `plan_fixes` reads a Report (plus, optionally, each URL's broken history)
and says, for every link occurrence, either what to write instead or why it is left alone.
`plan_decisions` does the same for a reviewer's decisions file from the HTML report.
`prepare_changes` reads the files, checks that each span still holds the link the report saw,
and computes the new text; `write_changes` writes it with `linkfix.fix.patch`'s safe writer.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol

from ..errors import InputError, PatchError
from ..model import Candidate, LinkKind, LinkResult, Report, Span, Status
from .patch import Edit, Source, apply_file_edits, format_target, patched_text, read_source, unified_diff, writable_path
from ..report.common import DECISIONS_SCHEMA, fragment_of, is_safe_url, replacement_url, unsafe_url_reason

DAY = 86400.0
#: `Candidate.method` of an archived copy: a last resort, written only with --archive-fallback.
ARCHIVE_METHOD = "archive"


@dataclass(frozen=True, slots=True, kw_only=True)
class Fix:
    """Rewrite the target at `span` (which held `url`) to `new_url`."""

    span: Span
    url: str  # the target as the report saw it
    kind: LinkKind
    tag: str = ""
    new_url: str
    method: str  # suggestion method, "redirect", "archive" or "decision"
    confidence: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Note:
    """Something a person should know about one link: why it was not rewritten, or a caveat."""

    span: Span
    url: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FixPlan:
    fixes: tuple[Fix, ...] = ()
    notes: tuple[Note, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class FixOptions:
    min_confidence: float = 0.0  # 0: DEFAULT_AUTOFIX_CONFIDENCE
    update_redirects: bool = False
    archive_fallback: bool = False
    confirm_runs: int = 1
    confirm_days: float = 0.0

    @property
    def threshold(self) -> float:
        if self.min_confidence:
            return self.min_confidence
        # Late import: `linkfix.recover` loads the whole recovery stack (word lists included).
        from ..recover.calibration import DEFAULT_AUTOFIX_CONFIDENCE

        return DEFAULT_AUTOFIX_CONFIDENCE


class HistoryLike(Protocol):
    """What `history(url)` returns; linkfix.store.cache.History fits."""

    first_broken: float
    last_broken: float
    broken_runs: int


History = Callable[[str], HistoryLike]


@dataclass(frozen=True, slots=True, kw_only=True)
class FileChange:
    path: str  # as the report names it
    source: Source
    after: str
    edits: tuple[Edit, ...]

    @property
    def diff(self) -> str:
        return unified_diff(self.path, self.source.text, self.after)


# ---------------------------------------------------------------------------------------------
# Planning from a report


def plan_fixes(report: Report, options: FixOptions, history: History | None = None) -> FixPlan:
    fixes: list[Fix] = []
    notes: list[Note] = []
    for item in report.results:
        fix, messages = _plan_one(item, options, history)
        if fix is not None:
            fixes.append(fix)
        notes.extend(Note(span=item.link.span, url=item.link.url, message=m) for m in messages)
    return _without_conflicts(fixes, notes)


def _plan_one(item: LinkResult, options: FixOptions, history: History | None) -> tuple[Fix | None, list[str]]:
    result = item.result
    if result.status is Status.REDIRECTED:
        if options.update_redirects and result.permanent and is_safe_url(result.final_url):
            return _fix(item, _with_fragment(result.final_url, item.link.url), "redirect", None), []
        return None, []
    if result.status is not Status.BROKEN:
        return None, []
    if not _confirmed(result.url, options, history):
        return None, [_unconfirmed_message(result.url, options, history)]
    messages: list[str] = []
    candidate = max((c for c in item.suggestions if c.method != ARCHIVE_METHOD), key=_confidence, default=None)
    if candidate is not None and candidate.confidence >= options.threshold:
        new_url, caveat = replacement_url(item, candidate)
        if caveat:
            messages.append(caveat)
        if not is_safe_url(new_url):
            messages.append(f"suggestion {new_url!r} refused: {unsafe_url_reason(new_url)}")
        else:
            return _fix(item, new_url, candidate.method, candidate.confidence), messages
    elif candidate is not None:
        messages.append(
            f"best suggestion {candidate.url} has confidence {candidate.confidence:.2f} "
            f"< {options.threshold:.2f}; review it in the HTML report"
        )
    if options.archive_fallback:
        archived = _archived_url(item)
        if archived:
            return _fix(item, archived, ARCHIVE_METHOD, None), messages
    if candidate is None:
        messages.append("no replacement found")
    return None, messages


def _confidence(candidate: Candidate) -> float:
    return candidate.confidence


def _archived_url(item: LinkResult) -> str:
    """The archived copy to link instead: the report's, else the best archive candidate."""
    urls = [item.archived.url] if item.archived is not None else []
    urls += [c.url for c in sorted(item.suggestions, key=_confidence, reverse=True) if c.method == ARCHIVE_METHOD]
    return next((url for url in urls if is_safe_url(url)), "")


def _fix(item: LinkResult, new_url: str, method: str, confidence: float | None) -> Fix:
    link = item.link
    return Fix(span=link.span, url=link.url, kind=link.kind, tag=link.tag, new_url=new_url, method=method, confidence=confidence)


def _with_fragment(new_url: str, old_url: str) -> str:
    """A redirect keeps the fragment the link asked for (browsers carry it over)."""
    fragment = fragment_of(old_url)
    return f"{new_url.partition('#')[0]}#{fragment}" if fragment and "#" not in new_url else new_url


def _confirmed(url: str, options: FixOptions, history: History | None) -> bool:
    if options.confirm_runs <= 1 and options.confirm_days <= 0:
        return True
    if history is None:
        return False  # asked to wait for evidence we do not have
    seen = history(url)
    days = (seen.last_broken - seen.first_broken) / DAY if seen.broken_runs else 0.0
    return seen.broken_runs >= options.confirm_runs and days >= options.confirm_days


def _unconfirmed_message(url: str, options: FixOptions, history: History | None) -> str:
    if history is None:
        return "held back: confirm_runs/confirm_days need the cache history (cache is off)"
    seen = history(url)
    days = (seen.last_broken - seen.first_broken) / DAY if seen.broken_runs else 0.0
    return (
        f"held back: broken in {seen.broken_runs} run(s) over {days:.1f} day(s); "
        f"needs {options.confirm_runs} run(s) over {options.confirm_days:g} day(s)"
    )


def _without_conflicts(fixes: list[Fix], notes: list[Note]) -> FixPlan:
    """One span (a shared reference definition) gets one new URL, or none if its uses disagree."""
    by_span: dict[tuple[str, int, int], list[Fix]] = defaultdict(list)
    for fix in fixes:
        by_span[(fix.span.path, fix.span.start, fix.span.end)].append(fix)
    kept: list[Fix] = []
    for group in by_span.values():
        if len({f.new_url for f in group}) == 1:
            kept.append(group[0])
        else:
            choices = ", ".join(sorted({f.new_url for f in group}))
            notes.append(Note(span=group[0].span, url=group[0].url, message=f"uses of this target disagree ({choices}); left alone"))
    kept.sort(key=lambda f: (f.span.path, f.span.start))
    return FixPlan(fixes=tuple(kept), notes=tuple(notes))


# ---------------------------------------------------------------------------------------------
# Reviewer decisions (written by the HTML report)


def plan_decisions(data: Any) -> FixPlan:
    """The accepted decisions of a decisions file (already parsed JSON). Raises InputError."""
    if not isinstance(data, dict) or data.get("schema") != DECISIONS_SCHEMA:
        raise InputError(f"decisions file: not a linkfix decisions file (schema must be {DECISIONS_SCHEMA})")
    if data.get("version") != 1:
        raise InputError(f"decisions file: version {data.get('version')!r} is not supported")
    entries = data.get("decisions")
    if not isinstance(entries, list):
        raise InputError("decisions file: 'decisions' must be a list")
    fixes: list[Fix] = []
    notes: list[Note] = []
    for index, entry in enumerate(entries):
        decision = _decision(index, entry)
        if decision is None:
            continue
        if not is_safe_url(decision.new_url):
            reason = unsafe_url_reason(decision.new_url)
            notes.append(Note(span=decision.span, url=decision.url, message=f"{decision.new_url!r} refused: {reason}"))
            continue
        fixes.append(decision)
    return _without_conflicts(fixes, notes)


def _decision(index: int, entry: Any) -> Fix | None:
    where = f"decisions file: decisions[{index}]"
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected an object")
    if entry.get("decision") not in ("accept", "reject"):
        raise InputError(f"{where}.decision: expected 'accept' or 'reject'")
    if entry["decision"] == "reject":
        return None
    wanted = {"file": str, "line": int, "column": int, "start": int, "end": int, "url": str, "kind": str, "replacement": str}
    for key, kind in wanted.items():
        value = entry.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise InputError(f"{where}.{key}: missing or not a {kind.__name__}")
    try:
        link_kind = LinkKind(entry["kind"])
    except ValueError:
        raise InputError(f"{where}.kind: unknown link kind {entry['kind']!r:.40}") from None
    tag = entry.get("tag", "")
    if not isinstance(tag, str):
        raise InputError(f"{where}.tag: expected a string")
    if not 0 <= entry["start"] <= entry["end"]:
        raise InputError(f"{where}: bad span {entry['start']}..{entry['end']}")
    span = Span(path=entry["file"], line=entry["line"], column=entry["column"], start=entry["start"], end=entry["end"])
    return Fix(span=span, url=entry["url"], kind=link_kind, tag=tag, new_url=entry["replacement"], method="decision")


# ---------------------------------------------------------------------------------------------
# From fixes to file changes


_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _holds(written: str, fix: Fix) -> bool:
    """Does the source text at the span still spell the link the report saw?"""
    if written == fix.url:
        return True
    if fix.tag or fix.kind is LinkKind.HTML:
        return html.unescape(written) == fix.url
    return _MD_ESCAPE.sub(r"\1", written) == fix.url


def prepare_changes(plan: FixPlan, *, base: Path, root: Path | None = None) -> tuple[list[FileChange], list[str]]:
    """Read every file the plan touches; returns the changes and, per refused file, why.

    Paths are relative to `base`. With `root`, a path that leads out of it (`..`, an absolute
    path, a symlink) is refused before it is read. A file whose spans no longer hold the links
    the report saw was edited after the check: it is refused as a whole (its other edits could
    be just as stale)."""
    by_file: dict[str, list[Fix]] = defaultdict(list)
    for fix in plan.fixes:
        by_file[fix.span.path].append(fix)
    changes: list[FileChange] = []
    problems: list[str] = []
    for path, fixes in sorted(by_file.items()):
        try:
            changes.append(_prepare_file(path, fixes, base, root))
        except PatchError as exc:
            problems.append(str(exc))
    return changes, problems


def _prepare_file(path: str, fixes: Iterable[Fix], base: Path, root: Path | None) -> FileChange:
    source = read_source(writable_path(base / path, root) if root is not None else base / path)
    text = source.text
    edits: list[Edit] = []
    for fix in fixes:
        start, end = fix.span.start, fix.span.end
        written = text[start:end] if end <= len(text) else None
        if written is None or not _holds(written, fix):
            raise PatchError(
                f"{path}:{fix.span.line}: no longer holds {fix.url!r:.120} where the report saw it; "
                "the file changed since the check, run it again"
            )
        new = format_target(fix.new_url, kind=fix.kind, tag=fix.tag, span=fix.span, text=text)
        edits.append(Edit(span=fix.span, old=written, new=new))
    after = patched_text(source, edits)
    return FileChange(path=path, source=source, after=after, edits=tuple(edits))


def write_changes(changes: list[FileChange], *, base: Path, root: Path) -> tuple[list[str], list[str]]:
    """Write every change whose text differs. Returns (changed paths, problems)."""
    changed: list[str] = []
    problems: list[str] = []
    for change in changes:
        if change.after == change.source.text:
            continue
        try:
            if apply_file_edits(base / change.path, list(change.edits), expected_digest=change.source.digest, root=root):
                changed.append(change.path)
        except PatchError as exc:
            problems.append(str(exc))
    return changed, problems
