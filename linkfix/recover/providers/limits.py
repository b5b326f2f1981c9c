"""The limits recovery runs within: a link's budget (`Budget`), a remote service's request
rate (`RateLimiter`), and the lookup that was not sent because of them (`Deferred`)."""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from ...errors import LinkfixError


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


class Deferred(LinkfixError):
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
