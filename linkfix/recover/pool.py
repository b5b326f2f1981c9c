"""The candidates of one dead link while it is being recovered, and what is known of the dead
page they are compared with (used by pipeline.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urldefrag

from ..model import Candidate
from ..urls import is_above, is_home_page
from .anchors import Anchor
from .pages import WebPage
from .providers import Hit
from .rank import Known, as_vector
from .terms import normal_terms
from .trace import DROPPED, NOT_FETCHED, RANKED_BELOW, SUGGESTED, CandidateTrace


@dataclass(frozen=True, slots=True, kw_only=True)
class Reference:
    """What is known about the dead page: the evidence candidates are compared with."""

    dead: str
    anchor: Anchor
    known: Known
    dead_is_home: bool


@dataclass(slots=True)
class Contender:
    """A candidate URL while one link is being recovered: how it was found, its page, its
    evidence, and (when it leaves the pool) why."""

    url: str
    method: str
    hits: list[Hit] = field(default_factory=list)
    prescore: float = 0.0
    fetched: bool = False
    page: WebPage | None = None
    features: dict[str, float] = field(default_factory=dict)
    flags: dict[str, float] = field(default_factory=dict)  # how it was found: rewrite, redirect, learned
    evidence: dict[str, Any] = field(default_factory=dict)
    terms: Counter[str] | None = None  # the page's normalised terms, computed once
    dropped: str = ""  # why it is out of the ranking ('' while it is in)

    @property
    def final(self) -> str:
        """Where the candidate is: its page's address after redirects, or the URL as found."""
        if self.flags or self.page is None:
            return self.url
        return urldefrag(self.page.url)[0]

    @property
    def scored(self) -> bool:
        return bool(self.features) and not self.dropped


def acceptable(url: str, ref: Reference) -> bool:
    """May a checked URL guess (a rewrite) stand for the dead page? Not the dead URL, and not
    the home page or a directory page above it, where catch-all redirects land, unless the dead
    link was one itself. (Such pages may still be candidates on their own evidence.)"""
    url = urldefrag(url)[0]
    if url == ref.dead:
        return False
    if is_home_page(url):
        return ref.dead_is_home
    return not is_above(url, ref.dead)


@lru_cache(maxsize=20000)
def hit_terms(title: str, body: str, stems: str) -> tuple[frozenset[str], Counter[str]]:
    """Normalised terms of a hit's title, and of title + body; a site's pages recur for every link."""
    title_terms = normal_terms(title)
    return frozenset(title_terms), as_vector(title_terms + normal_terms(body) + stems.split())


@lru_cache(maxsize=4096)
def title_set(title: str) -> frozenset[str]:
    return frozenset(normal_terms(title))


def paper_value(features: Mapping[str, float]) -> float:
    """The paper's ranking value (a tie-breaker here): similarity to the archived copy
    (exp(-KLD)), else Dice(anchor, title)."""
    return features.get("kld_sim", 0.0) if features.get("has_copy") else features.get("anchor_title", 0.0)




def trace_candidates(found: Mapping[str, Contender], confidences: Mapping[int, float], suggestions: Sequence[Candidate]) -> tuple[CandidateTrace, ...]:
    """Every candidate of `found` as the trace tells it (`confidences`: id(entry) -> confidence)."""
    suggested = {c.url: c for c in suggestions}
    out = []
    for entry in found.values():
        hit = entry.hits[0] if entry.hits else None
        cand = suggested.get(entry.final) if entry.scored else None
        if cand is not None:
            verdict, reason = SUGGESTED, str(cand.evidence.get("hold", ""))
        elif entry.scored:
            verdict, reason = RANKED_BELOW, ""
        elif entry.dropped:
            verdict, reason = DROPPED, entry.dropped
        else:
            verdict, reason = NOT_FETCHED, "fetch budget spent, or a confident candidate came first"
        page = entry.page
        out.append(CandidateTrace(
            url=entry.url, final_url=entry.final if page is not None else "", method=entry.method,
            provider=hit.provider if hit else "", query=hit.query if hit else "", rank=hit.rank if hit else 0,
            found_by=len(entry.hits), fetched=entry.fetched, status=page.status if page is not None else None,
            title=page.title if page is not None else (hit.title if hit else ""), features=dict(entry.features),
            confidence=round(confidences[id(entry)], 6) if id(entry) in confidences else None, verdict=verdict, reason=reason,
        ))
    return tuple(out)
