"""Per-host politeness across every run sharing a store: `host_concurrency`, `request_interval`
and 429/Retry-After pauses held by all of them together, not by each.

Each request to a host first takes a lease on the host's gate in the store (store/shared.py):
at most the host's concurrency leases are out at once, none while the host is paused; and once
the request holds its run's own slots, its start waits until its interval after the last start
of any run (`space`: spacing checked earlier would let requests that waited for slots bunch up). A lease lasts the request's timeout and a margin
unless given back, so a killed run's share comes free by itself. A pause one run learns (a 429,
a 503 with Retry-After) is put on the gate, and every run's next request to the host waits it out.

The store is an aid, not a master: down, it answers at once and the run's own limits (hosts.py)
still hold; a gate that keeps a request waiting longer than any lease or pause linkfix sets (a
store holding garbage) is not obeyed past that, with one warning.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable

from ...store.shared import FREE, SharedStore, name
from .. import policy

log = logging.getLogger(__name__)

HOLD_MARGIN = 5.0  # a lease outlasts its request's timeout by this much
FULL_POLL = 1.0  # all leases out: look again this often without a wake-up (a lost message, an expired lease)


class GlobalHosts:
    def __init__(self, store: SharedStore, *, timeout: float) -> None:
        self.store = store
        self.hold = timeout + HOLD_MARGIN
        self.waits = 0  # requests that waited for another run's lease (for the log)
        self._gates: dict[str, str] = {}
        self._distrusted = False

    def gate(self, host_key: str) -> str:
        found = self._gates.get(host_key)
        if found is None:
            found = self._gates[host_key] = name("host", host_key)
        return found

    async def acquire(self, host_key: str, concurrency: int) -> str | None:
        """A lease for one request to `host_key` (its token, to `release`), or None: go without."""
        if self._distrusted or not self.store.up:
            return None
        gate, token = self.gate(host_key), uuid.uuid4().hex
        waited = await self._wait(host_key, lambda: self.store.take_slot(gate, token, concurrency, self.hold), policy.MAX_RETRY_AFTER)
        if waited is None:
            return None
        self.waits += waited
        return token

    async def space(self, host_key: str, interval: float) -> None:
        """Wait until `host_key` may be sent a request, `interval` after the last start of any run.
        Asked once the request holds everything else it needs, so that it is sent at once."""
        if not self._distrusted and self.store.up and interval > 0:
            gate = self.gate(host_key)
            await self._wait(host_key, lambda: self.store.take_turn(gate, interval), max(interval, policy.MAX_RETRY_AFTER))

    async def _wait(self, host_key: str, ask: Callable[[], Awaitable[float | None]], longest: float) -> bool | None:
        """Ask the gate until it says go: whether it made this run wait; None: go without it.
        No gate of linkfix's making asks for a wait over `longest` (a pause, a spacing), nor keeps
        every lease out for longer than a lease lasts: one that does is not obeyed."""
        loop = asyncio.get_running_loop()
        full_until = loop.time() + self.hold
        waited = False
        while True:
            wait = await ask()
            if wait is None:
                return None
            if wait == 0:
                return waited
            waited = True
            if wait > longest + 1 or (wait < 0 and loop.time() > full_until):
                self._distrust(host_key, wait)
                return None
            if wait < 0:
                await self.store.woken(FREE, self.gate(host_key), FULL_POLL)
            else:
                await asyncio.sleep(wait)

    def release(self, host_key: str, token: str) -> None:
        self.store.free_slot(self.gate(host_key), token)

    def pause(self, host_key: str, seconds: float) -> None:
        self.store.hold_off(self.gate(host_key), seconds)

    def _distrust(self, host_key: str, wait: float) -> None:
        self._distrusted = True
        log.warning("shared cache %s: host %s kept waiting past any limit linkfix sets (%s); "
                    "going on with this run's own limits", self.store.url, host_key.rstrip(":"),
                    "all leases out" if wait < 0 else f"{wait:.0f} s more")
