"""Decide which links to rewrite.

Planning is pure: `plan_fixes` reads a Report (plus, optionally, each URL's broken history)
and says, for every link occurrence, either what to write instead or why it is left alone.
`plan_decisions` does the same for a reviewer's decisions file from the HTML report. Turning
a plan into file edits is `linkfix.fix.changes`'s job.

A report or a decisions file is input, not trusted: it names files and offsets, and anything
that is not a link target of a documentation file (a config file, a workflow, a code sample)
is refused, link by link (here when the URL is unsafe, in `changes` when the place is not a
link target).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol
from urllib.parse import urldefrag

from ..check.remap import Remap
from ..errors import InputError
from ..model import NAV_TAG, Candidate, Evidence, LinkKind, LinkResult, Method, Reason, Report, Scope, Span, Status
from ..report.common import DECISIONS_SCHEMA, fragment_of, is_safe_url, replacement_url, unsafe_replacement_reason

DAY = 86400.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Fix:
    """Rewrite the target at `span` (which held `url`) to `new_url`."""

    span: Span
    url: str  # the target as the report saw it
    kind: LinkKind
    tag: str = ""
    new_url: str
    method: Method | Literal["decision"]  # how the new URL was found; "decision": a reviewer's, in the HTML report
    confidence: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Note:
    """Something a person should know about one link: why it was not rewritten, or a caveat."""

    span: Span
    url: str
    message: str


REVIEW = "held for review"  # in a note on a suggestion that is not applied unseen (see `needs_review`)


@dataclass(frozen=True, slots=True, kw_only=True)
class FixPlan:
    fixes: tuple[Fix, ...] = ()
    notes: tuple[Note, ...] = ()

    @property
    def needs_review(self) -> int:
        """Links with a suggestion held for a person to accept or reject (the HTML report's job)."""
        return sum(REVIEW in note.message for note in self.notes)


@dataclass(frozen=True, slots=True, kw_only=True)
class FixOptions:
    min_confidence: float = 0.0  # 0: DEFAULT_AUTOFIX_CONFIDENCE
    update_redirects: bool = False
    archive_fallback: bool = False
    confirm_runs: int = 1
    confirm_days: float = 0.0
    remap: tuple[str, ...] = ()  # the run's `remap` rules: no address they rewrite to is written

    @property
    def threshold(self) -> float:
        if self.min_confidence:
            return self.min_confidence
        # Late import: `linkfix.recover` loads the whole recovery stack (word lists included).
        from ..recover.calibration import DEFAULT_AUTOFIX_CONFIDENCE

        return DEFAULT_AUTOFIX_CONFIDENCE


class HistoryLike(Protocol):
    """What `history(url)` returns (read only); linkfix.store.records.History fits."""

    @property
    def first_broken(self) -> float: ...
    @property
    def last_broken(self) -> float: ...
    @property
    def broken_runs(self) -> int: ...


History = Callable[[str], HistoryLike]


# ---------------------------------------------------------------------------------------------
# Planning from a report


def plan_fixes(report: Report, options: FixOptions, history: History | None = None) -> FixPlan:
    fixes: list[Fix] = []
    notes: list[Note] = []
    # A saved report (of an older linkfix) may hold a redirect target in the space of the
    # `remap`ped requests: it is written as the docs name that address.
    remap = Remap(options.remap)
    if remap:
        remap.learn(urldefrag(item.resolved)[0] for item in report.results if item.scope is Scope.EXTERNAL)
    for item in report.results:
        fix, messages = _plan_one(item, options, history)
        if fix is not None:
            fixes.append(replace(fix, new_url=remap.document(fix.new_url)) if remap else fix)
        notes.extend(Note(span=item.link.span, url=item.link.url, message=m) for m in messages)
    return _without_conflicts(fixes, notes)


#: Why a MkDocs config's nav entry is never rewritten.
NAV_NOT_EDITED = "not rewritten: a nav entry of the MkDocs config; edit the nav by hand"
#: Why a link with an empty span is never rewritten.
NOT_PLACED = ("not rewritten: its target is not written at this place (an included file or the site's build makes "
              "the link); fix it where it comes from")

#: Why a target a macros template rendered is never rewritten.
FROM_TEMPLATE = ("not rewritten: a template renders this target from the project's data; fix the data file "
                 "(or the template) it comes from")


def _plan_one(item: LinkResult, options: FixOptions, history: History | None) -> tuple[Fix | None, list[str]]:
    result = item.result
    if item.link.span.start >= item.link.span.end:  # extraction could not place the target: nothing to edit
        return None, [NOT_PLACED] if result.status is Status.BROKEN else []
    if item.link.tag == NAV_TAG:  # the config's nav: its shape and YAML are the maintainers' (check/mkdocs_nav.py)
        return None, [NAV_NOT_EDITED] if result.status is Status.BROKEN else []
    if item.link.template:  # the span holds template text, not this URL
        return None, [FROM_TEMPLATE] if result.status is Status.BROKEN else []
    if result.status is Status.REDIRECTED:
        if result.reason == Reason.MKDOCS_REDIRECT:  # an internal page that redirect_maps sends elsewhere
            if not options.update_redirects:
                return None, []
            mapped = [c for c in item.suggestions if c.method == Method.REDIRECT_MAP]
            if not mapped:
                return None, [f"redirect_maps sends it to {result.final_url}; no link to that resolves from here"]
            # Where readers land today, through the redirect page: no guess, like an HTTP
            # redirect. Anything else (another id, another page) is a guess: the threshold.
            same = [c for c in mapped if c.evidence.get(Evidence.SAME_DESTINATION) is True]
            return _best(item, same or mapped, options, guess=not same)
        if options.update_redirects and result.permanent and is_safe_url(result.final_url):
            if result.from_cache:  # a claim of the cache directory, not an answer (see fix.confirm)
                return None, [f"not rewritten: the redirect to {result.final_url} comes from the cache and no request confirmed it"]
            return _fix(item, _with_fragment(result.final_url, item.link.url), Method.REDIRECT, None), []
        return None, []
    if result.status is not Status.BROKEN:
        return None, []
    if not _confirmed(result.url, options, history):
        return None, [_unconfirmed_message(result.url, options, history)]
    live = [c for c in item.suggestions if c.method != Method.ARCHIVE]
    fix, messages = _best(item, live, options)
    if fix is not None:
        return fix, messages
    if options.archive_fallback:
        archived = _archived_url(item)
        if archived:
            return _fix(item, archived, Method.ARCHIVE, None), messages
    if not live:
        messages.append("no replacement found")
    return None, messages


def _best(item: LinkResult, candidates: list[Candidate], options: FixOptions, *, guess: bool = True) -> tuple[Fix | None, list[str]]:
    """A fix with the most confident of `candidates` if it reaches the threshold (a `guess`;
    else at any confidence) and may be written (an http(s) URL, or a reference within the
    site), else why not."""
    candidate = max(candidates, key=_confidence, default=None)
    if candidate is None:
        return None, []
    if guess and candidate.confidence < options.threshold:
        return None, [
            f"best suggestion {candidate.url} has confidence {candidate.confidence:.2f} "
            f"< {options.threshold:.2f}; {REVIEW}"
        ]
    hold = candidate.evidence.get(Evidence.HOLD)
    if guess and isinstance(hold, str) and hold:
        # Recovery's gate: confident, but something speaks against applying it unseen.
        return None, [f"best suggestion {candidate.url} {REVIEW}: {hold}"]
    new_url, caveat = replacement_url(item, candidate)
    messages = [caveat] if caveat else []
    reason = unsafe_replacement_reason(new_url)
    if reason:
        return None, [*messages, f"suggestion {new_url!r} refused: {reason}"]
    return _fix(item, new_url, candidate.method, candidate.confidence), messages


def _confidence(candidate: Candidate) -> float:
    return candidate.confidence


def _archived_url(item: LinkResult) -> str:
    """The archived copy to link instead: the report's, else the best archive candidate."""
    urls = [item.archived.url] if item.archived is not None else []
    urls += [c.url for c in sorted(item.suggestions, key=_confidence, reverse=True) if c.method == Method.ARCHIVE]
    return next((url for url in urls if is_safe_url(url)), "")


def _fix(item: LinkResult, new_url: str, method: Method, confidence: float | None) -> Fix:
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
        reason = unsafe_replacement_reason(decision.new_url)
        if reason:
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
