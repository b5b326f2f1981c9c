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
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Protocol

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


class RateLimiter:
    """At most `per_minute` requests in any 60 s window; a 429 pauses everything until told."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._sent: deque[float] = deque()
        self._paused_until = 0.0
        self._lock = asyncio.Lock()

    def pause(self, seconds: float) -> None:
        self._paused_until = max(self._paused_until, self._clock() + seconds)

    def wait_needed(self) -> float:
        now = self._clock()
        wait = max(0.0, self._paused_until - now)
        if self.per_minute > 0:
            while self._sent and now - self._sent[0] >= 60.0:
                self._sent.popleft()
            if len(self._sent) >= self.per_minute:
                wait = max(wait, 60.0 - (now - self._sent[0]))
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


@dataclass
class Remote:
    """Cached, rate-limited, failure-tolerant text fetching shared by the providers."""

    client: Fetcher
    cache: CacheStore | None = None
    warned: set[str] = field(default_factory=set)

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
        # Without redirects the page is where it was asked for; the client's final URL would
        # carry the `remap` rewrite, which must not leak into suggestions.
        final_url = (fetched.final_url or url) if getattr(fetched, "redirects", ()) else url
        text = fetched.text or ""
        if self.cache is not None and (status < 500):
            self.cache.set(namespace, url, [status, final_url, text], ttl if status < 400 else TTL_FAILURE)
        return status, final_url, text


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

    def __init__(self, settings: Mapping[str, Any], remote: Remote) -> None:
        self.settings = dict(settings)
        self.remote = remote

    @abstractmethod
    async def last_capture(self, url: str, before: datetime, budget: Budget) -> Capture | None:
        """The last capture at or before `before` with status 200 and an HTML type."""

    @abstractmethod
    async def capture_text(self, capture: Capture, budget: Budget) -> str:
        """The captured page's HTML, as it was served ('' when unavailable)."""

    async def host_urls(self, url: str, budget: Budget) -> list[str]:
        """URLs the archive saw under the host of `url` (for same-site candidates)."""
        return []


class SearchProvider(ABC):
    """Something that answers a text query with ranked hits."""

    name: ClassVar[str]
    #: True when the provider only knows the dead link's own site (keyless, cheap per query).
    same_site: ClassVar[bool] = False

    def __init__(self, settings: Mapping[str, Any], remote: Remote) -> None:
        self.settings = dict(settings)
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
