"""Who may send the next request: priority slots, and a global limit that follows the CPU.

Checking thousands of URLs is CPU-bound in the event loop: past some number of requests in
flight, answers wait for the loop rather than for the network, and every host slows down alike.
The host with the most URLs left then finishes last, long after the others, although its own
connection limit would have let it go faster all along. So:

* `Slots` hands out places by priority (then in arrival order). Per host it serves requests that
  finish a URL before requests that start one; globally it serves the hosts with the most work
  left first, so the longest queue is never the one starved.
* `Admission` watches the loop's lag (how late a timer fires) and lowers the global limit while
  the loop falls behind with its own work, raising it again while it keeps up and requests are
  waiting. The limit never drops below one host's share, and requests of the hosts on the
  critical path (the most work left per connection) pass it at once: they are what the run's
  length depends on. Only `maximum` (max_concurrency) holds for every request.
* A loop also lags when the machine is busy with other work and this process waits for a core:
  then it used little CPU while it lagged (`busy`, its CPU time over the look's wall time), and
  fewer requests in flight would not make it punctual, only slower, since every turn of the loop
  then reads fewer answers for the same overhead. The limit is not lowered for such a lag, and
  may climb back. On a machine at load 9 (2 cores), 10,000 URLs over 40 hosts took 35-38 s
  with the limit lowered for every lag, 22-25 s without (and 20% less CPU).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

LAG_PERIOD = 0.05  # seconds between two looks at the loop
# Measured on the external benchmark (2 cores, 10k URLs): 10/4 ms ran 0.7-1.2 s faster than
# 25/10 ms, and much faster than no limit at all (the busiest host then crawled for seconds).
LAG_HIGH = 0.010  # a timer this late twice in a row: answers are queueing for the CPU
LAG_LOW = 0.004  # this punctual: room for more
SHRINK = 0.75  # the limit drops to this share of what is in flight when the loop lags
# A lag is the run's own when the process used at least this share of a core while it lagged
# (CPU time over wall time, all its threads); below, it was waiting for a core the machine gave
# to others.
OWN_WORK = 0.7
# Fewer requests in flight than this cannot be why the loop lags (an answer costs well under a
# millisecond, each comes back once per round trip): the lag is other work, such as reading a
# warm cache, and a lower limit would only queue the few requests there are behind it.
SHRINK_ABOVE = 32
# Each punctual look raises the limit by this share of itself. A lag the run's own work causes
# (extracting a large page between two turns of the loop) drops the limit to its floor just as
# the hosts get busy; at +1/8 a look the climb back to 320 took 1.5 s, the small hosts' requests
# all waiting, and their follow-ups (a GET after a HEAD, a soft-404 probe, a retry) then trailed
# the run. +1/2 climbs in 0.45 s: 1,000 URLs over 40 hosts 3.50 -> 3.29 s, 10,000 16.1 -> 14.9 s
# (medians of 7 and 3 interleaved runs, benchmarks/external.py's web, 2026-11-28).
GROW = 0.5


class Slots:
    """A semaphore that serves its waiters by priority (lower first), then in arrival order,
    with a limit that may change while it is in use."""

    __slots__ = ("_free", "_limit", "_order", "_waiters")

    def __init__(self, value: int) -> None:
        self._limit = value
        self._free = value  # negative after the limit was lowered below what is taken
        self._waiters: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def waiting(self) -> bool:
        return any(not waiter.done() for _, _, waiter in self._waiters)

    async def acquire(self, priority: float) -> None:
        if self._free > 0 and not self._waiters:
            self._free -= 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (priority, next(self._order), waiter))
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # handed a slot just as we were cancelled: pass it on
            raise

    def release(self) -> None:
        if self._free < 0:  # the limit was lowered: this place goes away
            self._free += 1
            return
        if not self._wake_one():
            self._free += 1

    def take_now(self) -> None:
        """Take a place even past the limit (the caller keeps the hard limit)."""
        self._free -= 1

    def set_limit(self, limit: int) -> None:
        self._free += limit - self._limit
        self._limit = limit
        while self._free > 0 and self._wake_one():
            self._free -= 1

    def _wake_one(self) -> bool:
        while self._waiters:
            _, _, waiter = heapq.heappop(self._waiters)
            if not waiter.done():  # cancelled waiters stay in the heap until reached here
                waiter.set_result(None)
                return True
        return False


class Admission:
    """The global limit on requests in flight, adapted to the event loop's lag."""

    def __init__(self, maximum: int, *, minimum: int, on_tick: Callable[[], None] | None = None) -> None:
        self.maximum = max(1, maximum)
        self.minimum = max(1, min(minimum, self.maximum))
        self.slots = Slots(self.maximum)
        self.in_flight = 0
        self.lowest = self.maximum  # the lowest limit this run needed (for the log)
        self._lagged = False  # the previous look saw a lag too: one late timer may be a GC pause
        self._on_tick = on_tick  # called at every look (the owner re-ranks its hosts)
        self._monitor: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._monitor = asyncio.ensure_future(self._watch())

    def stop(self) -> None:
        if self._monitor is not None:
            self._monitor.cancel()
            self._monitor = None

    async def acquire(self, priority: float, *, urgent: bool = False) -> None:
        if urgent and self.in_flight < self.maximum:
            self.slots.take_now()
        else:
            await self.slots.acquire(priority)
        self.in_flight += 1

    def release(self) -> None:
        self.in_flight -= 1
        self.slots.release()

    def adjust(self, lag: float, busy: float = 1.0) -> None:
        """One step of the controller, given how late the last timer fired and how busy this
        process was meanwhile (CPU time over wall time: see OWN_WORK)."""
        limit = self.slots.limit
        own = busy >= OWN_WORK
        lagged, self._lagged = self._lagged, lag > LAG_HIGH and own
        if lag > LAG_HIGH and own and lagged and self.in_flight > SHRINK_ABOVE:
            limit = max(self.minimum, min(limit, int(self.in_flight * SHRINK)))
        elif (lag < LAG_LOW or not own) and limit < self.maximum and self.slots.waiting:
            limit = min(self.maximum, limit + max(2, int(limit * GROW)))
        if limit != self.slots.limit:
            self.slots.set_limit(limit)
            self.lowest = min(self.lowest, limit)

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            started, cpu = loop.time(), time.process_time()
            due = started + LAG_PERIOD
            await asyncio.sleep(LAG_PERIOD)
            now = loop.time()
            self.adjust(max(0.0, now - due), (time.process_time() - cpu) / max(now - started, 1e-6))
            if self._on_tick is not None:
                self._on_tick()
