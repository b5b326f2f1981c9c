"""The decision flow: Martinez-Romo & Araujo's Fig. 4, with cheap steps first and Klein &
Nelson's archived-copy queries.

For each broken external link, in order of cost, stopping as soon as a candidate reaches the
auto-fix confidence:

1. the dead URL's own permanent redirect; rewrites learned in this run on the same host; cheap
   checked rewrites (http->https, .html <-> directory, GitHub master -> main, ...);
2. context: the anchor (stop anchors, one term without a named entity), the parent page, and
   the archived copy (last 200 text/html capture at or before the link was written);
3. candidates: same-site pages first (no key; the home page and the directories above the dead
   page too, where maintainers send merged pages), then search providers with the paper's
   queries, a few at a time, the most promising candidates fetched after each round; a weak
   anchor without an archived copy gets no search at all (Fig. 4);
4. ranking: every fetched candidate gets similarity evidence (rank.similarity_features: the
   archived copy's text and title, the anchor, URL words and page name, host, context) turned
   into a calibrated confidence among the other candidates (calibration.py);
5. gate: every candidate stays ranked; the best few are re-checked through the checker (live,
   not soft-404); the top one is held for review when the gate's rules say so (gate.py); the
   archived copy is offered too.

`recover_traced` returns a `RecoveryTrace` of all of it (trace.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote, urldefrag, urlsplit

from ..check.http import page_ids
from ..check.remap import Remap
from ..config import Config
from ..errors import LinkfixError
from ..model import Archived, ArchiveLookup, Candidate, LinkResult, Reason, Scope, Status
from ..urls import is_home_page, page_identity, same_site
from . import calibration
from .anchors import analyse_anchor
from .archive import ArchiveCopy, ArchiveScheduler, Need
from .calibration import ARCHIVE_CONFIDENCE, DEFAULT_AUTOFIX_CONFIDENCE, REDIRECT_CONFIDENCE
from .fragments import nearest_ids
from .gate import Scored, evidence_kinds, hold_reason
from .inlinks import dead_names, link_names, named_as
from .pages import WebPage, parse_page
from .pool import Contender, Reference, acceptable, hit_terms, paper_value, title_set, trace_candidates
from .providers import Budget, Hit, Remote, SearchProvider, build_providers
from .providers.base import TTL_SEARCH, Capture, Fetcher, count_request
from .providers.site import Site, parent_dirs
from .queries import Query, build_queries
from .rank import (
    Known,
    TitleFurniture,
    as_vector,
    cosine,
    kld,
    path_tokens,
    set_dice,
    similarity_features,
    title_dice,
    token_jaccard,
    without_shared_parts,
)
from .rewrites import LearnedRewrites, cheap_rewrites
from .terms import normal_terms
from .trace import CandidateTrace, RecoveryTrace

log = logging.getLogger(__name__)

MAX_SUGGESTIONS = 10
LIVE_CHECKS = 3  # best candidates re-checked through client.check (soft-404 detection)
QUERY_BATCH = 3  # search queries sent before candidates are evaluated again
STALE_ROUNDS = 2  # search rounds without a better candidate before giving up
ROUND_FETCHES = 6  # candidates fetched per evaluation round
SITE_NEIGHBOURS = 6  # same-site pages taken on URL/title evidence alone


@dataclass(slots=True)
class Early:
    """A link after the exact step: its reference, what was found, and the suggestions when
    that settled it (no archive needed)."""

    ref: Reference
    found: dict[str, Contender]
    finished: tuple[Candidate, ...] | None = None
    #: A confident guess only its URL supports: the answer unless the archived copy says otherwise.
    unread: tuple[Candidate, ...] | None = None


async def _no_page(url: str) -> WebPage:
    return WebPage(url=url, status=None)


def wants_recovery(lr: LinkResult) -> bool:
    if lr.scope is not Scope.EXTERNAL:
        return False
    if lr.result.status is Status.BROKEN:
        return lr.result.reason != Reason.MISSING_FRAGMENT  # the page is there; see wants_fragment
    return lr.result.status is Status.REDIRECTED and lr.result.permanent


def wants_fragment(lr: LinkResult) -> bool:
    """An external page that is there without the #fragment the link asks for."""
    return lr.scope is Scope.EXTERNAL and lr.result.status is Status.BROKEN and lr.result.reason == Reason.MISSING_FRAGMENT


class Recoverer:
    """Recovery state for one run: providers, per-run memo of checks and pages, learned rules."""

    def __init__(self, *, config: Config, client: Fetcher, cache: Any, link_times: Mapping[str, datetime] | None) -> None:
        self.config = config
        self.client = client
        self.remap = Remap(config.remap)  # requests may be rewritten; candidates are named as the docs name them
        self.remote = Remote(client, cache, to_document=self._document if self.remap else None)
        self.archives, self.searches = build_providers(config, self.remote)
        self.learned = LearnedRewrites()
        self.link_times = dict(link_times or {})
        self.threshold = config.min_confidence or DEFAULT_AUTOFIX_CONFIDENCE
        self._live: dict[str, str | None] = {}
        self._pages: dict[str, WebPage] = {}
        self.furniture = TitleFurniture()  # the site names themes add to every page's title
        self.archive_lookups: dict[str, ArchiveLookup] = {}  # dead URL -> what its archive lookup came to

    def _document(self, url: str, final: str) -> str:
        """Where a remapped request for `url` ended (`final`), as the docs name it."""
        self.remap.learn([url])
        return self.remap.document(final)

    # -- network helpers (all through the injected client) --------------------------------

    async def live(self, url: str, ref: Reference, *, exact: bool = False) -> str | None:
        """The live address of url (after redirects), or None: dead, soft-404, the dead URL; for
        an exact guess (`exact`) also a landing on the home page or a directory above."""
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
        if final is None or urldefrag(final)[0] == ref.dead or (exact and not acceptable(final, ref)):
            return None
        return final

    async def page(self, url: str) -> WebPage:
        """A candidate page, fetched once per run and cached between runs like every remote answer."""
        if url not in self._pages:
            status, final, text = await self.remote.get(url, namespace="candidate", ttl=TTL_SEARCH, provider="candidate pages")
            page = self._pages[url] = parse_page(final, status, text if status == 200 else "")
            if page.ok and page.title:
                self.furniture.add(page.url, page.title)
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

    async def recover(self, lr: LinkResult, *, early: Early | None = None, copy: ArchiveCopy | None = None,
                      ) -> tuple[tuple[Candidate, ...], Archived | None]:
        trace = await self.recover_traced(lr, early=early, copy=copy)
        return trace.suggestions, trace.archived

    def _traced(self, early: Early, stage: str, suggestions: tuple[Candidate, ...], archived: Archived | None = None) -> RecoveryTrace:
        ref = early.ref
        return RecoveryTrace(dead=ref.dead, anchor=ref.anchor.text, weak_anchor=ref.anchor.weak, stage=stage,
                             copy=bool(ref.known.copy_terms), candidates=self._trace(early.found, suggestions),
                             suggestions=suggestions, archived=archived)

    async def exact_step(self, lr: LinkResult) -> Early:
        """Step 1 for one link: what the exact and cheap guesses give, and whether that settles it."""
        link = lr.link
        dead = urldefrag(lr.resolved)[0]
        anchor_text = link.anchor_text if link.anchor_text.strip() not in (link.url, lr.resolved) else ""
        anchor = analyse_anchor(anchor_text)
        known = Known(
            dead_url=dead,
            anchor_terms=frozenset(normal_terms(" ".join(anchor.terms))),
            context_terms=as_vector(normal_terms(" ".join((anchor.text, link.context, link.page.title)))),
        )
        ref = Reference(dead=dead, anchor=anchor, known=known, dead_is_home=is_home_page(dead))
        found: dict[str, Contender] = {}

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
        finished, unread = self._exact_answer(found, ref)
        return Early(ref=ref, found=found, finished=finished, unread=unread)

    async def still_needs_archive(self, early: Early) -> bool:
        """Before its copy is fetched, a link tries the rewrites learned since its exact step
        (on other links of its host); False when one of them settles it."""
        if early.finished is None:
            await self._try_learned(early.found, early.ref)
            early.finished, unread = self._exact_answer(early.found, early.ref)
            if unread is not None:
                early.unread = unread
        return early.finished is None

    async def _try_learned(self, found: dict[str, Contender], ref: Reference) -> None:
        learned = [(u, "rewrite", {"rewrite": 1.0, "learned": min(1.0, s / 2)}, rule) for u, rule, s in self.learned.rewrites(ref.dead)]
        await self._try_exact(found, ref, learned[:2])

    async def recover_traced(self, lr: LinkResult, *, early: Early | None = None, copy: ArchiveCopy | None = None,
                             ) -> RecoveryTrace:
        """Recover one link and say how: every candidate, its evidence and the gate's verdict. A
        run passes the link's exact step and archive answer (recover/run.py); alone, the link
        does both itself. What became of the archive lookup is kept in `archive_lookups`."""
        early = early or await self.exact_step(lr)
        if early.finished is not None:
            return self._traced(early, "exact", early.finished)
        link, ref, found = lr.link, early.ref, early.found
        dead = ref.dead
        anchor = ref.anchor
        budget = Budget(deadline=time.monotonic() + self.config.max_seconds, queries=self.config.max_queries, fetches=self.config.max_fetches)
        # 2. Context: the archived copy as it was when the link was written.
        if copy is None:
            when, dated = self.link_time(lr)
            copy = await self.archived_copy(dead, when, budget, dated=dated)
        if copy.lookup is not None:
            self.archive_lookups[dead] = copy.lookup
        capture, page = copy.capture, copy.page
        if early.unread is not None and (page is None or not page.text):
            return self._traced(early, "exact", early.unread)  # nothing to read it against: its URL stands
        if page is not None and page.text:
            ref = replace(ref, known=replace(ref.known, copy_terms=as_vector(normal_terms(page.text)), copy_title=page.title))
        archived = (
            Archived(url=capture.url, datetime=capture.iso_datetime, title=page.title if page else "")
            if capture is not None
            else None
        )
        copy_page = page

        # 3. Candidates. Fig. 4: a weak anchor without an archived copy gets no search queries;
        # only the site's own pages, on URL evidence, which the calibration weighs accordingly.
        have_copy = bool(ref.known.copy_terms)
        queries: list[Query] = []
        if have_copy or not anchor.weak:
            queries = build_queries(
                anchor,
                parent_text=link.page.text,
                copy_title=copy_page.title if copy_page else "",
                copy_text=copy_page.text if copy_page else "",
                expansion_terms=self.config.expansion_terms,
            )
        ref = await self._same_site(found, ref, queries, budget)
        await self._parents(found, ref)
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
        return self._traced(Early(ref=ref, found=found), "full", await self._gate(found, ref, capture, copy_page), archived)

    async def with_fragment_evidence(self, suggestions: tuple[Candidate, ...], fragment: str) -> tuple[Candidate, ...]:
        """For a dead link with a #fragment, say of each live suggestion whether its page has
        that id (`evidence["ids"]`: [fragment] or []), so that `fix` keeps the fragment only
        where it still leads somewhere. Candidate pages come from the run's cache."""
        if not fragment:
            return suggestions
        marked = []
        for cand in suggestions:
            if cand.method not in ("archive", "fragment") and "#" not in cand.url:
                ids = await self._ids(cand.url)
                if ids is not None:
                    has_id = fragment in ids or unquote(fragment) in ids
                    cand = replace(cand, evidence={**cand.evidence, "ids": [fragment] if has_id else []})
            marked.append(cand)
        return tuple(marked)

    async def _ids(self, url: str) -> AbstractSet[str] | None:
        status, final, text = await self.remote.get(url, namespace="candidate", ttl=TTL_SEARCH, provider="candidate pages")
        return page_ids(text, final) if status == 200 else None

    async def fragment_suggestions(self, lr: LinkResult) -> tuple[Candidate, ...]:
        """The page is there but its #fragment is not: the nearest ids on the live page."""
        url, fragment = urldefrag(lr.resolved)
        ids = await self._ids(url) if fragment else None
        if not ids:
            return ()
        return tuple(
            Candidate(url=f"{url}#{ident}", confidence=confidence, method="fragment",
                      evidence={"fragment": fragment, "id": ident, "words": reason, **({"hold": hold} if hold else {})})
            for ident, confidence, reason, hold in nearest_ids(fragment, ids)
        )

    # -- candidates ------------------------------------------------------------------------

    def _ranked(self, found: Mapping[str, Contender]) -> list[tuple[Contender, float]]:
        """Scored candidates with their confidences among each other, best first."""
        pool = [f for f in found.values() if f.scored]
        values = calibration.confidences([f.features for f in pool], [page_identity(f.final) for f in pool])
        # The dead URL's own permanent redirect is the site's word, not a guess.
        values = [max(v, REDIRECT_CONFIDENCE) if f.flags.get("redirect") else v for f, v in zip(pool, values)]
        return sorted(zip(pool, values), key=lambda pair: (-pair[1], -paper_value(pair[0].features), pair[0].final))

    def _best(self, found: Mapping[str, Contender]) -> float:
        ranked = self._ranked(found)
        return ranked[0][1] if ranked else 0.0

    def _confident(self, found: Mapping[str, Contender]) -> bool:
        return self._best(found) >= self.threshold

    def _exact_answer(self, found: dict[str, Contender], ref: Reference) -> tuple[tuple[Candidate, ...] | None, tuple[Candidate, ...] | None]:
        """The exact step's (finished, unread); (None, None) when no guess is confident. A guess
        finishes the link when it is the dead URL in another form (a cheap rewrite: scheme, host,
        `.html` or `/`) or has more than its URL (title, redirect, the site's links to it). A page
        a rule learned from other links finds, with only its URL for it, is `unread`: read first
        against the archived copy, as a page of that name may hold other content (devguide's
        `security/` is not the old `contrib/security/`)."""
        ranked = self._ranked(found)
        if not ranked or ranked[0][1] < self.threshold:
            return None, None
        features = ranked[0][0].features
        answer = self._finish(found, ref)
        if not features.get("learned") or evidence_kinds(features) - {"name", "rule"}:
            return answer, None
        return None, answer

    async def _try_exact(self, found: dict[str, Contender], ref: Reference, tries: Sequence[tuple[str, str, dict, str]]) -> None:
        """Check the guesses at once; keep the live ones, with the evidence of their content."""
        tries = [t for t in tries if t[0] not in found]
        finals = await asyncio.gather(*(self.live(url, ref, exact=True) for url, *_ in tries))
        for (url, method, flags, rule), final in zip(tries, finals):
            if final is None:
                found.setdefault(url, Contender(url=url, method=method, flags=flags, dropped="not live, or lands above the dead page",
                                                evidence={"rule": rule}))
        live = [(t, final) for t, final in zip(tries, finals) if final is not None and final not in found]
        # A redirect is the site's own word; a guessed rewrite is read, for evidence of its content.
        pages = await asyncio.gather(*(
            self.page(final) if t[1] != "redirect" else _no_page(final) for t, final in live
        ))
        for ((_, method, flags, rule), final), page in zip(live, pages):
            entry = Contender(url=final, method=method, fetched=True, page=page, flags=flags)
            entry.evidence = {"rule": rule, "checked": True}
            entry.features = self._features(ref, final, entry)
            found[final] = entry

    def _features(self, ref: Reference, url: str, entry: Contender) -> dict[str, float]:
        page = entry.page
        ok = page is not None and page.ok
        if entry.terms is None:
            entry.terms = as_vector(normal_terms(page.text)) if ok and page is not None else Counter()
        known = ref.known
        if known.copy_title:  # compared without the site's name, which every page of the site shares
            known = replace(known, copy_title=self.furniture.clean(known.copy_title, ref.dead))
        title = self.furniture.clean(page.title, url) if ok and page is not None else ""
        if known.copy_title and title and same_site(url, ref.dead):
            copy_title, title = without_shared_parts(known.copy_title, title)
            known = replace(known, copy_title=copy_title)
        features = similarity_features(known, candidate_url=url, candidate_title=title, candidate_terms=entry.terms,
                                       candidate_headings=page.headings if ok and page is not None else ())
        features["weak_anchor"] = 1.0 if ref.anchor.weak else 0.0
        features.update(entry.flags)
        return features

    def _add_hits(self, found: dict[str, Contender], ref: Reference, hits: Sequence[Hit], method: str) -> None:
        for hit in hits:
            url = urldefrag(hit.url)[0]
            if not url.startswith(("http://", "https://")) or url == ref.dead:
                continue
            entry = found.get(url)
            if entry is None:
                entry = found[url] = Contender(url=url, method=method)
            entry.hits.append(hit)
            entry.prescore = max(entry.prescore, self._prescore(ref, hit)) + 0.05 * (len(entry.hits) > 1)

    def _prescore(self, ref: Reference, hit: Hit) -> float:
        """Cheap evidence from what the provider told, to choose which candidates to fetch."""
        known = ref.known
        title, text = hit_terms(hit.title, f"{hit.snippet} {hit.text}", hit.stems)
        # the copy's title may still carry the site's name: its best part counts (title_dice)
        copy_title = self.furniture.clean(known.copy_title, ref.dead)
        text_sim = cosine(known.copy_terms or known.context_terms, text)
        title_sim = max((title_dice(t, copy_title) if copy_title else set_dice(known.anchor_terms, t))
                        for t in (title, *map(title_set, hit.headings)))
        return (
            2.0 * token_jaccard(path_tokens(ref.dead), path_tokens(hit.url))
            + 2.0 * title_sim
            + 2.0 * text_sim
            + 0.5 / (1 + hit.rank)
            + (0.3 if same_site(ref.dead, hit.url) else 0.0)
        )

    async def _same_site(self, found: dict[str, Contender], ref: Reference, queries: Sequence[Query], budget: Budget) -> Reference:
        """Candidates from the dead page's own site; the reference learns the site's pages."""
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
            if index.hits:  # what the site has today (page-name uniqueness, section pages) and had
                ref = replace(ref, known=ref.known.on_site(index.today, index.ever))
            # Pages whose URL or title resembles the dead link, then BM25 answers to the queries.
            neighbours = sorted(index.hits, key=lambda h: (-self._prescore(ref, h), h.url))[:SITE_NEIGHBOURS]
            self._add_hits(found, ref, neighbours, "same-site")
            for query in queries:
                hits = [replace(h, query=query.text, rank=i) for i, (_, h) in enumerate(index.search(query.text, self.config.hits_per_query))]
                self._add_hits(found, ref, hits, "same-site")
        return ref

    async def _parents(self, found: dict[str, Contender], ref: Reference) -> None:
        """The home page and the directory pages above the dead one: maintainers redirect a page
        merged into its section there. Read at once (each is read once per run)."""
        if not any(p.same_site for p in self.searches):
            return
        entries = []
        for url in parent_dirs(ref.dead):
            if url == ref.dead:
                continue
            entry = found.get(url)
            if entry is None:
                entry = found[url] = Contender(url=url, method="parent", hits=[Hit(url=url, provider="site")])
            if not entry.fetched and not entry.dropped:
                entries.append(entry)
        pages = await asyncio.gather(*(self.page(e.url) for e in entries))
        for entry, page in zip(entries, pages):
            entry.fetched, entry.page = True, page

    async def _search(self, found: dict[str, Contender], ref: Reference, providers: Sequence[SearchProvider], batch: Sequence[Query],
                      budget: Budget) -> None:
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
        for (_, query), hits in zip(jobs, answers):
            self._add_hits(found, ref, hits, query.method)

    async def _evaluate(self, found: dict[str, Contender], ref: Reference, budget: Budget) -> None:
        """Fetch the most promising unfetched candidates and score every fetched one. A page
        already read in this run costs nothing from the budget."""
        pending = sorted((f for f in found.values() if not f.fetched and not f.dropped), key=lambda f: (-f.prescore, f.url))
        known = [f for f in pending if f.url in self._pages]
        fresh = [f for f in pending if f.url not in self._pages][: max(0, min(ROUND_FETCHES, budget.fetches))]
        if fresh and budget.expired():
            fresh = []
        budget.fetches -= len(fresh)
        take = known + fresh
        pages = await asyncio.gather(*(self.page(f.url) for f in take))
        for entry, page in zip(take, pages):
            entry.fetched = True
            entry.page = page
        seen: dict[str, str] = {}  # page -> the URL it is ranked under
        names = link_names((f.page for f in found.values() if f.page is not None), ref.dead)
        called = dead_names(ref.anchor.text, ref.anchor.weak, self.furniture.clean(ref.known.copy_title, ref.dead))
        for entry in sorted(found.values(), key=lambda f: (not f.flags, -bool(f.features), f.url)):
            if entry.dropped or not entry.fetched:
                continue
            if not entry.flags:  # checked exact guesses: their URL is final, their page may be unreadable
                read = entry.page
                if read is None or not read.ok:
                    entry.dropped = f"not a page ({read.status if read is not None and read.status else 'no answer'})"
                    continue
                if entry.final == ref.dead:
                    entry.dropped = "lands on the dead URL"
                    continue
            key = page_identity(entry.final)
            if key in seen and seen[key] != entry.url:
                entry.dropped = f"same page as {seen[key]}"
                continue
            seen[key] = entry.url
            entry.features = self._features(ref, entry.final, entry) | {"in_exact": named_as(names, entry.final, called)}

    def _candidate(self, entry: Contender, confidence: float, ref: Reference) -> Candidate:
        hit = entry.hits[0] if entry.hits else None
        evidence: dict[str, Any] = dict(entry.evidence)
        if hit is not None:
            evidence.update(query=hit.query, provider=hit.provider, found_by=len(entry.hits))
        if entry.page is not None and entry.page.title:
            evidence["matched_title"] = entry.page.title
        if ref.known.copy_title:
            evidence["copy_title"] = ref.known.copy_title
        features = entry.features
        evidence["similarity"] = {
            k: round(v, 4) for k, v in features.items()
            if k in ("content_cos", "copy_coverage", "kld_sim", "title_sim", "anchor_title", "url_jaccard", "context_cos")
        }
        evidence["features"] = {k: round(v, 6) for k, v in features.items()}
        score = -kld(ref.known.copy_terms, entry.terms or Counter()) if ref.known.copy_terms else title_dice(ref.known.anchor_terms, entry.page.title if entry.page else "")
        return Candidate(url=entry.final, confidence=round(confidence, 4), method=entry.method, score=round(score, 6), evidence=evidence)

    async def _gate(self, found: dict[str, Contender], ref: Reference, capture: Capture | None, copy: WebPage | None) -> tuple[Candidate, ...]:
        # The best few are checked through the checker (soft-404s, redirects); the rest were
        # fetched with status 200 and say so in their evidence. A dead one leaves the ranking,
        # and the others are ranked again without it.
        for _ in range(2):
            head = [e for e, _ in self._ranked(found) if not e.evidence.get("checked")][:LIVE_CHECKS]
            finals = await asyncio.gather(*(self.live(e.final, ref) for e in head))
            for entry, final in zip(head, finals):
                if final is None:
                    entry.dropped = "not live (dead, soft-404, or back to the dead URL)"
                else:
                    entry.evidence["checked"] = True
                    if page_identity(final) != page_identity(entry.final):
                        entry.evidence["redirects_to"] = final
            if all(f is not None for f in finals):
                break
        suggestions = self._suggest(found, ref)
        if capture is not None:
            # The dead page's own copy, placed by its confidence: above the guesses weaker than it,
            # and above a page over the dead one held for review (where catch-all redirects land).
            archive = Candidate(
                url=capture.url,
                confidence=ARCHIVE_CONFIDENCE,
                method="archive",
                evidence={"datetime": capture.iso_datetime, "matched_title": copy.title if copy else "", "provider": capture.provider},
            )
            at = next((n for n, c in enumerate(suggestions)
                       if c.confidence < ARCHIVE_CONFIDENCE or (c.evidence.get("hold") and c.evidence["features"].get("above"))),
                      len(suggestions))
            suggestions.insert(at, archive)
        return tuple(suggestions)

    def _suggest(self, found: dict[str, Contender], ref: Reference) -> list[Candidate]:
        ranked = self._ranked(found)[:MAX_SUGGESTIONS]
        out = []
        scored = [Scored(url=e.final, key=page_identity(e.final), confidence=c, features=e.features) for e, c in ranked]
        for n, (entry, confidence) in enumerate(ranked):
            cand = self._candidate(entry, confidence, ref)
            if n == 0:
                hold = hold_reason(scored[0], scored[1:])
                if hold:
                    cand = replace(cand, evidence={**cand.evidence, "hold": hold})
            if "checked" not in cand.evidence:
                cand = replace(cand, evidence={**cand.evidence, "checked": False})
            out.append(cand)
        return out

    def _finish(self, found: dict[str, Contender], ref: Reference) -> tuple[Candidate, ...]:
        """Result of the exact step: already checked, nothing else to gate."""
        return tuple(self._suggest(found, ref))

    def _trace(self, found: Mapping[str, Contender], suggestions: Sequence[Candidate]) -> tuple[CandidateTrace, ...]:
        return trace_candidates(found, {id(e): c for e, c in self._ranked(found)}, suggestions)

    def learn(self, dead: str, suggestions: Sequence[Candidate]) -> None:
        top = suggestions[0] if suggestions else None
        if top is not None and top.method not in ("archive", "fragment") and top.confidence >= self.threshold and not top.evidence.get("hold"):
            self.learned.record(dead, top.url)

