"""A readable record of one recovery: every candidate considered and what became of it.

`Recoverer.recover_traced(link_result)` returns a `RecoveryTrace`; benchmarks and diagnostics
read it instead of reaching into the recoverer. Plain frozen data, JSON-ready through
`as_json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from ..model import Archived, Candidate, Method

#: Verdicts of the gate on one candidate.
SUGGESTED = "suggested"  # among the suggestions returned
RANKED_BELOW = "ranked-below"  # scored, but past the number of suggestions kept
DROPPED = "dropped"  # left out, `reason` says why
NOT_FETCHED = "not-fetched"  # proposed, never read (budget, or a better candidate was found first)


@dataclass(frozen=True, slots=True, kw_only=True)
class CandidateTrace:
    url: str  # as proposed
    final_url: str  # where it was read (after redirects), '' when not read
    method: Method  # how it was found
    provider: str = ""  # which provider proposed it first (site, searxng, ...)
    query: str = ""  # the query that found it ('' for pages proposed on URL evidence)
    rank: int = 0  # its position in that provider's answer
    found_by: int = 0  # how many answers named it
    fetched: bool = False
    status: int | None = None  # HTTP status of the page read
    title: str = ""
    features: Mapping[str, float] = field(default_factory=dict)
    confidence: float | None = None  # None: never scored
    section: str = ""  # the id of the section of its page that names the dead page ('' when none does)
    named_section: str = ""  # the id of the one section of its page with the dead page's name ('' when none)
    verdict: str = NOT_FETCHED
    reason: str = ""  # why it was dropped, or held back from an automatic fix


@dataclass(frozen=True, slots=True, kw_only=True)
class RecoveryTrace:
    dead: str
    anchor: str
    weak_anchor: bool
    stage: str  # exact: the cheap steps answered; full: context, candidates, gate
    copy: bool  # the archived copy's text was read
    candidates: tuple[CandidateTrace, ...] = ()
    suggestions: tuple[Candidate, ...] = ()
    archived: Archived | None = None

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["candidates"] = [dict(c, features=dict(c["features"])) for c in data["candidates"]]
        return data
