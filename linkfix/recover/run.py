"""How a run recovers its broken links: the cheap steps for every link first, then the archive
as one scheduled resource, then the rest of each link's recovery as its copy arrives.

1. Exact step (recover.recoverer.Recoverer.exact_step): permanent redirects, rewrites learned in
   this run, known rewrites. It needs no archive; a link it settles never asks the archive.
2. The archive (archive.ArchiveScheduler): every other link's dead URL, neediest first (a weak
   anchor with no candidate at all, then no candidate, then a candidate below the auto-fix
   confidence), within the run's archive budget (`archive_seconds`, or no limit with
   `archive_wait`). What it could not ask is deferred, and said so in the report.
3. The rest (search, ranking, gate) per link, each host's links one after another (politeness,
   and rewrites learned on one link are tried on the next), the first whose archive answer is
   in going first; hosts run concurrently.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TypeVar
from urllib.parse import urldefrag, urlsplit

from ..config import Config
from ..errors import LinkfixError
from ..model import Archived, ArchiveLookup, ArchiveState, Candidate, LinkResult, Scope
from .archive import ArchiveCopy, ArchiveScheduler, ArchiveStats, Need
from .fragments import fragment_evidence, fragment_suggestions
from .providers.remote import REQUESTS, CacheStore, Fetcher
from .recoverer import Early, Recoverer, wants_fragment, wants_recovery

log = logging.getLogger(__name__)

HOST_PARALLEL = 8  # hosts recovered at once; links of one host go one after another

T = TypeVar("T")


@dataclass(frozen=True, slots=True, kw_only=True)
class RecoveryStats:
    """What one broken link's recovery cost."""

    url: str
    seconds: float  # its own recovery (exact step and the rest), not the wait for the archive
    requests: int  # requests its recovery sent (checks, pages, searches), the archive's apart
    archive: str = ""  # found, no-capture, deferred; "" when it did not need the archive
    archive_reason: str = ""  # why deferred
    archive_wait: float = 0.0  # seconds from asking the archive to its answer
    archive_requests: float = 0.0  # archive requests for it (its share of batch queries)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunStats:
    """The run's recovery counters: per link, and the archive's."""

    links: tuple[RecoveryStats, ...]
    archive: ArchiveStats = field(default_factory=ArchiveStats)


def need_priority(early: Early) -> int:
    """0 first: a weak anchor with no candidate needs the copy most, then no candidate, then a
    candidate the cheap steps found but do not trust enough."""
    if not early.pool.has_evidence():
        return 0 if early.ref.anchor.weak else 1
    return 2


@dataclass(slots=True)
class LinkWork:
    """One dead URL's recovery in a run: the first link to it, what each step gave, what it cost."""

    url: str
    link: LinkResult
    early: Early | None = None  # after the exact step (None: it failed or ran out of time)
    copy: ArchiveCopy | None = None  # the archive's answer, when the link needed it
    released: bool = False  # settled by a learned rewrite before its copy was fetched
    outcome: tuple[tuple[Candidate, ...], Archived | None] | None = None  # suggestions, archived copy
    seconds: float = 0.0  # its own recovery, not the wait for the archive
    requests: int = 0

    def stats(self) -> RecoveryStats:
        lookup = self.copy.lookup if self.copy is not None else None
        return RecoveryStats(
            url=self.url, seconds=self.seconds, requests=self.requests,
            archive=lookup.state.value if lookup is not None else "", archive_reason=lookup.reason if lookup is not None else "",
            archive_wait=self.copy.waited if self.copy is not None else 0.0,
            archive_requests=self.copy.requests if self.copy is not None else 0.0,
        )


async def recover_all(
    results: Sequence[LinkResult],
    *,
    config: Config,
    client: Fetcher,
    cache: CacheStore | None,
    link_times: Mapping[str, datetime] | None = None,
    on_recovery: Callable[[RunStats], None] | None = None,
) -> list[LinkResult]:
    """The same results, with `suggestions`, `archived` and `archive_lookup` filled for broken
    external links (and the redirect target for permanently redirected ones, and the nearest ids
    for a missing #fragment); others unchanged. `on_recovery` receives the run's counters."""
    run = RunRecovery(results, config=config, recoverer=Recoverer(config=config, client=client, cache=cache, link_times=link_times))
    await run.exact_steps()
    try:
        await run.rest()
    finally:
        await run.scheduler.close()
    _say_deferred(w.copy for w in run.links.values() if w.copy is not None)
    remap = run.recoverer.remap  # candidates found through remapped requests are named as the docs name them
    if remap:
        remap.learn(urldefrag(lr.resolved)[0] for lr in results if lr.scope is Scope.EXTERNAL)
    out = [await run.result_of(lr) for lr in results]
    if on_recovery is not None:
        on_recovery(RunStats(links=tuple(w.stats() for w in run.links.values()), archive=run.scheduler.stats))
    return out


class RunRecovery:
    """The run's broken links, each recovered once per dead URL: exact steps for all, the
    archive scheduled for those still waiting, the rest per host as copies arrive."""

    def __init__(self, results: Sequence[LinkResult], *, config: Config, recoverer: Recoverer) -> None:
        self.config = config
        self.recoverer = recoverer
        self.links: dict[str, LinkWork] = {}
        for lr in results:
            if wants_recovery(lr):
                url = urldefrag(lr.resolved)[0]
                self.links.setdefault(url, LinkWork(url=url, link=lr))
        self.by_host: dict[str, list[LinkWork]] = {}
        for work in self.links.values():
            self.by_host.setdefault(urlsplit(work.url).netloc, []).append(work)
        self.stepped: list[LinkWork] = []  # through the exact step, in the order they got through
        self.gate = asyncio.Semaphore(HOST_PARALLEL)
        self.hard_limit = config.max_seconds + config.timeout + 1
        deadline = math.inf if config.archive_wait else time.monotonic() + config.archive_seconds
        self.scheduler = ArchiveScheduler(recoverer.archives, recoverer.remote.cache, deadline=deadline)

    async def _counted(self, work: LinkWork, step: Awaitable[T]) -> T:
        """`step` of `work`'s recovery, its time and requests counted to it."""
        counter = [0]
        token = REQUESTS.set(counter)
        started = time.monotonic()
        try:
            async with asyncio.timeout(self.hard_limit):  # (3.11's wait_for can lose a cancellation)
                return await step
        finally:
            REQUESTS.reset(token)
            work.seconds += time.monotonic() - started
            work.requests += counter[0]

    async def exact_steps(self) -> None:
        """Every link's exact step (hosts at once, a host's links in turn); then the archive is
        asked for the copies of those still waiting, neediest first."""
        await asyncio.gather(*(self._exact_host(works) for works in self.by_host.values()))
        needs = []
        for work, early in _waiting(self.stepped):  # the archive takes needs of one priority in this order
            when, dated = self.recoverer.link_time(work.link)
            needs.append(Need(url=work.url, when=when, dated=dated, priority=need_priority(early)))
        self.scheduler.start(needs)

    async def _exact_host(self, works: list[LinkWork]) -> None:
        async with self.gate:
            for work in works:
                async with _one_link(work.url):
                    work.early = await self._counted(work, self.recoverer.exact_step(work.link))
                    self.stepped.append(work)
                    if work.early.finished is not None:
                        work.outcome = (work.early.finished, None)
                        self.recoverer.learn(work.url, work.early.finished)

    async def rest(self) -> None:
        await asyncio.gather(*(self._rest_host(works) for works in self.by_host.values()))

    async def _rest_host(self, works: list[LinkWork]) -> None:
        # Neediest first (as the archive answers them); each link first tries the rewrites
        # learned meanwhile, and asks for its copy only when it still needs it.
        for work, early in sorted(_waiting(works), key=lambda pair: need_priority(pair[1])):
            async with _one_link(work.url):
                async with self.gate:
                    needed = await self._counted(work, self.recoverer.still_needs_archive(early))
                if needed:
                    work.copy = await self.scheduler.answer(work.url, deadline=time.monotonic() + self.config.max_seconds)
                else:
                    self.scheduler.release(work.url)
                    work.released = True
                async with self.gate:
                    work.outcome = await self._counted(work, self.recoverer.recover(work.link, early=early, copy=work.copy))
                self.recoverer.learn(work.url, work.outcome[0])

    async def result_of(self, lr: LinkResult) -> LinkResult:
        """One link's result with what its recovery found."""
        key = urldefrag(lr.resolved)[0]
        work = self.links.get(key)
        own = work if wants_recovery(lr) else None  # its dead URL's recovery is this link's too
        if own is not None and own.outcome is not None:
            suggestions, archived = own.outcome
            # Suggestions are found per page; whether each keeps this link's #fragment is per link.
            suggestions = await fragment_evidence(self.recoverer.reader, suggestions, urldefrag(lr.resolved)[1])
            lr = replace(lr, suggestions=self.recoverer.remap.candidates(suggestions), archived=archived,
                         archive_lookup=self.recoverer.archive_lookups.get(key))
        elif own is not None and own.copy is not None:  # recovery failed, but the archive's answer stands
            lr = replace(lr, archive_lookup=own.copy.lookup)
        elif wants_fragment(lr):  # the page is there; the anchor moved: the nearest ids on it
            lr = replace(lr, suggestions=await fragment_suggestions(self.recoverer.reader, lr))
        if lr.archived is None and work is not None and work.released and (capture := self.scheduler.capture_of(key)) is not None:
            # Settled by a learned rewrite before its copy was fetched: the capture the batch
            # lookup found is still worth showing (its page was not needed).
            lr = replace(lr, archived=Archived(url=capture.url, datetime=capture.iso_datetime),
                         archive_lookup=ArchiveLookup(state=ArchiveState.FOUND))
        return lr


def _waiting(works: Iterable[LinkWork]) -> list[tuple[LinkWork, Early]]:
    """The links through the exact step and not settled by it, with what it gave."""
    return [(w, w.early) for w in works if w.early is not None and w.early.finished is None]


@asynccontextmanager
async def _one_link(url: str) -> AsyncIterator[None]:
    """One bad link must not sink the run: its failure is logged (a bug to report), the run goes on."""
    try:
        yield
    except TimeoutError:
        log.warning("recovery of %s ran out of time", url)
    except (asyncio.CancelledError, LinkfixError):
        raise
    except Exception:
        log.exception("recovery of %s failed", url)


def _say_deferred(copies: Iterable[ArchiveCopy]) -> None:
    """One warning for the run's deferred archive lookups, with their reasons."""
    reasons = Counter(c.lookup.reason for c in copies if c.lookup is not None and c.lookup.deferred)
    if reasons:
        log.warning("archive: %d lookup%s deferred (%s); a later run asks again, or use --archive-wait to wait for all",
                    sum(reasons.values()), "" if sum(reasons.values()) == 1 else "s",
                    ", ".join(f"{n} {reason}" for reason, n in reasons.most_common()))
