"""One dead link's recovery: Martinez-Romo & Araujo's Fig. 4, with cheap steps first and Klein &
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
4. ranking: every fetched candidate gets similarity evidence (reading.Reader.features: the
   archived copy's text and title, the anchor, URL words and page name, host, context) turned
   into a calibrated confidence among the other candidates (pool.Pool, calibration.py);
5. gate: every candidate stays ranked; the best few are re-checked through the checker (live,
   not soft-404); the top one is held for review when the gate's rules say so (gate.py); the
   archived copy is offered too.

`recover_traced` returns a `RecoveryTrace` of all of it (trace.py); a run of many links is
`run.recover_all`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from urllib.parse import urldefrag, urlsplit

from ..check.remap import Remap
from ..config import Config
from ..model import Archived, ArchiveLookup, Candidate, Evidence, LinkResult, Method, Reason, Scope, Status
from ..urls import is_home_page, page_identity
from .anchors import analyse_anchor
from .archive import ArchiveCopy, ArchiveScheduler, Need
from .calibration import ARCHIVE_CONFIDENCE, DEFAULT_AUTOFIX_CONFIDENCE
from .gate import evidence_kinds
from .inlinks import dead_names, link_names, named_as
from .pages import WebPage
from .pool import Contender, Pool, Reference
from .providers import Budget, Hit, Remote, SearchProvider, build_providers
from .providers.base import Capture
from .providers.remote import CacheStore, Fetcher
from .providers.site import Site, parent_dirs
from .queries import Query, build_queries
from .rank import Known, as_vector
from .reading import Reader
from .rewrites import LearnedRewrites, cheap_rewrites
from .terms import normal_terms
from .trace import RecoveryTrace

LIVE_CHECKS = 3  # best candidates re-checked through client.check (soft-404 detection)
QUERY_BATCH = 3  # search queries sent before candidates are evaluated again
STALE_ROUNDS = 2  # search rounds without a better candidate before giving up
ROUND_FETCHES = 6  # candidates fetched per evaluation round
SITE_NEIGHBOURS = 6  # same-site pages taken on URL/title evidence alone


@dataclass(frozen=True, slots=True, kw_only=True)
class Guess:
    """An exact-step guess: a URL, how it was made, and the flags that say so to the model."""

    url: str
    method: Method
    flags: Mapping[str, float]
    rule: str


@dataclass(slots=True)
class Early:
    """A link after the exact step: its candidate pool, and the suggestions when that settled
    it (no archive needed)."""

    pool: Pool
    finished: tuple[Candidate, ...] | None = None
    #: A confident guess only its URL supports: the answer unless the archived copy says otherwise.
    unread: tuple[Candidate, ...] | None = None

    @property
    def ref(self) -> Reference:
        return self.pool.ref


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
    """Recovery state for one run: providers, what the run has read, rewrites it learned."""

    def __init__(self, *, config: Config, client: Fetcher, cache: CacheStore | None, link_times: Mapping[str, datetime] | None) -> None:
        self.config = config
        self.remap = Remap(config.remap)  # requests may be rewritten; candidates are named as the docs name them
        self.remote = Remote(client, cache, to_document=self._document if self.remap else None)
        self.reader = Reader(client, self.remote, self.remap)
        self.archives, self.searches = build_providers(config, self.remote)
        self.learned = LearnedRewrites()
        self.link_times = dict(link_times or {})
        self.threshold = config.min_confidence or DEFAULT_AUTOFIX_CONFIDENCE
        self.archive_lookups: dict[str, ArchiveLookup] = {}  # dead URL -> what its archive lookup came to

    def _document(self, url: str, final: str) -> str:
        """Where a remapped request for `url` ended (`final`), as the docs name it."""
        self.remap.learn([url])
        return self.remap.document(final)

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

    def learn(self, dead: str, suggestions: Sequence[Candidate]) -> None:
        """A confident answer teaches the run a rewrite for the other links of its host."""
        top = suggestions[0] if suggestions else None
        if (top is not None and top.method not in (Method.ARCHIVE, Method.FRAGMENT) and top.confidence >= self.threshold
                and not top.evidence.get(Evidence.HOLD)):
            self.learned.record(dead, urldefrag(top.url)[0])  # a rule names pages, not their sections

    # -- one link ------------------------------------------------------------------------

    async def recover(self, lr: LinkResult, *, early: Early | None = None, copy: ArchiveCopy | None = None,
                      ) -> tuple[tuple[Candidate, ...], Archived | None]:
        trace = await self.recover_traced(lr, early=early, copy=copy)
        return trace.suggestions, trace.archived

    @staticmethod
    def _traced(pool: Pool, stage: str, suggestions: tuple[Candidate, ...], archived: Archived | None = None) -> RecoveryTrace:
        ref = pool.ref
        return RecoveryTrace(dead=ref.dead, anchor=ref.anchor.text, weak_anchor=ref.anchor.weak, stage=stage,
                             copy=bool(ref.known.copy_terms), candidates=pool.trace(suggestions),
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
        pool = Pool(Reference(dead=dead, anchor=anchor, known=known, dead_is_home=is_home_page(dead)), threshold=self.threshold)

        # 1. The exact and cheap: permanent redirect, learned rewrites, known rewrites.
        if lr.result.permanent and lr.result.final_url and urldefrag(lr.result.final_url)[0] != dead:
            await self._try_exact(pool, [Guess(url=lr.result.final_url, method=Method.REDIRECT, flags={"redirect": 1.0},
                                               rule="permanent redirect")])
        if lr.result.status is not Status.BROKEN:
            return Early(pool=pool, finished=tuple(pool.suggest()))  # already checked: nothing else to gate
        if not pool.confident():
            await self._try_learned(pool)
        if not pool.confident():
            cheap = [Guess(url=u, method=Method.REWRITE, flags={"rewrite": 1.0}, rule=rule) for u, rule in cheap_rewrites(dead)]
            if lr.result.reason == Reason.DNS:  # the host is gone: only a rewrite to another host can help
                cheap = [g for g in cheap if urlsplit(g.url).hostname != urlsplit(dead).hostname]
            await self._try_exact(pool, cheap)
        finished, unread = self._exact_answer(pool)
        return Early(pool=pool, finished=finished, unread=unread)

    async def still_needs_archive(self, early: Early) -> bool:
        """Before its copy is fetched, a link tries the rewrites learned since its exact step
        (on other links of its host); False when one of them settles it."""
        if early.finished is None:
            await self._try_learned(early.pool)
            early.finished, unread = self._exact_answer(early.pool)
            if unread is not None:
                early.unread = unread
        return early.finished is None

    async def _try_learned(self, pool: Pool) -> None:
        learned = [Guess(url=u, method=Method.REWRITE, flags={"rewrite": 1.0, "learned": min(1.0, s / 2)}, rule=rule)
                   for u, rule, s in self.learned.rewrites(pool.ref.dead)]
        await self._try_exact(pool, learned[:2])

    async def recover_traced(self, lr: LinkResult, *, early: Early | None = None, copy: ArchiveCopy | None = None,
                             ) -> RecoveryTrace:
        """Recover one link and say how: every candidate, its evidence and the gate's verdict. A
        run passes the link's exact step and archive answer (recover/run.py); alone, the link
        does both itself. What became of the archive lookup is kept in `archive_lookups`."""
        early = early or await self.exact_step(lr)
        pool = early.pool
        if early.finished is not None:
            return self._traced(pool, "exact", early.finished)
        link, dead, anchor = lr.link, pool.ref.dead, pool.ref.anchor
        budget = Budget(deadline=time.monotonic() + self.config.max_seconds, queries=self.config.max_queries, fetches=self.config.max_fetches)
        # 2. Context: the archived copy as it was when the link was written.
        if copy is None:
            when, dated = self.link_time(lr)
            copy = await self.archived_copy(dead, when, budget, dated=dated)
        if copy.lookup is not None:
            self.archive_lookups[dead] = copy.lookup
        capture, copy_page = copy.capture, copy.page
        if early.unread is not None and (copy_page is None or not copy_page.text):
            return self._traced(pool, "exact", early.unread)  # nothing to read it against: its URL stands
        if copy_page is not None and copy_page.text:
            pool.know(replace(pool.ref.known, copy_terms=as_vector(normal_terms(copy_page.text)), copy_title=copy_page.title))
        archived = (Archived(url=capture.url, datetime=capture.iso_datetime, title=copy_page.title if copy_page else "")
                    if capture is not None else None)

        # 3. Candidates. Fig. 4: a weak anchor without an archived copy gets no search queries;
        # only the site's own pages, on URL evidence, which the calibration weighs accordingly.
        have_copy = bool(pool.ref.known.copy_terms)
        queries: list[Query] = []
        if have_copy or not anchor.weak:
            queries = build_queries(anchor, parent_text=link.page.text, copy_title=copy_page.title if copy_page else "",
                                    copy_text=copy_page.text if copy_page else "", expansion_terms=self.config.expansion_terms)
        await self._same_site(pool, queries, budget)
        await self._parents(pool)
        await self._evaluate(pool, budget)
        web = [p for p in self.searches if not p.same_site]
        pending = list(queries)
        stale = 0  # rounds in a row that did not improve the best candidate
        while web and pending and not pool.confident() and budget.queries > 0 and not budget.expired():
            batch, pending = pending[: min(QUERY_BATCH, budget.queries)], pending[QUERY_BATCH:]
            budget.queries -= len(batch)
            best = pool.best()
            await self._search(pool, web, batch, budget)
            await self._evaluate(pool, budget)
            stale = stale + 1 if pool.best() <= best else 0
            if stale >= STALE_ROUNDS:
                break  # the content does not seem to be on the web any more: stop spending
        if have_copy and not pool.confident():
            await self._evaluate(pool, budget)  # spend what is left of the fetch budget
        return self._traced(pool, "full", await self._gate(pool, capture, copy_page), archived)

    # -- candidates ------------------------------------------------------------------------

    def _exact_answer(self, pool: Pool) -> tuple[tuple[Candidate, ...] | None, tuple[Candidate, ...] | None]:
        """The exact step's (finished, unread); (None, None) when no guess is confident. A guess
        finishes the link when it is the dead URL in another form (a cheap rewrite: scheme, host,
        `.html` or `/`) or has more than its URL (title, redirect, the site's links to it). A page
        a rule learned from other links finds, with only its URL for it, is `unread`: read first
        against the archived copy, as a page of that name may hold other content (devguide's
        `security/` is not the old `contrib/security/`)."""
        if not pool.confident():
            return None, None
        features = pool.ranked()[0][0].features
        answer = tuple(pool.suggest())  # already checked: nothing else to gate
        if not features.get("learned") or evidence_kinds(features) - {"name", "rule"}:
            return answer, None
        return None, answer

    async def _try_exact(self, pool: Pool, guesses: Sequence[Guess]) -> None:
        """Check the guesses at once; keep the live ones, with the evidence of their content."""
        guesses = [g for g in guesses if g.url not in pool]
        finals = await asyncio.gather(*(self.reader.live(g.url, pool.ref, exact=True) for g in guesses))
        for guess, final in zip(guesses, finals):
            if final is None:
                entry = pool.add(Contender(url=guess.url, method=guess.method, flags=dict(guess.flags), evidence={Evidence.RULE: guess.rule}))
                pool.drop(entry, "not live, or lands above the dead page")
        # One entry per live address (the last guess that reached it names it).
        live = {final: g for g, final in zip(guesses, finals) if final is not None and final not in pool}
        # A redirect is the site's own word; a guessed rewrite is read, for evidence of its content.
        pages = await asyncio.gather(*(
            self.reader.page(final) if g.method != Method.REDIRECT else _no_page(final) for final, g in live.items()
        ))
        for (final, guess), page in zip(live.items(), pages):
            entry = pool.add(Contender(url=final, method=guess.method, flags=dict(guess.flags),
                                       evidence={Evidence.RULE: guess.rule, Evidence.CHECKED: True}))
            pool.read(entry, page)
            pool.score(entry, self.reader.features(pool.ref, final, entry))

    async def _same_site(self, pool: Pool, queries: Sequence[Query], budget: Budget) -> None:
        """Candidates from the dead page's own site; the pool learns the site's pages."""
        for provider in self.searches:
            if not isinstance(provider, Site):
                continue
            try:
                index = await provider.index(pool.ref.dead, budget)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.remote.warn_once("site", "site: failed (%s)", exc)
                continue
            if index.hits:  # what the site has today (page-name uniqueness, section pages) and had
                pool.know(pool.ref.known.on_site(index.today, index.ever, index.root))
            ref = pool.ref

            def prescore(hit: Hit, ref: Reference = ref) -> float:
                return self.reader.prescore(ref, hit)

            # Pages whose URL or title resembles the dead link, then BM25 answers to the queries.
            neighbours = sorted(index.hits, key=lambda h: (-prescore(h), h.url))[:SITE_NEIGHBOURS]
            pool.add_hits(neighbours, Method.SAME_SITE, prescore)
            for query in queries:
                hits = [replace(h, query=query.text, rank=i) for i, (_, h) in enumerate(index.search(query.text, self.config.hits_per_query))]
                pool.add_hits(hits, Method.SAME_SITE, prescore)

    async def _parents(self, pool: Pool) -> None:
        """The home page and the directory pages above the dead one: maintainers redirect a page
        merged into its section there. Read at once (each is read once per run)."""
        if not any(p.same_site for p in self.searches):
            return
        entries = []
        for url in parent_dirs(pool.ref.dead):
            if url == pool.ref.dead:
                continue
            entry = pool.add(Contender(url=url, method=Method.PARENT, hits=[Hit(url=url, provider="site")]))
            if not entry.fetched and not entry.dropped:
                entries.append(entry)
        pages = await asyncio.gather(*(self.reader.page(e.url) for e in entries))
        for entry, page in zip(entries, pages):
            pool.read(entry, page)

    async def _search(self, pool: Pool, providers: Sequence[SearchProvider], batch: Sequence[Query], budget: Budget) -> None:
        jobs = [(p, q) for q in batch for p in providers]
        ref = pool.ref

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
            pool.add_hits(hits, query.method, lambda hit: self.reader.prescore(ref, hit))

    async def _evaluate(self, pool: Pool, budget: Budget) -> None:
        """Fetch the most promising unfetched candidates and score every fetched one. A page
        already read in this run costs nothing from the budget."""
        pending = sorted((e for e in pool if not e.fetched and not e.dropped), key=lambda e: (-e.prescore, e.url))
        known = [e for e in pending if self.reader.has_read(e.url)]
        fresh = [e for e in pending if not self.reader.has_read(e.url)][: max(0, min(ROUND_FETCHES, budget.fetches))]
        if fresh and budget.expired():
            fresh = []
        budget.fetches -= len(fresh)
        take = known + fresh
        pages = await asyncio.gather(*(self.reader.page(e.url) for e in take))
        for entry, page in zip(take, pages):
            pool.read(entry, page)
        ref = pool.ref
        seen: dict[str, str] = {}  # page -> the URL it is ranked under
        names = link_names((e.page for e in pool if e.page is not None), ref.dead)
        called = dead_names(ref.anchor.text, ref.anchor.weak, self.reader.furniture.clean(ref.known.copy_title, ref.dead))
        for entry in sorted(pool, key=lambda e: (not e.flags, -bool(e.features), e.url)):
            if entry.dropped or not entry.fetched:
                continue
            if not entry.flags:  # checked exact guesses: their URL is final, their page may be unreadable
                read = entry.page
                if read is None or not read.ok:
                    pool.drop(entry, f"not a page ({read.status if read is not None and read.status else 'no answer'})")
                    continue
                if entry.final == ref.dead:
                    pool.drop(entry, "lands on the dead URL")
                    continue
            key = page_identity(entry.final)
            if key in seen and seen[key] != entry.url:
                pool.drop(entry, f"same page as {seen[key]}")
                continue
            seen[key] = entry.url
            pool.score(entry, self.reader.features(ref, entry.final, entry) | {"in_exact": named_as(names, entry.final, called)})

    async def _gate(self, pool: Pool, capture: Capture | None, copy: WebPage | None) -> tuple[Candidate, ...]:
        # The best few are checked through the checker (soft-404s, redirects); the rest were
        # fetched with status 200 and say so in their evidence. A dead one leaves the ranking,
        # and the others are ranked again without it.
        for _ in range(2):
            head = [e for e, _ in pool.ranked() if not e.evidence.get(Evidence.CHECKED)][:LIVE_CHECKS]
            finals = await asyncio.gather(*(self.reader.live(e.final, pool.ref) for e in head))
            for entry, final in zip(head, finals):
                if final is None:
                    pool.drop(entry, "not live (dead, soft-404, or back to the dead URL)")
                else:
                    entry.evidence[Evidence.CHECKED] = True
                    if page_identity(final) != page_identity(entry.final):
                        entry.evidence[Evidence.REDIRECTS_TO] = final
            if all(f is not None for f in finals):
                break
        suggestions = pool.suggest()
        if capture is not None:
            # The dead page's own copy, placed by its confidence: above the guesses weaker than it,
            # and above a page over the dead one held for review (where catch-all redirects land).
            archive = Candidate(
                url=capture.url,
                confidence=ARCHIVE_CONFIDENCE,
                method=Method.ARCHIVE,
                evidence={Evidence.DATETIME: capture.iso_datetime, Evidence.MATCHED_TITLE: copy.title if copy else "",
                          Evidence.PROVIDER: capture.provider},
            )
            at = next((n for n, c in enumerate(suggestions)
                       if c.confidence < ARCHIVE_CONFIDENCE or (c.evidence.get(Evidence.HOLD) and c.evidence[Evidence.FEATURES].get("above"))),
                      len(suggestions))
            suggestions.insert(at, archive)
        return tuple(suggestions)


async def _no_page(url: str) -> WebPage:
    return WebPage(url=url, status=None)
