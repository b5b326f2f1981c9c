"""How a run recovers its broken links: the cheap steps for every link first, then the archive
as one scheduled resource, then the rest of each link's recovery as its copy arrives.

1. Exact step (recover.pipeline.Recoverer.exact_step): permanent redirects, rewrites learned in
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
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any
from urllib.parse import urldefrag, urlsplit

from ..config import Config
from ..errors import LinkfixError
from ..model import Archived, ArchiveLookup, ArchiveState, Candidate, LinkResult, Scope
from .archive import ArchiveCopy, ArchiveScheduler, ArchiveStats, Need
from .pipeline import Early, Recoverer, wants_fragment, wants_recovery
from .providers.base import REQUESTS, Fetcher

log = logging.getLogger(__name__)

HOST_PARALLEL = 8  # hosts recovered at once; links of one host go one after another


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
    has_candidate = any(f.features for f in early.found.values())
    if not has_candidate:
        return 0 if early.ref.anchor.weak else 1
    return 2


async def recover_all(
    results: Sequence[LinkResult],
    *,
    config: Config,
    client: Fetcher,
    cache: Any,
    link_times: Mapping[str, datetime] | None = None,
    on_recovery: Callable[[RunStats], None] | None = None,
) -> list[LinkResult]:
    """The same results, with `suggestions`, `archived` and `archive_lookup` filled for broken
    external links (and the redirect target for permanently redirected ones, and the nearest ids
    for a missing #fragment); others unchanged. `on_recovery` receives the run's counters."""
    recoverer = Recoverer(config=config, client=client, cache=cache, link_times=link_times)
    by_url: dict[str, LinkResult] = {}
    for lr in results:
        if wants_recovery(lr):
            by_url.setdefault(urldefrag(lr.resolved)[0], lr)
    by_host: dict[str, list[str]] = {}
    for url in by_url:
        by_host.setdefault(urlsplit(url).netloc, []).append(url)
    gate = asyncio.Semaphore(HOST_PARALLEL)
    hard_limit = config.max_seconds + config.timeout + 1
    early: dict[str, Early] = {}
    seconds: dict[str, float] = defaultdict(float)
    requests: dict[str, int] = defaultdict(int)

    async def counted(url: str, work: Any) -> Any:
        counter = [0]
        token = REQUESTS.set(counter)
        started = time.monotonic()
        try:
            return await work
        finally:
            REQUESTS.reset(token)
            seconds[url] += time.monotonic() - started
            requests[url] += counter[0]

    async def exact_host(urls: list[str]) -> None:
        async with gate:
            for url in urls:
                try:
                    early[url] = await asyncio.wait_for(counted(url, recoverer.exact_step(by_url[url])), hard_limit)
                except TimeoutError:
                    log.warning("recovery of %s ran out of time", url)
                except (asyncio.CancelledError, LinkfixError):
                    raise
                except Exception:  # one bad link must not sink the run; this is a bug to report
                    log.exception("recovery of %s failed", url)
                else:
                    if early[url].finished is not None:
                        recoverer.learn(url, early[url].finished or ())

    await asyncio.gather(*(exact_host(urls) for urls in by_host.values()))

    waiting = {url: e for url, e in early.items() if e.finished is None}
    deadline = math.inf if config.archive_wait else time.monotonic() + config.archive_seconds
    scheduler = ArchiveScheduler(recoverer.archives, recoverer.remote.cache, deadline=deadline)
    needs = []
    for url, e in waiting.items():
        when, dated = recoverer.link_time(by_url[url])
        needs.append(Need(url=url, when=when, dated=dated, priority=need_priority(e)))
    scheduler.start(needs)
    outcome: dict[str, tuple[tuple[Candidate, ...], Archived | None]] = {
        url: (e.finished, None) for url, e in early.items() if e.finished is not None
    }
    copies: dict[str, ArchiveCopy] = {}
    released: set[str] = set()  # links settled before their copy was fetched

    async def rest_host(urls: list[str]) -> None:
        # Neediest first (as the archive answers them); each link first tries the rewrites
        # learned meanwhile, and asks for its copy only when it still needs it.
        for url in sorted((u for u in urls if u in waiting), key=lambda u: need_priority(waiting[u])):
            try:
                async with gate:
                    needed = await asyncio.wait_for(counted(url, recoverer.still_needs_archive(waiting[url])), hard_limit)
                if needed:
                    copies[url] = copy = await scheduler.answer(url, deadline=time.monotonic() + config.max_seconds)
                else:
                    scheduler.release(url)
                    released.add(url)
                    copy = None
                async with gate:
                    outcome[url] = await asyncio.wait_for(
                        counted(url, recoverer.recover(by_url[url], early=waiting[url], copy=copy)), hard_limit)
            except TimeoutError:
                log.warning("recovery of %s ran out of time", url)
            except (asyncio.CancelledError, LinkfixError):
                raise
            except Exception:
                log.exception("recovery of %s failed", url)
            else:
                recoverer.learn(url, outcome[url][0])

    try:
        await asyncio.gather(*(rest_host(urls) for urls in by_host.values()))
    finally:
        await scheduler.close()
    _say_deferred(copies.values())

    remap = recoverer.remap  # candidates found through remapped requests are named as the docs name them
    if remap:
        remap.learn(urldefrag(lr.resolved)[0] for lr in results if lr.scope is Scope.EXTERNAL)
    out = []
    for lr in results:
        key = urldefrag(lr.resolved)[0]
        if wants_recovery(lr) and key in outcome:
            suggestions, archived = outcome[key]
            # Suggestions are found per page; whether each keeps this link's #fragment is per link.
            suggestions = await recoverer.with_fragment_evidence(suggestions, urldefrag(lr.resolved)[1])
            lr = replace(lr, suggestions=remap.candidates(suggestions), archived=archived,
                         archive_lookup=recoverer.archive_lookups.get(key))
        elif wants_recovery(lr) and key in copies:  # recovery failed, but the archive's answer stands
            lr = replace(lr, archive_lookup=copies[key].lookup)
        elif wants_fragment(lr):  # the page is there; the anchor moved: the nearest ids on it
            lr = replace(lr, suggestions=await recoverer.fragment_suggestions(lr))
        if lr.archived is None and key in released and (capture := scheduler.capture_of(key)) is not None:
            # Settled by a learned rewrite before its copy was fetched: the capture the batch
            # lookup found is still worth showing (its page was not needed).
            lr = replace(lr, archived=Archived(url=capture.url, datetime=capture.iso_datetime),
                         archive_lookup=ArchiveLookup(state=ArchiveState.FOUND))
        out.append(lr)
    if on_recovery is not None:
        on_recovery(RunStats(links=tuple(_link_stats(url, seconds, requests, copies.get(url)) for url in by_url),
                             archive=scheduler.stats))
    return out


def _link_stats(url: str, seconds: Mapping[str, float], requests: Mapping[str, int], copy: ArchiveCopy | None) -> RecoveryStats:
    lookup = copy.lookup if copy is not None else None
    return RecoveryStats(
        url=url, seconds=seconds.get(url, 0.0), requests=requests.get(url, 0),
        archive=lookup.state.value if lookup is not None else "", archive_reason=lookup.reason if lookup is not None else "",
        archive_wait=copy.waited if copy is not None else 0.0, archive_requests=copy.requests if copy is not None else 0.0,
    )


def _say_deferred(copies: Any) -> None:
    """One warning for the run's deferred archive lookups, with their reasons."""
    reasons = Counter(c.lookup.reason for c in copies if c.lookup is not None and c.lookup.deferred)
    if reasons:
        log.warning("archive: %d lookup%s deferred (%s); a later run asks again, or use --archive-wait to wait for all",
                    sum(reasons.values()), "" if sum(reasons.values()) == 1 else "s",
                    ", ".join(f"{n} {reason}" for reason, n in reasons.most_common()))
