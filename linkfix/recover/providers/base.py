"""The small interfaces every recovery provider implements, and the registry of providers.

Providers never talk to the network themselves: they go through `Remote`, which wraps the
injected HTTP client (politeness, remap, safety live there), caches every answer, limits the
request rate where a provider asks for it, and turns failures into "no answer" plus a logged
warning, so that a failing provider only ever means fewer candidates.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Protocol

from ...config.providers import ProviderSettings
from ...model import CheckResult

log = logging.getLogger(__name__)

#: How long remote answers stay cached (seconds).
TTL_ARCHIVE = 7 * 86400  # captures do not change
TTL_SEARCH = 86400
TTL_SITE = 86400
TTL_FAILURE = 3600  # a 404 sitemap or a failed query: retry in an hour

MAX_TEXT_BYTES = 2_000_000


class FetchAnswer(Protocol):
    """What `client.fetch` returns, as recovery reads it (linkfix.check.http.Fetched fits; frozen, so read-only)."""

    @property
    def url(self) -> str: ...

    @property
    def final_url(self) -> str: ...

    @property
    def status(self) -> int:  # 0: no HTTP answer (see `error`)
        ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def text(self) -> str: ...

    @property
    def error(self) -> str: ...


class Fetcher(Protocol):
    """The injected HTTP client (linkfix.check.http.HttpChecker)."""

    async def fetch(self, url: str, *, max_bytes: int = ..., headers: Mapping[str, str] | None = ...) -> FetchAnswer: ...

    async def check(self, url: str, *, fragment: str = "") -> CheckResult: ...


class CacheStore(Protocol):
    """linkfix.store.cache.Cache: values are JSON data (a tuple comes back a list), and what
    comes back is checked before use (the cache directory may hold anything)."""

    def get(self, namespace: str, key: str) -> Any: ...

    def set(self, namespace: str, key: str, value: Any, ttl: float) -> None: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Capture:
    """One archived copy of a URL."""

    original: str  # the URL as the archive knows it
    timestamp: str  # YYYYMMDDhhmmss, UTC
    url: str  # the capture's address for people (with the archive's banner)
    raw_url: str  # the capture's address for machines (the page as it was served)
    provider: str = ""

    @property
    def iso_datetime(self) -> str:
        ts = (self.timestamp + "00000000000000")[:14]
        return f"{ts[0:4]}-{ts[4:6]}-{ts[6:8]}T{ts[8:10]}:{ts[10:12]}:{ts[12:14]}Z"


@dataclass(frozen=True, slots=True, kw_only=True)
class Hit:
    """One search result or one page known to a site."""

    url: str
    title: str = ""
    snippet: str = ""
    text: str = ""  # the whole text when the provider has it (a site search index)
    stems: str = ""  # index terms already normalised (a Sphinx search index holds stems)
    headings: tuple[str, ...] = ()  # its section titles, when a site search index lists them
    provider: str = ""
    query: str = ""
    rank: int = 0  # position in the provider's answer, 0-based


@dataclass(slots=True)
class Budget:
    """Per-link limits: requests are the scarce resource, so every provider draws from this."""

    deadline: float  # time.monotonic() value
    queries: int
    fetches: int

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())


class Deferred(Exception):
    """A request that was not sent in this run, and why: `reason` is one of the four below. Not an
    error of the run: the lookup is reported as deferred and asked again by a later run."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(detail or reason)
        self.reason = reason
        self.detail = detail or reason


#: Why a lookup was deferred: the rate limit left no slot before the run's deadline; the
#: service said 429 and asked for a wait past it; the service refuses connections (a firewall
#: block); the service failed (5xx, timeouts).
RATE_LIMIT, RETRY_AFTER, BLOCKED, FAILED = "rate-limit", "retry-after", "blocked", "error"


class RateLimiter:
    """One endpoint group of a remote service: at most `per_minute` requests in any 60 s
    window; a 429 pauses the group until the service said to come back.

    `acquire` is the plain sliding window the search providers use. `turn` is the stricter
    form a shared, ban-enforcing service gets (the web archive): requests start at least
    60/per_minute seconds apart, at most `in_flight` at once, and a request counts in the
    window from when its answer came (the server saw it no later), so that delays on the way
    can never bunch requests into a window the server counts differently."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic, *, in_flight: int = 1) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._sent: deque[float] = deque()
        self._paused_until = 0.0
        self._lock = asyncio.Lock()
        self._flight = asyncio.Semaphore(max(1, in_flight))
        self._last_start = -math.inf
        self.sent = 0  # requests sent through `turn`
        self.waited = 0.0  # seconds spent waiting for a slot in `turn`

    def pause(self, seconds: float) -> None:
        self._paused_until = max(self._paused_until, self._clock() + seconds)

    @property
    def paused(self) -> bool:
        return self._paused_until > self._clock()

    def wait_needed(self, *, spaced: bool = False) -> float:
        now = self._clock()
        wait = max(0.0, self._paused_until - now)
        if self.per_minute > 0:
            while self._sent and now - self._sent[0] >= 60.0:
                self._sent.popleft()
            if len(self._sent) >= self.per_minute:
                wait = max(wait, 60.0 - (now - self._sent[0]))
            if spaced:
                wait = max(wait, self._last_start + 60.0 / self.per_minute - now)
        return wait

    async def acquire(self, budget: Budget | None) -> bool:
        """Wait for a slot; False (and no request) when the wait would overrun the budget."""
        async with self._lock:
            wait = self.wait_needed()
            if wait > 0:
                if budget is not None and wait > budget.remaining():
                    return False
                await asyncio.sleep(wait)
            self._sent.append(self._clock())
            return True

    @asynccontextmanager
    async def turn(self, deadline: float = math.inf) -> AsyncIterator[None]:
        """Hold a slot for one request. Raises Deferred (nothing sent) when the slot would come
        after `deadline` (a time.monotonic()-like value of this limiter's clock)."""
        async with self._flight:
            while (wait := self.wait_needed(spaced=True)) > 0:
                if self._clock() + wait > deadline:
                    if self.paused:
                        raise Deferred(RETRY_AFTER, f"the service asked to wait {self._paused_until - self._clock():.0f} s more (429)")
                    raise Deferred(RATE_LIMIT, f"no request slot ({self.per_minute:g} a minute) before the run's deadline")
                self.waited += wait
                await asyncio.sleep(wait)
            self._last_start = self._clock()
            try:
                yield
            finally:
                self.sent += 1
                self._sent.append(self._clock())


#: The requests a recovery sent, counted for whoever set it (per link: recover/run.py).
REQUESTS: ContextVar[list[int] | None] = ContextVar("linkfix_recovery_requests", default=None)


def count_request() -> None:
    counter = REQUESTS.get()
    if counter is not None:
        counter[0] += 1


@dataclass
class Remote:
    """Cached, rate-limited, failure-tolerant text fetching shared by the providers."""

    client: Fetcher
    cache: CacheStore | None = None
    #: (URL asked for, where its redirects ended) -> that end as the docs name it. A `remap`ped
    #: request ends in request space (a loopback or staging address), which must neither leak
    #: into suggestions nor into the cache, where a later run remapping elsewhere reads it.
    to_document: Callable[[str, str], str] | None = None
    warned: set[str] = field(default_factory=set)

    def _ended_at(self, url: str, fetched: FetchAnswer) -> str:
        """Where the request for `url` ended, as the docs name it. Without redirects the page is
        where it was asked for (the client's final URL would carry the `remap` rewrite)."""
        final_url = (fetched.final_url or url) if getattr(fetched, "redirects", ()) else url
        if self.to_document is not None and final_url != url:
            final_url = self.to_document(url, final_url)
        return final_url

    def warn_once(self, key: str, message: str, *args: Any) -> None:
        if key not in self.warned:
            self.warned.add(key)
            log.warning(message, *args)

    async def get(
        self,
        url: str,
        *,
        namespace: str,
        ttl: float,
        budget: Budget | None = None,
        limiter: RateLimiter | None = None,
        provider: str = "",
        headers: Mapping[str, str] | None = None,
    ) -> tuple[int | None, str, str]:
        """(status, final URL, text) of url, from the cache when possible; (None, url, "") on failure."""
        if self.cache is not None:
            cached = self.cache.get(namespace, url)
            # [status, final URL, text] as stored below; anything else is a miss, asked again
            if isinstance(cached, list) and [type(part) for part in cached] == [int, str, str]:
                status, final_url, text = cached
                return status, final_url, text
        if budget is not None and budget.expired():
            return None, url, ""
        if limiter is not None and not await limiter.acquire(budget):
            self.warn_once(f"rate:{provider}", "%s: rate limit reached; skipping some lookups", provider or "provider")
            return None, url, ""
        count_request()
        try:
            if headers:
                fetched = await self.client.fetch(url, max_bytes=MAX_TEXT_BYTES, headers=dict(headers))
            else:
                fetched = await self.client.fetch(url, max_bytes=MAX_TEXT_BYTES)
        except asyncio.CancelledError:
            raise
        except TypeError as exc:
            if not headers:
                raise
            self.warn_once(f"headers:{provider}", "%s: the HTTP client cannot send request headers (%s); provider skipped", provider, exc)
            return None, url, ""
        except Exception as exc:  # a provider failure is data: fewer candidates, not a crash
            self.warn_once(f"fail:{provider}", "%s: request failed (%s: %s)", provider or url, type(exc).__name__, exc)
            return None, url, ""
        status = fetched.status
        if status == 429 and limiter is not None:
            limiter.pause(_retry_after(fetched.headers))
            self.warn_once(f"429:{provider}", "%s: rate-limited (429); backing off", provider or url)
            return None, url, ""
        if not status:
            self.warn_once(f"fail:{provider}", "%s: no answer (%s)", provider or url, fetched.error or "error")
            return None, url, ""
        final_url = self._ended_at(url, fetched)
        text = fetched.text or ""
        if self.cache is not None and (status < 500):
            self.cache.set(namespace, url, [status, final_url, text], ttl if status < 400 else TTL_FAILURE)
        return status, final_url, text


    async def request(self, url: str, *, limiter: RateLimiter, deadline: float, namespace: str = "",
                      ttl: float = 0.0) -> Exchange:
        """One request in a turn of `limiter` (raises Deferred when there is none before
        `deadline`), its answer as it came: a 429 or a failure is the caller's to judge. With
        `namespace`, answers that do not change (200, and 4xx but 429) are cached for `ttl`."""
        if namespace and self.cache is not None:
            cached = self.cache.get(namespace, url)
            if isinstance(cached, list) and [type(part) for part in cached] == [int, str, str]:
                return Exchange(status=cached[0], final_url=cached[1], text=cached[2], cached=True)
        async with limiter.turn(deadline):
            count_request()
            try:
                fetched = await self.client.fetch(url, max_bytes=MAX_TEXT_BYTES)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # as the real client says it: no answer, and why
                return Exchange(status=0, final_url=url, error=f"{type(exc).__name__}: {exc}")
        exchange = Exchange(status=fetched.status or 0, final_url=self._ended_at(url, fetched), text=fetched.text or "",
                            headers=dict(fetched.headers or {}), error=str(fetched.error or ""))
        if namespace and self.cache is not None and (exchange.status == 200 or (400 <= exchange.status < 500 and exchange.status != 429)):
            self.cache.set(namespace, url, [exchange.status, exchange.final_url, exchange.text], ttl if exchange.status == 200 else TTL_FAILURE)
        return exchange


@dataclass(frozen=True, slots=True, kw_only=True)
class Exchange:
    """One answer of `Remote.request`: status 0 when there was none (`error` says why)."""

    status: int
    final_url: str
    text: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    error: str = ""
    cached: bool = False


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds a Retry-After header (delta-seconds) asks for; None when absent or unreadable."""
    for key, value in (headers or {}).items():
        if key.lower() == "retry-after":
            try:
                return max(float(value), 0.0)
            except ValueError:
                return None
    return None


def _retry_after(headers: Mapping[str, str]) -> float:
    value = ""
    for key, v in (headers or {}).items():
        if key.lower() == "retry-after":
            value = v
    try:
        return min(max(float(value), 1.0), 600.0)
    except ValueError:
        return 60.0


def hits_from_json(text: str, query: str, limit: int, *, provider: str, results: tuple[str, ...],
                   snippet: str) -> list[Hit]:
    """Search hits from a JSON answer whose results list sits at `results` (a key path) and
    whose items carry `url`, `title` and a `snippet` field. Malformed answers give no hits."""
    try:
        data: Any = json.loads(text)
        for key in results:
            data = data.get(key, {})
    except (json.JSONDecodeError, AttributeError):
        return []
    hits: list[Hit] = []
    for item in data if isinstance(data, list) else []:
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            hits.append(Hit(url=item["url"], title=str(item.get("title") or ""),
                            snippet=str(item.get(snippet) or ""), provider=provider,
                            query=query, rank=len(hits)))
        if len(hits) >= limit:
            break
    return hits


class ArchiveProvider(ABC):
    """A web archive: the last good capture of a URL, its raw text, and the URLs seen on a host."""

    name: ClassVar[str]

    def __init__(self, settings: ProviderSettings, remote: Remote) -> None:
        self.remote = remote

    @abstractmethod
    async def last_capture(self, url: str, before: datetime, budget: Budget) -> Capture | None:
        """The last capture at or before `before` with status 200 and an HTML type; None when
        the archive answered that it has none. Raises Deferred when it was not asked or did not
        answer (rate limit, 429, block, failure): that is not "no capture"."""

    @abstractmethod
    async def capture_text(self, capture: Capture, budget: Budget) -> str:
        """The captured page's HTML, as it was served ('' when the archive answered without
        it). Raises Deferred when it was not asked or did not answer."""

    def batches(self, urls: Sequence[str]) -> list[list[str]]:
        """The URLs in groups, each answered by one lookup (`lookup`); by default one URL each."""
        return [[url] for url in urls]

    async def lookup(self, group: Mapping[str, datetime], deadline: float) -> tuple[dict[str, Capture | None], Deferred | None]:
        """The last good capture of each URL of a group at or before its time (None: none),
        for the URLs looked up, and why the others were not (None when all were)."""
        found: dict[str, Capture | None] = {}
        for url, before in group.items():
            try:
                found[url] = await self.last_capture(url, before, Budget(deadline=deadline, queries=0, fetches=0))
            except Deferred as exc:
                return found, exc
        return found, None

    def counts(self) -> dict[str, int]:
        """Requests sent per endpoint group, 429s and failures met, for the run's statistics."""
        return {}

    async def host_urls(self, url: str, budget: Budget) -> list[str]:
        """URLs the archive saw under the host of `url` (for same-site candidates)."""
        return []


class SearchProvider(ABC):
    """Something that answers a text query with ranked hits."""

    name: ClassVar[str]
    #: True when the provider only knows the dead link's own site (keyless, cheap per query).
    same_site: ClassVar[bool] = False

    def __init__(self, settings: ProviderSettings, remote: Remote) -> None:
        self.remote = remote

    @abstractmethod
    async def search(self, query: str, *, near: str, limit: int, budget: Budget) -> list[Hit]:
        """Hits for `query`; `near` is the dead URL (site providers search its site)."""


ARCHIVES: dict[str, type[ArchiveProvider]] = {}
SEARCHES: dict[str, type[SearchProvider]] = {}


def register_archive(cls: type[ArchiveProvider]) -> type[ArchiveProvider]:
    ARCHIVES[cls.name] = cls
    return cls


def register_search(cls: type[SearchProvider]) -> type[SearchProvider]:
    SEARCHES[cls.name] = cls
    return cls
