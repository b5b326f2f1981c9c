"""The candidates of one dead link while it is being recovered, ranked.

A `Pool` holds what is known of the dead page (`Reference`) and every candidate proposed for it
(`Contender`): how it was found, its page, its evidence, and why it left the ranking. Every
change to a candidate that can move the ranking goes through the pool (`add`, `read`, `score`,
`drop`), which ranks once and keeps the ranking until the next such change; the suggestions
and the trace are read from that ranking.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any
from urllib.parse import urldefrag

from ..model import Candidate, Evidence, Method
from ..urls import is_above, is_home_page, page_identity
from . import calibration
from .anchors import Anchor
from .calibration import REDIRECT_CONFIDENCE
from .gate import Scored, hold_reason
from .pages import Section, WebPage
from .providers import Hit
from .rank import Known, as_vector, kld, title_dice
from .sections import answered_section
from .terms import normal_terms
from .trace import DROPPED, NOT_FETCHED, RANKED_BELOW, SUGGESTED, CandidateTrace

#: Suggestions kept per dead link (best first).
MAX_SUGGESTIONS = 10

#: The features a suggestion's evidence shows a reader (all of them are kept apart).
SHOWN_SIMILARITY = ("content_cos", "copy_coverage", "kld_sim", "title_sim", "anchor_title", "url_jaccard", "context_cos")


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
    evidence, and (when it leaves the ranking) why. Changed through its `Pool`."""

    url: str
    method: Method
    hits: list[Hit] = field(default_factory=list)
    prescore: float = 0.0
    fetched: bool = False
    page: WebPage | None = None
    features: dict[str, float] = field(default_factory=dict)
    flags: dict[str, float] = field(default_factory=dict)  # how it was found: rewrite, redirect, learned
    evidence: dict[str, Any] = field(default_factory=dict)
    terms: Counter[str] | None = None  # the page's normalised terms, computed once
    section: Section | None = None  # the section of its page that names the dead page, if one does
    named_section: Section | None = None  # the one section of its page with the dead page's name as its id
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


Ranking = list[tuple[Contender, float]]


class Pool:
    """Every candidate of one dead link (by the URL it was proposed under), ranked."""

    def __init__(self, ref: Reference, *, threshold: float) -> None:
        self.ref = ref
        self.threshold = threshold
        self._entries: dict[str, Contender] = {}
        self._ranking: Ranking | None = None

    # -- what is in it ----------------------------------------------------------------------

    def __contains__(self, url: object) -> bool:
        return url in self._entries

    def __iter__(self) -> Iterator[Contender]:
        return iter(self._entries.values())

    def get(self, url: str) -> Contender | None:
        return self._entries.get(url)

    def has_evidence(self) -> bool:
        """Has any candidate been scored (even one dropped since)?"""
        return any(e.features for e in self._entries.values())

    # -- changes (each one may move the ranking) ---------------------------------------------

    def know(self, known: Known) -> None:
        """More is known of the dead page (its archived copy, its site): candidates scored
        from now on are compared with it."""
        self.ref = replace(self.ref, known=known)

    def add(self, entry: Contender) -> Contender:
        """`entry` under its URL; the one already there when the URL was proposed before."""
        if entry.url in self._entries:
            return self._entries[entry.url]
        self._entries[entry.url] = entry
        self._ranking = None
        return entry

    def add_hits(self, hits: Sequence[Hit], method: Method, prescore: Callable[[Hit], float]) -> None:
        """Search answers as candidates: a URL named again gains the hit, and a little for it."""
        for hit in hits:
            url = urldefrag(hit.url)[0]
            if not url.startswith(("http://", "https://")) or url == self.ref.dead:
                continue
            entry = self.add(Contender(url=url, method=method))
            entry.hits.append(hit)
            entry.prescore = max(entry.prescore, prescore(hit)) + 0.05 * (len(entry.hits) > 1)

    def read(self, entry: Contender, page: WebPage) -> None:
        entry.fetched, entry.page = True, page
        self._ranking = None

    def score(self, entry: Contender, features: dict[str, float]) -> None:
        entry.features = features
        self._ranking = None

    def drop(self, entry: Contender, reason: str) -> None:
        entry.dropped = reason
        self._ranking = None

    # -- the ranking ---------------------------------------------------------------------------

    def ranked(self) -> Ranking:
        """Scored candidates with their confidences among each other, best first."""
        if self._ranking is None:
            pool = [e for e in self._entries.values() if e.scored]
            values = calibration.confidences([e.features for e in pool], [page_identity(e.final) for e in pool])
            # The dead URL's own permanent redirect is the site's word, not a guess.
            values = [max(v, REDIRECT_CONFIDENCE) if e.flags.get("redirect") else v for e, v in zip(pool, values)]
            self._ranking = sorted(zip(pool, values), key=lambda pair: (-pair[1], -paper_value(pair[0].features), pair[0].final))
        return self._ranking

    def best(self) -> float:
        ranked = self.ranked()
        return ranked[0][1] if ranked else 0.0

    def confident(self) -> bool:
        return self.best() >= self.threshold

    def suggest(self) -> list[Candidate]:
        """The best candidates as suggestions; the gate's verdict on the first."""
        ranked = self.ranked()[:MAX_SUGGESTIONS]
        scored = [Scored(url=e.final, key=page_identity(e.final), confidence=c, features=e.features) for e, c in ranked]
        out = []
        for n, (entry, confidence) in enumerate(ranked):
            cand = self.candidate(entry, confidence)
            if n == 0 and (hold := hold_reason(scored[0], scored[1:])):
                cand = replace(cand, evidence={**cand.evidence, Evidence.HOLD: hold})
            if Evidence.CHECKED not in cand.evidence:
                cand = replace(cand, evidence={**cand.evidence, Evidence.CHECKED: False})
            out.append(cand)
        return out

    def candidate(self, entry: Contender, confidence: float) -> Candidate:
        """One ranked candidate as a suggestion, with its evidence."""
        known = self.ref.known
        hit = entry.hits[0] if entry.hits else None
        evidence: dict[str, Any] = dict(entry.evidence)
        if hit is not None:
            evidence.update({Evidence.QUERY: hit.query, Evidence.PROVIDER: hit.provider, Evidence.FOUND_BY: len(entry.hits)})
        if entry.page is not None and entry.page.title:
            evidence[Evidence.MATCHED_TITLE] = entry.page.title
        if known.copy_title:
            evidence[Evidence.COPY_TITLE] = known.copy_title
        features = entry.features
        evidence[Evidence.SIMILARITY] = {k: round(v, 4) for k, v in features.items() if k in SHOWN_SIMILARITY}
        evidence[Evidence.FEATURES] = {k: round(v, 6) for k, v in features.items()}
        if known.copy_terms:
            score = -kld(known.copy_terms, entry.terms or Counter())
        else:
            score = title_dice(known.anchor_terms, entry.page.title if entry.page else "")
        url = entry.final
        section = answered_section(entry.section, entry.named_section, features)
        if section is not None:  # the dead page is a section of it now
            url = f"{url}#{section.id}"
            evidence[Evidence.SECTION] = section.heading
        return Candidate(url=url, confidence=round(confidence, 4), method=entry.method, score=round(score, 6), evidence=evidence)

    def trace(self, suggestions: Sequence[Candidate]) -> tuple[CandidateTrace, ...]:
        """Every candidate as the trace tells it."""
        return trace_candidates(self._entries, {id(e): c for e, c in self.ranked()}, suggestions)


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
    suggested = {urldefrag(c.url)[0]: c for c in suggestions}  # a section answer names its page
    out = []
    for entry in found.values():
        hit = entry.hits[0] if entry.hits else None
        cand = suggested.get(entry.final) if entry.scored else None
        if cand is not None:
            verdict, reason = SUGGESTED, str(cand.evidence.get(Evidence.HOLD, ""))
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
            section=entry.section.id if entry.section is not None else "",
            named_section=entry.named_section.id if entry.named_section is not None else "",
        ))
    return tuple(out)
