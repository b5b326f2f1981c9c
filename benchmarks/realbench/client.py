"""The baselines' HTTP client: every request through the simulated web, like linkfix's.

Real URLs are sent to the loopback server as the `remap` rules do. Requests to the archive are
paced to stay inside its limits (sliding windows just under them) and a 429 is waited out as
its Retry-After says before one retry, so the baselines never get blocked and their requests
are comparable with linkfix's. Requests are counted by kind (archive endpoint, site, search).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from linkfix_simweb.realmoves.ratelimit import endpoint_of
from linkfix_simweb.realmoves.web import ARCHIVE_HOST, AVAILABILITY_HOST, SEARCH_HOST, RealWeb

TIMEOUT = aiohttp.ClientTimeout(total=30)
MAX_BYTES = 4_000_000


class Pacer:
    """At most `limit` requests in any `window` seconds (a sliding log), one waiter at a time."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit, self.window = limit, window
        self._sent: deque[float] = deque()
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self._lock:
            while True:
                now = time.monotonic()
                while self._sent and now - self._sent[0] >= self.window:
                    self._sent.popleft()
                if len(self._sent) < self.limit:
                    self._sent.append(now)
                    return
                await asyncio.sleep(self._sent[0] + self.window - now + 0.01)


@dataclass(frozen=True, slots=True)
class Answer:
    status: int | None
    text: str


class Client:
    def __init__(self, real: RealWeb, *, search_per_minute: int = 28, playback_per_second: int = 7) -> None:
        self.real = real
        self.counts: Counter[str] = Counter()
        self._pacers = {"search": Pacer(search_per_minute, 60.0), "playback": Pacer(playback_per_second, 1.0)}
        self._session: aiohttp.ClientSession | None = None
        self._gate = asyncio.Semaphore(8)

    async def __aenter__(self) -> Client:
        connector = aiohttp.TCPConnector(resolver=self.real.web.resolver, limit=16)
        self._session = aiohttp.ClientSession(connector=connector, timeout=TIMEOUT)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self._session is not None:
            await self._session.close()

    def _kind(self, url: str) -> tuple[str, str]:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if host in (ARCHIVE_HOST, AVAILABILITY_HOST):
            group, endpoint = endpoint_of(parts.path)
            return group, f"archive {endpoint}"
        return "", "search" if host == SEARCH_HOST else "site"

    async def get(self, url: str) -> Answer:
        assert self._session is not None, "use `async with Client(...)`"
        group, kind = self._kind(url)
        for attempt in range(3):
            if group:
                await self._pacers[group].wait()
            self.counts[kind] += 1
            try:
                async with self._gate, self._session.get(self.real.loopback(url)) as response:
                    body = await response.content.read(MAX_BYTES)
                    if response.status == 429 and attempt < 2:
                        await asyncio.sleep(float(response.headers.get("Retry-After", "60")))
                        continue
                    return Answer(response.status, body.decode("utf-8", "replace"))
            except (TimeoutError, aiohttp.ClientError):
                return Answer(None, "")
        return Answer(None, "")
