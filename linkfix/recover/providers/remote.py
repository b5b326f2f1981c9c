"""`Remote`: how providers talk to the network. They never do it themselves: `Remote` wraps the
injected HTTP client (politeness, remap, safety live there), caches every answer, limits the
request rate where a provider asks for it, and turns failures into "no answer" plus a logged
warning, so that a failing provider only ever means fewer candidates.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...model import CheckResult
from .limits import Budget, RateLimiter

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
