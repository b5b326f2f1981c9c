"""The web archive as one scheduled, shared resource per run.

Archives limit each client address tightly (the Internet Archive: ~30 search requests a minute,
and an hour's firewall block for a client that ignores its 429s), so a run does not let each
link ask for itself. The scheduler is given every link that needs the dead page's archived copy
(`Need`: URL, when the link was written, priority) and:

1. answers from the persistent store what earlier runs learned (a capture, or "none before that
   time"), so a second run asks only for what is missing;
2. groups the rest as the archive answers them best (`ArchiveProvider.batches`: the Wayback
   Machine answers the dead URLs of one directory with one CDX prefix query) and asks group by
   group, the groups of the links that most need a copy first;
3. fetches each capture under the archive's playback limit, in the same order, while the
   lookups go on;
4. settles every link: found, no capture, or deferred with the reason (the rate limit left no
   slot before the run's deadline, a 429 asked for a longer wait, the archive refuses
   connections, or failed). A deferred lookup is never "no capture", and is not stored.

Requests go through the providers' limiters (providers.limits.RateLimiter.turn), one per endpoint group.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Literal

from ..model import ArchiveLookup, ArchiveState
from .pages import WebPage, parse_page
from .providers.base import ArchiveProvider, Capture
from .providers.limits import FAILED, Budget, Deferred
from .providers.remote import CacheStore
from .providers.wayback import timestamp

log = logging.getLogger(__name__)

NAMESPACE = "archive-lookup"
TTL_FOUND = 30 * 86400.0  # a capture stays where it is
TTL_NONE = 7 * 86400.0  # none before a fixed time: the archive rarely adds old captures
TTL_NONE_LATEST = 86400.0  # none before "now" (no link time): a capture may come any day


@dataclass(frozen=True, slots=True, kw_only=True)
class Need:
    """A dead URL whose archived copy recovery wants."""

    url: str
    when: datetime  # the copy wanted is the last good capture at or before this
    dated: bool = True  # `when` is the link's written time (git), not "now"
    priority: int = 1  # 0 first: the links that need the copy most


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchiveCopy:
    """A link's archive answer: the capture and its page (if any) and what the lookup came to."""

    capture: Capture | None
    page: WebPage | None
    lookup: ArchiveLookup | None  # None: no archive is configured
    waited: float = 0.0  # seconds from asking to the answer
    requests: float = 0.0  # archive requests made for it (its share of batch queries)


@dataclass(slots=True)
class _Pending:
    need: Need
    asked: float
    future: asyncio.Future[ArchiveCopy]
    order: int = 0
    wanted: bool = False  # the link asked for its copy (`answer`)
    deadline: float = math.inf  # until when its copy may wait for the playback limit
    queued: bool = False  # its copy is queued for fetching
    capture: Capture | None = None
    deferred: Deferred | None = None  # from an archive asked earlier in the list
    requests: float = 0.0


@dataclass(slots=True)
class ArchiveStats:
    """What the archive cost a run (for the benchmark's counters)."""

    requests: dict[str, int] = field(default_factory=dict)  # per provider and endpoint group
    stored: int = 0  # lookups answered from the persistent store
    deferred: int = 0
    waited: float = 0.0  # seconds spent waiting for the archive's limits


class ArchiveScheduler:
    """One run's archive lookups and copies; see the module docstring."""

    def __init__(self, archives: Sequence[ArchiveProvider], cache: CacheStore | None, *, deadline: float = math.inf) -> None:
        self.archives = list(archives)
        self.cache = cache
        self.deadline = deadline
        self._pending: dict[str, _Pending] = {}
        self._task: asyncio.Task[None] | None = None  # the lookups
        self._fetcher: asyncio.Task[None] | None = None  # the copies
        self._copies: list[tuple[int, int, str]] = []  # heap: (priority, order, url) of copies to fetch
        self._wake = asyncio.Event()
        self.stats = ArchiveStats()

    # -- the run's side ----------------------------------------------------------------------

    def start(self, needs: Sequence[Need]) -> None:
        """Begin looking up `needs` (by priority, then in the order given) in the background.
        Copies are fetched only for the links that then ask for them (`answer`)."""
        loop = asyncio.get_running_loop()
        now = time.monotonic()
        for need in needs:
            if need.url not in self._pending:
                self._pending[need.url] = _Pending(need=need, asked=now, future=loop.create_future(), order=len(self._pending))
        if not self.archives:  # nothing to ask: every link goes without
            self._settle_rest(Deferred(FAILED))
        elif self._task is None:
            self._task = asyncio.ensure_future(self._run())

    async def answer(self, url: str, *, deadline: float = -math.inf) -> ArchiveCopy:
        """The archive answer for `url` (given to `start`): its copy is fetched now if found.
        The copy may wait for the playback limit until the run's archive deadline or the
        link's own `deadline`, whichever is later: fetching it is part of the link's recovery."""
        entry = self._pending[url]
        if not entry.wanted:
            entry.wanted = True
            entry.asked = time.monotonic()
            entry.deadline = max(self.deadline, deadline)
            self._want(entry)
        return await asyncio.shield(entry.future)

    def release(self, url: str) -> None:
        """`url` does not need its copy after all (the link was settled otherwise): not fetched."""
        entry = self._pending.get(url)
        if entry is not None and not entry.future.done():
            entry.future.cancel()

    def capture_of(self, url: str) -> Capture | None:
        """The capture found for `url` so far, its copy fetched or not (a released link's)."""
        entry = self._pending.get(url)
        return entry.capture if entry is not None else None

    async def close(self) -> None:
        for task in (self._task, self._fetcher):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for entry in self._pending.values():
            if not entry.wanted and not entry.future.done():
                entry.future.cancel()  # nobody asked for it
        self._settle_rest(Deferred(FAILED, "the run ended before the archive was asked"))
        self.stats.deferred = sum(1 for e in self._pending.values() if e.wanted and not e.future.cancelled()
                                  and (e.future.result().lookup or _FOUND).deferred)
        for archive in self.archives:
            for group, count in archive.counts().items():
                self.stats.requests[f"{archive.name}:{group}"] = count
            for limiter in (getattr(archive, "limiter", None), getattr(archive, "playback", None)):
                self.stats.waited += getattr(limiter, "waited", 0.0)

    # -- the work ---------------------------------------------------------------------------

    def _want(self, entry: _Pending) -> None:
        """Queue the copy of a link that asked for it, once its capture is known."""
        if entry.wanted and entry.capture is not None and not entry.queued and not entry.future.done():
            entry.queued = True
            heapq.heappush(self._copies, (entry.need.priority, entry.order, entry.need.url))
            self._wake.set()
            if self._fetcher is None:
                self._fetcher = asyncio.ensure_future(self._fetch_copies())

    async def _run(self) -> None:
        try:
            for index, archive in enumerate(self.archives):
                last = index == len(self.archives) - 1

                def deliver(entry: _Pending, capture: Capture | None, last: bool = last) -> None:
                    if capture is not None:
                        entry.capture = capture
                        self._want(entry)
                    elif last:
                        self._settle(entry, None)

                asking = [p for p in self._pending.values() if not p.future.done() and p.capture is None]
                await self._lookups(archive, sorted(asking, key=lambda p: (p.need.priority, p.order)), deliver)
        finally:
            # Whatever is still without a capture now was deferred (or failed): say so now.
            for entry in self._pending.values():
                if entry.capture is None and not entry.future.done():
                    self._settle(entry, None, deferred=entry.deferred or Deferred(FAILED, "the archive lookup failed"))

    async def _lookups(self, archive: ArchiveProvider, asking: Sequence[_Pending],
                       deliver: Callable[[_Pending, Capture | None], None]) -> None:
        """Look each URL up in `archive`, handing each answer over as soon as it is known:
        from the store first, then group by group (groups of the neediest links first)."""
        unknown: list[_Pending] = []
        for entry in asking:
            stored = self._stored(archive, entry.need)
            if stored is _UNKNOWN:
                unknown.append(entry)
            else:
                self.stats.stored += 1
                deliver(entry, stored)
        by_url = {e.need.url: e for e in unknown}
        rank = {url: n for n, url in enumerate(by_url)}  # `asking` is in priority order
        groups = sorted(archive.batches(list(by_url)), key=lambda g: min(rank[u] for u in g))
        deferred: Deferred | None = None
        for group in groups:
            if deferred is not None and deferred.reason != FAILED:
                for url in group:  # past the deadline, or blocked: the rest wait for a later run
                    by_url[url].deferred = by_url[url].deferred or deferred
                continue
            before = sum(archive.counts().values())
            try:
                found, deferred = await archive.lookup({u: by_url[u].need.when for u in group}, self.deadline)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a provider bug must not sink the run: these links go without
                log.warning("%s: archive lookup failed: %s", archive.name, exc)
                found, deferred = {}, Deferred(FAILED, f"the archive lookup failed ({exc})")
            share = (sum(archive.counts().values()) - before) / max(1, len(group))
            for url in group:
                entry = by_url[url]
                entry.requests += share
                if url in found:
                    self._store(archive, entry.need, found[url])
                    deliver(entry, found[url])
                elif deferred is not None:
                    entry.deferred = entry.deferred or deferred

    async def _fetch_copies(self) -> None:
        """Fetch the captures the links asked for, neediest first (runs until `close`)."""
        while True:
            while not self._copies:
                self._wake.clear()
                await self._wake.wait()
            _, _, url = heapq.heappop(self._copies)
            entry = self._pending[url]
            capture = entry.capture
            if capture is None or entry.future.done():
                continue  # released meanwhile
            archive = next((a for a in self.archives if a.name == capture.provider), self.archives[0])
            before = sum(archive.counts().values())
            try:
                html = await archive.capture_text(capture, Budget(deadline=entry.deadline, queries=0, fetches=0))
            except Deferred as exc:
                entry.requests += sum(archive.counts().values()) - before
                self._settle(entry, capture, deferred=exc)
                continue
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a provider bug must not sink the run: this link goes without
                log.warning("%s: fetching the capture of %s failed: %s", archive.name, url, exc)
                html = ""
            entry.requests += sum(archive.counts().values()) - before
            self._settle(entry, capture, page=parse_page(capture.original, 200, html) if html else None)

    # -- settling ---------------------------------------------------------------------------

    def _settle(self, entry: _Pending, capture: Capture | None, *, page: WebPage | None = None, deferred: Deferred | None = None) -> None:
        if entry.future.done():
            return
        deferred = deferred or (entry.deferred if capture is None else None)
        lookup: ArchiveLookup | None
        if not self.archives:
            lookup = None
        elif deferred is not None:
            lookup = ArchiveLookup(state=ArchiveState.DEFERRED, reason=deferred.reason, detail=deferred.detail)
        elif capture is not None:
            lookup = ArchiveLookup(state=ArchiveState.FOUND)
        else:
            lookup = ArchiveLookup(state=ArchiveState.NO_CAPTURE)
        entry.future.set_result(ArchiveCopy(capture=capture, page=page, lookup=lookup,
                                            waited=time.monotonic() - entry.asked, requests=entry.requests))

    def _settle_rest(self, why: Deferred) -> None:
        for entry in self._pending.values():
            if not entry.future.done():
                self._settle(entry, entry.capture, deferred=entry.deferred or why)

    # -- the persistent store -----------------------------------------------------------------

    def _key(self, archive: ArchiveProvider, need: Need) -> str:
        return f"{archive.name} {timestamp(need.when) if need.dated else 'latest'} {need.url}"

    def _stored(self, archive: ArchiveProvider, need: Need) -> Capture | Literal[_Unknown.UNKNOWN] | None:
        if self.cache is None:
            return _UNKNOWN
        value = self.cache.get(NAMESPACE, self._key(archive, need))
        if value == []:
            return None
        if isinstance(value, list) and len(value) == 5 and all(isinstance(v, str) for v in value):
            original, ts, url, raw_url, provider = value
            return Capture(original=original, timestamp=ts, url=url, raw_url=raw_url, provider=provider)
        return _UNKNOWN  # never stored, expired, or not what this code stores: ask

    def _store(self, archive: ArchiveProvider, need: Need, capture: Capture | None) -> None:
        if self.cache is None:
            return
        if capture is None:
            value: list[str] = []
            ttl = TTL_NONE if need.dated else TTL_NONE_LATEST
        else:
            value = [capture.original, capture.timestamp, capture.url, capture.raw_url, capture.provider]
            ttl = TTL_FOUND
        self.cache.set(NAMESPACE, self._key(archive, need), value, ttl)


class _Unknown(Enum):
    UNKNOWN = "unknown"  # not in the store: the archive is asked


_UNKNOWN = _Unknown.UNKNOWN
_FOUND = ArchiveLookup(state=ArchiveState.FOUND)
