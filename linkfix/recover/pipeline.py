"""The decision flow: Martinez-Romo & Araujo's Fig. 4, with cheap steps first and Klein &
Nelson's archived-copy queries.

For each broken external link, in order of cost, stopping as soon as a candidate reaches the
auto-fix confidence:

1. the dead URL's own permanent redirect; rewrites learned in this run on the same host; cheap
   checked rewrites (http->https, .html <-> directory, GitHub master -> main, ...);
2. context: the anchor (stop anchors, one term without a named entity), the parent page, and
   the archived copy (last 200 text/html capture at or before the link was written);
3. candidates: same-site pages first (no key), then search providers with the paper's queries,
   a few at a time, the most promising candidates fetched after each round; a weak anchor
   without an archived copy gets no search at all (Fig. 4);
4. ranking: every fetched candidate gets similarity evidence (KLD/cosine/coverage to the
   archived copy, Dice of anchor and title, URL tokens, host, context) turned into a
   calibrated confidence (calibration.py);
5. gate: the best candidates are re-checked through the checker (live, not soft-404, not the
   home page or a directory page above the dead page unless the dead link was one); with an
   archived copy, guesses weaker than the copy are dropped and, for a weak anchor, only pages
   as similar as `similarity` are kept (Fig. 4); the archived copy is offered last.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, urldefrag, urlsplit

from ..check.http import page_ids
from ..check.remap import Remap
from ..config import Config
from ..errors import ConfigError, LinkfixError
from ..model import Archived, ArchiveLookup, Candidate, LinkResult, Reason, Scope, Status
from ..urls import is_home_page, same_site
from . import calibration
from .anchors import Anchor, analyse_anchor
from .archive import ArchiveCopy, ArchiveScheduler, Need
from .calibration import ARCHIVE_CONFIDENCE, DEFAULT_AUTOFIX_CONFIDENCE
from .pages import Page, parse_page
from .providers import ARCHIVES, SEARCHES, ArchiveProvider, Budget, Hit, Remote, SearchProvider
from .providers.base import TTL_SEARCH, Capture, Fetcher, count_request
from .providers.site import Site
from .queries import Query, build_queries
from .rank import (
    as_vector,
    cosine,
    dice,
    jaccard,
    kld,
    margins,
    path_tokens,
    primary_evidence,
    similarity_features,
)
from .rewrites import LearnedRewrites, cheap_rewrites
from .terms import content_terms

log = logging.getLogger(__name__)

MAX_SUGGESTIONS = 10
LIVE_CHECKS = 3  # best candidates re-checked through client.check (soft-404 detection)
QUERY_BATCH = 3  # search queries sent before candidates are evaluated again
STALE_ROUNDS = 2  # search rounds without a better candidate before giving up
ROUND_FETCHES = 6  # candidates fetched per evaluation round
SITE_NEIGHBOURS = 6  # same-site pages taken on URL/title evidence alone


@dataclass(frozen=True, slots=True, kw_only=True)
class Reference:
    """What is known about the dead page: the evidence candidates are compared with."""

    dead: str
    anchor: Anchor
    anchor_terms: Counter[str]
    context_terms: Counter[str]
    copy_terms: Counter[str]
    copy_title_terms: Counter[str]
    dead_is_home: bool


@dataclass(slots=True)
class Found:
    """A candidate URL and how it was found (mutable while a link is being recovered)."""

    url: str
    method: str
    hits: list[Hit] = field(default_factory=list)
    prescore: float = 0.0
    fetched: bool = False
    page: Page | None = None
    features: dict[str, float] = field(default_factory=dict)
    flags: dict[str, float] = field(default_factory=dict)  # how it was found: rewrite, redirect, learned
    evidence: dict[str, Any] = field(default_factory=dict)
    terms: Counter[str] | None = None  # the page's content terms, computed once


@dataclass(slots=True)
class Early:
    """A link after the exact step: its reference, what was found, and the suggestions when
    that settled it (no archive needed)."""

    ref: Reference
    found: dict[str, Found]
    finished: tuple[Candidate, ...] | None = None


def acceptable(url: str, ref: Reference) -> bool:
    """The gate's URL rules: not the dead URL, not the home page or a directory page above the
    dead page (what sites redirect dead links to), unless the dead link was one itself."""
    url = urldefrag(url)[0]
    if url == ref.dead:
        return False
    if is_home_page(url):
        return ref.dead_is_home
    parts, dead = urlsplit(url), urlsplit(ref.dead)
    above = parts.path.endswith("/") and dead.path.startswith(parts.path) and len(dead.path) > len(parts.path)
    return not (above and same_site(url, ref.dead))


@lru_cache(maxsize=20000)
def _hit_terms(title: str, body: str) -> tuple[Counter[str], Counter[str]]:
    """Term vectors of a hit's title and of title + body; a site's pages recur for every link."""
    title_terms = as_vector(content_terms(title))
    return title_terms, title_terms + as_vector(content_terms(body))


def _same_page(candidate: Candidate, similarity: float) -> bool:
    features = candidate.evidence.get("features", {})
    if candidate.method in ("redirect", "rewrite"):
        return True  # the site's own address for it, checked live
    return max(features.get("content_cos", 0.0), features.get("copy_coverage", 0.0)) >= similarity


async def _no_page(url: str) -> Page:
    return Page(url=url, status=None)


def wants_recovery(lr: LinkResult) -> bool:
    if lr.scope is not Scope.EXTERNAL:
        return False
    if lr.result.status is Status.BROKEN:
        return lr.result.reason != Reason.MISSING_FRAGMENT  # the page is there; the anchor moved
    return lr.result.status is Status.REDIRECTED and lr.result.permanent


def build_providers(config: Config, remote: Remote) -> tuple[list[ArchiveProvider], list[SearchProvider]]:
    """Instantiate the configured providers; an unknown name is a configuration error."""
    archives = []
    for settings in config.archive:
        name = str(settings.get("provider", ""))
        if name not in ARCHIVES:
            raise ConfigError(f"archive: unknown provider '{name}' (choose from {', '.join(sorted(ARCHIVES))})")
        archives.append(ARCHIVES[name](settings, remote))
    searches = []
    for settings in config.search:
        name = str(settings.get("provider", ""))
        if name not in SEARCHES:
            raise ConfigError(f"search: unknown provider '{name}' (choose from {', '.join(sorted(SEARCHES))})")
        provider = SEARCHES[name](settings, remote)
        if isinstance(provider, Site):
            provider.archives = archives
        searches.append(provider)
    return archives, searches


class Recoverer:
    """Recovery state for one run: providers, per-run memo of checks and pages, learned rules."""

    def __init__(self, *, config: Config, client: Fetcher, cache: Any, link_times: Mapping[str, datetime] | None) -> None:
        self.config = config
        self.client = client
        self.remote = Remote(client, cache)
        self.archives, self.searches = build_providers(config, self.remote)
        self.learned = LearnedRewrites()
        self.link_times = dict(link_times or {})
        self.threshold = config.min_confidence or DEFAULT_AUTOFIX_CONFIDENCE
        self._live: dict[str, str | None] = {}
        self._pages: dict[str, Page] = {}
        self.remap = Remap(config.remap)  # requests may be rewritten; candidates are named as the docs name them
        self.archive_lookups: dict[str, ArchiveLookup] = {}  # dead URL -> what its archive lookup came to

    # -- network helpers (all through the injected client) --------------------------------

    async def live(self, url: str, ref: Reference) -> str | None:
        """The live address of url (after redirects), or None: dead, soft-404, home page, the dead URL."""
        if url not in self._live:
            count_request()
            try:
                result = await self.client.check(url)
            except (asyncio.CancelledError, LinkfixError):
                raise  # network down: the run stops, it is not link rot
            except Exception as exc:  # a failing check is a dead candidate, not a crash
                log.warning("check of candidate %s failed: %s", url, exc)
                result = None
            final = None
            if result is not None and result.status is Status.OK:
                final = url
            elif result is not None and result.status is Status.REDIRECTED:
                self.remap.learn([url])
                final = self.remap.document(result.final_url or url)
            self._live[url] = final
        final = self._live[url]
        if final is None or not acceptable(final, ref):
            return None
        return final

    async def page(self, url: str) -> Page:
        """A candidate page, fetched once per run and cached between runs like every remote answer."""
        if url not in self._pages:
            status, final, text = await self.remote.get(url, namespace="candidate", ttl=TTL_SEARCH, provider="candidate pages")
            self._pages[url] = parse_page(final, status, text if status == 200 else "")
        return self._pages[url]

    async def archived_copy(self, dead: str, when: datetime, budget: Budget, *, dated: bool = True) -> ArchiveCopy:
        """The dead page's copy for one link on its own (a run schedules them: recover/run.py)."""
        scheduler = ArchiveScheduler(self.archives, self.remote.cache, deadline=budget.deadline)
        scheduler.start([Need(url=dead, when=when, dated=dated)])
        try:
            return await scheduler.answer(dead)
        finally:
            await scheduler.close()

    def link_time(self, lr: LinkResult) -> tuple[datetime, bool]:
        """When the link was written (git blame), and whether that is known; else now."""
        when = self.link_times.get(lr.link.url) or self.link_times.get(lr.resolved)
        return (when, True) if when is not None else (datetime.now(UTC), False)

    # -- one link ------------------------------------------------------------------------

    async def exact_step(self, lr: LinkResult) -> Early:
        """Step 1 for one link: what the exact and cheap guesses give, and whether that settles it."""
        link = lr.link
        dead = urldefrag(lr.resolved)[0]
        anchor_text = link.anchor_text if link.anchor_text.strip() not in (link.url, lr.resolved) else ""
        anchor = analyse_anchor(anchor_text)
        ref = Reference(
            dead=dead,
            anchor=anchor,
            anchor_terms=as_vector(anchor.terms),
            context_terms=as_vector(content_terms(" ".join((anchor.text, link.context, link.page.title)))),
            copy_terms=Counter(),
            copy_title_terms=Counter(),
            dead_is_home=is_home_page(dead),
        )
        found: dict[str, Found] = {}

        # 1. The exact and cheap: permanent redirect, learned rewrites, known rewrites.
        if lr.result.permanent and lr.result.final_url and urldefrag(lr.result.final_url)[0] != dead:
            await self._try_exact(found, ref, [(lr.result.final_url, "redirect", {"redirect": 1.0}, "permanent redirect")])
        if lr.result.status is not Status.BROKEN:
            return Early(ref=ref, found=found, finished=self._finish(found, ref))
        if not self._confident(found):
            await self._try_learned(found, ref)
        if not self._confident(found):
            cheap = [(u, "rewrite", {"rewrite": 1.0}, rule) for u, rule in cheap_rewrites(dead)]
            if lr.result.reason == Reason.DNS:  # the host is gone: only a rewrite to another host can help
                cheap = [t for t in cheap if urlsplit(t[0]).hostname != urlsplit(dead).hostname]
            await self._try_exact(found, ref, cheap)
        if self._confident(found):
            return Early(ref=ref, found=found, finished=self._finish(found, ref))
        return Early(ref=ref, found=found)

    async def still_needs_archive(self, early: Early) -> bool:
        """Before its copy is fetched, a link tries the rewrites learned since its exact step
        (on other links of its host); False when one of them settles it."""
        if early.finished is None:
            await self._try_learned(early.found, early.ref)
            if self._confident(early.found):
                early.finished = self._finish(early.found, early.ref)
        return early.finished is None

    async def _try_learned(self, found: dict[str, Found], ref: Reference) -> None:
        learned = [(u, "rewrite", {"rewrite": 1.0, "learned": min(1.0, s / 2)}, rule) for u, rule, s in self.learned.rewrites(ref.dead)]
        await self._try_exact(found, ref, learned[:2])

    async def recover(self, lr: LinkResult, *, early: Early | None = None, copy: ArchiveCopy | None = None,
                      ) -> tuple[tuple[Candidate, ...], Archived | None]:
        """Suggestions for one link (and its archived copy). A run passes the link's exact step
        and archive answer (recover/run.py); alone, the link does both itself. What became of
        the archive lookup is kept in `archive_lookups`."""
        early = early or await self.exact_step(lr)
        if early.finished is not None:
            return early.finished, None
        link, ref, found = lr.link, early.ref, early.found
        dead = ref.dead
        anchor = ref.anchor
        budget = Budget(
            deadline=time.monotonic() + self.config.max_seconds,
            queries=self.config.max_queries,
            fetches=self.config.max_fetches,
        )
        # 2. Context: the archived copy as it was when the link was written.
        if copy is None:
            when, dated = self.link_time(lr)
            copy = await self.archived_copy(dead, when, budget, dated=dated)
        if copy.lookup is not None:
            self.archive_lookups[dead] = copy.lookup
        capture, page = copy.capture, copy.page
        if page is not None and page.text:
            ref = replace(
                ref,
                copy_terms=as_vector(content_terms(page.text)),
                copy_title_terms=as_vector(content_terms(page.title)),
            )
        archived = (
            Archived(url=capture.url, datetime=capture.iso_datetime, title=page.title if page else "")
            if capture is not None
            else None
        )
        copy_page = page

        # 3. Candidates. Fig. 4: a weak anchor without an archived copy gets no search queries;
        # only the site's own pages, on URL evidence, which the calibration weighs accordingly.
        have_copy = bool(ref.copy_terms)
        queries: list[Query] = []
        if have_copy or not anchor.weak:
            queries = build_queries(
                anchor,
                parent_text=link.page.text,
                copy_title=copy_page.title if copy_page else "",
                copy_text=copy_page.text if copy_page else "",
                expansion_terms=self.config.expansion_terms,
            )
        await self._same_site(found, ref, queries, budget)
        await self._evaluate(found, ref, budget)
        web = [p for p in self.searches if not p.same_site]
        pending = list(queries)
        stale = 0  # rounds in a row that did not improve the best candidate
        while web and pending and not self._confident(found) and budget.queries > 0 and not budget.expired():
            batch, pending = pending[: min(QUERY_BATCH, budget.queries)], pending[QUERY_BATCH:]
            budget.queries -= len(batch)
            best = self._best(found)
            await self._search(found, ref, web, batch, budget)
            await self._evaluate(found, ref, budget)
            stale = stale + 1 if self._best(found) <= best else 0
            if stale >= STALE_ROUNDS:
                break  # the content does not seem to be on the web any more: stop spending
        if have_copy and not self._confident(found):
            await self._evaluate(found, ref, budget)  # spend what is left of the fetch budget
        return await self._gate(found, ref, capture, copy_page), archived

    async def with_fragment_evidence(self, suggestions: tuple[Candidate, ...], fragment: str) -> tuple[Candidate, ...]:
        """For a dead link with a #fragment, say of each live suggestion whether its page has
        that id (`evidence["ids"]`: [fragment] or []), so that `fix` keeps the fragment only
        where it still leads somewhere. Candidate pages come from the run's cache."""
        if not fragment:
            return suggestions
        marked = []
        for cand in suggestions:
            if cand.method != "archive" and "#" not in cand.url:
                status, final, text = await self.remote.get(cand.url, namespace="candidate", ttl=TTL_SEARCH,
                                                            provider="candidate pages")
                if status == 200:
                    ids = page_ids(text, final)
                    has_id = fragment in ids or unquote(fragment) in ids
                    cand = replace(cand, evidence={**cand.evidence, "ids": [fragment] if has_id else []})
            marked.append(cand)
        return tuple(marked)

    def _best(self, found: Mapping[str, Found]) -> float:
        return max((calibration.confidence(f.features) for f in found.values() if f.features), default=0.0)

    def _confident(self, found: Mapping[str, Found]) -> bool:
        return self._best(found) >= self.threshold

    async def _try_exact(self, found: dict[str, Found], ref: Reference, tries: Sequence[tuple[str, str, dict, str]]) -> None:
        """Check the guesses at once; keep the live ones, with the evidence of their content."""
        tries = [t for t in tries if t[0] not in found]
        finals = await asyncio.gather(*(self.live(url, ref) for url, *_ in tries))
        live = [(t, final) for t, final in zip(tries, finals) if final is not None and final not in found]
        # A redirect is the site's own word; a guessed rewrite is read, for evidence of its content.
        pages = await asyncio.gather(*(
            self.page(final) if t[1] != "redirect" else _no_page(final) for t, final in live
        ))
        for ((url, method, flags, rule), final), page in zip(live, pages):
            entry = Found(url=final, method=method, fetched=True, page=page, flags=flags)
            entry.evidence = {"rule": rule, "checked": True}
            entry.features = self._features(ref, final, entry)
            found[final] = entry
        self._set_margins(found)

    def _features(self, ref: Reference, url: str, entry: Found) -> dict[str, float]:
        page = entry.page
        ok = page is not None and page.ok
        if entry.terms is None:
            entry.terms = as_vector(content_terms(page.text)) if ok else Counter()
        features = similarity_features(
            dead_url=ref.dead,
            candidate_url=url,
            candidate_title=page.title if ok else "",
            candidate_terms=entry.terms,
            anchor_terms=ref.anchor_terms,
            context_terms=ref.context_terms,
            copy_terms=ref.copy_terms,
            copy_title_terms=ref.copy_title_terms,
        )
        features["weak_anchor"] = 1.0 if ref.anchor.weak else 0.0
        features.update(entry.flags)
        return features

    def _add_hits(self, found: dict[str, Found], ref: Reference, hits: Sequence[Hit], method: str) -> None:
        for hit in hits:
            url = urldefrag(hit.url)[0]
            if not url.startswith(("http://", "https://")) or url == ref.dead:
                continue
            entry = found.get(url)
            if entry is None:
                entry = found[url] = Found(url=url, method=method)
            entry.hits.append(hit)
            entry.prescore = max(entry.prescore, self._prescore(ref, hit)) + 0.05 * (len(entry.hits) > 1)

    def _prescore(self, ref: Reference, hit: Hit) -> float:
        """Cheap evidence from what the provider told, to choose which candidates to fetch."""
        title, text = _hit_terms(hit.title, f"{hit.snippet} {hit.text}")
        reference_title = ref.copy_title_terms or ref.anchor_terms
        text_sim = cosine(ref.copy_terms or ref.context_terms, text)
        return (
            2.0 * jaccard(path_tokens(ref.dead), path_tokens(hit.url))
            + 2.0 * dice({t: 1.0 for t in reference_title}, {t: 1.0 for t in title})
            + 2.0 * text_sim
            + 0.5 / (1 + hit.rank)
            + (0.3 if same_site(ref.dead, hit.url) else 0.0)
        )

    async def _same_site(self, found: dict[str, Found], ref: Reference, queries: Sequence[Query], budget: Budget) -> None:
        for provider in self.searches:
            if not isinstance(provider, Site):
                continue
            try:
                index = await provider.index(ref.dead, budget)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.remote.warn_once("site", "site: failed (%s)", exc)
                continue
            # Pages whose URL or title resembles the dead link, then BM25 answers to the queries.
            neighbours = sorted(index.hits, key=lambda h: -self._prescore(ref, h))[:SITE_NEIGHBOURS]
            self._add_hits(found, ref, neighbours, "same-site")
            for query in queries:
                hits = [replace(h, query=query.text, rank=i) for i, (_, h) in enumerate(index.search(query.text, self.config.hits_per_query))]
                self._add_hits(found, ref, hits, "same-site")

    async def _search(self, found: dict[str, Found], ref: Reference, providers: Sequence[SearchProvider], batch: Sequence[Query], budget: Budget) -> None:
        jobs = [(p, q) for q in batch for p in providers]

        async def one(provider: SearchProvider, query: Query) -> list[Hit]:
            try:
                return await provider.search(query.text, near=ref.dead, limit=self.config.hits_per_query, budget=budget)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.remote.warn_once(f"search:{provider.name}", "%s: search failed (%s)", provider.name, exc)
                return []

        answers = await asyncio.gather(*(one(p, q) for p, q in jobs))
        for (provider, query), hits in zip(jobs, answers):
            self._add_hits(found, ref, hits, query.method)

    async def _evaluate(self, found: dict[str, Found], ref: Reference, budget: Budget) -> None:
        """Fetch the most promising unfetched candidates and score every fetched one."""
        pending = sorted((f for f in found.values() if not f.fetched), key=lambda f: (-f.prescore, f.url))
        take = pending[: max(0, min(ROUND_FETCHES, budget.fetches))]
        if take and not budget.expired():
            budget.fetches -= len(take)
            pages = await asyncio.gather(*(self.page(f.url) for f in take))
            for entry, page in zip(take, pages):
                entry.fetched = True
                entry.page = page
        scored = [f for f in found.values() if (f.page is not None and f.page.ok) or f.flags]
        for entry in scored:
            if entry.flags:  # checked exact guesses: their URL is final, their page may be unreadable
                entry.features = self._features(ref, entry.url, entry)
                continue
            page = entry.page
            assert page is not None
            final = urldefrag(page.url)[0]
            if not acceptable(final, ref):
                entry.page = Page(url=page.url, status=None)  # lands where the dead link was: useless
                continue
            entry.features = self._features(ref, final, entry)
        self._set_margins(found)

    def _set_margins(self, found: Mapping[str, Found]) -> None:
        scored = [f for f in found.values() if f.features]
        for entry, margin in zip(scored, margins([primary_evidence(f.features) for f in scored])):
            entry.features["margin"] = margin

    def _score(self, entry: Found, ref: Reference) -> float:
        """The paper's ranking value: -KLD to the archived copy, else Dice(anchor, title)."""
        if entry.page is None or not entry.page.ok:
            return 0.0
        if ref.copy_terms:
            return -kld(ref.copy_terms, entry.terms or Counter())
        return entry.features.get("anchor_title_dice", 0.0)

    def _candidate(self, entry: Found, ref: Reference) -> Candidate:
        hit = entry.hits[0] if entry.hits else None
        evidence: dict[str, Any] = dict(entry.evidence)
        if hit is not None:
            evidence.update(query=hit.query, provider=hit.provider, found_by=len(entry.hits))
        if entry.page is not None and entry.page.title:
            evidence["matched_title"] = entry.page.title
        evidence["similarity"] = {
            k: round(v, 4) for k, v in entry.features.items()
            if k in ("content_cos", "kld_sim", "title_sim", "anchor_title_dice", "url_jaccard", "context_cos")
        }
        evidence["features"] = {k: round(v, 6) for k, v in entry.features.items()}
        return Candidate(
            url=entry.url if entry.page is None or entry.flags else urldefrag(entry.page.url)[0],
            confidence=round(calibration.confidence(entry.features), 4),
            method=entry.method,
            score=round(self._score(entry, ref), 6),
            evidence=evidence,
        )

    async def _gate(self, found: dict[str, Found], ref: Reference, capture: Capture | None, copy: Page | None) -> tuple[Candidate, ...]:
        ranked = sorted(
            (self._candidate(f, ref) for f in found.values() if f.features),
            key=lambda c: (-c.confidence, -c.score, c.url),
        )
        # The best few are checked through the checker (soft-404s, home-page redirects); the
        # rest were fetched with status 200 and say so in their evidence.
        head = [c for c in ranked if not c.evidence.get("checked")][:LIVE_CHECKS]
        finals = dict(zip((c.url for c in head), await asyncio.gather(*(self.live(c.url, ref) for c in head))))
        kept: list[Candidate] = []
        seen: set[str] = set()
        for cand in ranked:
            if cand.url in finals:
                final = finals[cand.url]
                if final is None:
                    continue
                cand = replace(cand, url=final, evidence={**cand.evidence, "checked": True})
            elif not cand.evidence.get("checked"):
                cand = replace(cand, evidence={**cand.evidence, "checked": False})
            if cand.url in seen:
                continue
            seen.add(cand.url)
            kept.append(cand)
        if capture is not None:
            # With the dead page's own copy at hand, a weaker guess than the copy is noise.
            kept = [c for c in kept if c.confidence >= ARCHIVE_CONFIDENCE]
        if ref.anchor.weak and ref.copy_terms:
            # Fig. 4, weak anchor: recommend only what is as good as the same page as the copy
            # (`similarity`, cosine); a page the copy was merged into counts by its coverage.
            kept = [c for c in kept if _same_page(c, self.config.similarity)]
        kept = kept[:MAX_SUGGESTIONS]
        if capture is not None:
            kept.append(
                Candidate(
                    url=capture.url,
                    confidence=ARCHIVE_CONFIDENCE,
                    method="archive",
                    evidence={"datetime": capture.iso_datetime, "matched_title": copy.title if copy else "", "provider": capture.provider},
                )
            )
        return tuple(kept)

    def _finish(self, found: dict[str, Found], ref: Reference) -> tuple[Candidate, ...]:
        """Result of the exact step: already checked, nothing to gate."""
        self._set_margins(found)
        ranked = sorted((self._candidate(f, ref) for f in found.values() if f.features), key=lambda c: (-c.confidence, c.url))
        return tuple(ranked[:MAX_SUGGESTIONS])

    def learn(self, dead: str, suggestions: Sequence[Candidate]) -> None:
        if suggestions and suggestions[0].method != "archive" and suggestions[0].confidence >= self.threshold:
            self.learned.record(dead, suggestions[0].url)


async def recover_all(
    results: Sequence[LinkResult],
    *,
    config: Config,
    client: Fetcher,
    cache: Any,
    link_times: Mapping[str, datetime] | None = None,
    on_recovery: Any = None,
) -> list[LinkResult]:
    """The same results, with `suggestions`, `archived` and `archive_lookup` filled for broken
    external links (and the redirect target for permanently redirected ones); others unchanged.
    How a run orders and feeds the links (and the archive) is recover/run.py's."""
    from .run import recover_run

    return await recover_run(results, config=config, client=client, cache=cache, link_times=link_times,
                             on_recovery=on_recovery)
