"""What one run shares across its stages: one cache and one HTTP client.

lychee keeps one host pool per run; so does linkfix. Checking, recovery, a crawl and `fix`'s
plan all send their requests through the run's one HttpChecker, so the per-host pacing, backoff
and Retry-After one of them learned hold for the others too (recovery does not hammer a host the
checker learned to slow down for), and all of them read and write one Cache. The one request
path outside it is `fix --update-redirects` confirming cached redirects (fix.confirm): that
answer must come from a client that reads no cache record, so it asks with its own.

With `cache_url`, the client also shares the run's results, its checks and its per-host
limits with every other run using that store (store/shared.py); the cache stays the run's own.

Both open when first asked for: the client at the first request, so that aiohttp loads only
then (offline runs and runs without external links never import it); the cache at the first
use (an offline run may need none).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..config import Config, parse_duration
from ..errors import ConfigError
from ..store.cache import Cache

if TYPE_CHECKING:
    from aiohttp.abc import AbstractResolver

    from ..store.shared import SharedStore
    from .http import HttpChecker, Progress, RequestBudget

log = logging.getLogger(__name__)


def open_cache(config: Config) -> Cache:
    """The run's cache: `cache_dir` when caching is on and the run goes online, else one that
    keeps only what this run writes."""
    directory = config.path(config.cache_dir) if config.cache and not config.offline else None
    return Cache(directory, max_age=parse_duration(config.max_cache_age, "max_cache_age"))


def open_shared(config: Config, cache: Cache) -> SharedStore | None:
    """The shared store `cache_url` names, when the run keeps results at all (caching on,
    online); None without one. ConfigError when the redis client is not installed: asked for
    a store, a run without one would silently be a different run."""
    if not config.cache_url or not config.cache or config.offline:
        return None
    import importlib.util

    if importlib.util.find_spec("redis") is None:
        raise ConfigError("--cache-url: the shared store needs the redis client: pip install 'linkfix[redis]'")
    from ..store.shared import SharedStore

    return SharedStore(config.cache_url, run_id=cache.run_id)


class RunSession:
    """A run's cache and HTTP client, each opened once, on first use; `close` (or `async with`)
    closes what was opened."""

    def __init__(self, config: Config, *, resolver: AbstractResolver | None = None, progress: Progress | None = None,
                 budget: RequestBudget | None = None, cache: Cache | None = None) -> None:
        """`progress` hears of the checks until `checks_done`; `budget` bounds every request of
        the run (a crawl's: checks and recovery included); `cache`: one the caller opened for
        the run (and closes), else the session opens (and closes) its own."""
        self.config = config
        self.resolver = resolver
        self.progress = progress
        self.budget = budget
        self._cache = cache
        self._owns_cache = False  # set when the session opens the cache itself
        self._client: HttpChecker | None = None

    @property
    def cache(self) -> Cache:
        if self._cache is None:
            self._owns_cache = True
            self._cache = open_cache(self.config)
        return self._cache

    @property
    def stored_cache(self) -> Cache | None:
        """The cache when it keeps things between runs (caching on, online), else None: what
        extraction may reuse, without opening a cache that would keep nothing."""
        return self.cache if self.config.cache and not self.config.offline else None

    @property
    def client(self) -> HttpChecker:
        """The run's HTTP client, started on first use (inside the running event loop)."""
        if self._client is None:
            from .http import HttpChecker  # aiohttp loads only when there is a request to send

            client = HttpChecker(self.config, self.cache, resolver=self.resolver, progress=self.progress, budget=self.budget,
                                 shared=open_shared(self.config, self.cache))
            client.open()
            self._client = client
        return self._client

    def checks_done(self) -> None:
        """The checks are in: the progress line ends (recovery's requests are not counted in it)."""
        if self._client is not None:
            self._client.end_progress()
        self.progress = None

    async def close(self) -> None:
        try:
            if self._client is not None:
                await self._client.__aexit__(None, None, None)
        finally:
            if self._cache is not None and self._owns_cache:
                self._cache.close()

    async def __aenter__(self) -> RunSession:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
