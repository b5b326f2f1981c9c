"""Network down is not link rot: tell a dead network from dead links.

"Host name not found" is evidence of a dead host only when the network, and DNS, demonstrably
work: some host answered this run, or the probe name (`network_probe` when it is a host name;
example.com by default) resolves. The failures that can mean "no network" (NETWORK_FAILURES) are
a name not found, a resolver that cannot be asked (what a machine without network gets: "temporary
failure in name resolution") and a network with no route to it. So:
- at the end of a run (and of a single check) in which no host answered and some URL failed one
  of those ways, however few: a route missing is the network down; otherwise the probe name is
  resolved once (bounded by the timeout), and when it does not resolve either, the network is
  down;
- when several distinct hosts failed DNS and none has answered, with nothing else in flight,
  the probe is asked at once, so that a dead network stops the run early;
- a `network_probe` URL must answer a HEAD before the first request (the old, stricter probe).
A network found down raises one NetworkDownError; what the run does with it (stop with exit 2,
or report external links as not checked) is the caller's `network_down` policy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping

from ...errors import NetworkDownError
from ...model import AnyReason, Reason
from ...urls import hostname
from .transport import Answer

NETWORK_DOWN_HOSTS = 5  # distinct hosts failing DNS, none answering, before the probe is asked early
# What a request gets when the machine has no network (and, but for NO_ROUTE, a dead host too).
NETWORK_FAILURES = frozenset({Reason.DNS, Reason.DNS_ERROR, Reason.NO_ROUTE})

Resolve = Callable[[str], Awaitable[bool]]


class NetworkWatch:
    def __init__(self, probe: str, resolve: Resolve | None = None) -> None:
        """`probe`: the `network_probe` setting; `resolve(name)`: whether a name resolves."""
        self.down: NetworkDownError | None = None
        is_url = probe.startswith(("http://", "https://"))
        self._probe_url = probe if is_url else ""
        self._probe_name = (hostname(probe) if is_url else probe).rstrip(".")
        self._resolve = resolve
        self._probed: asyncio.Future[None] | None = None
        self._resolving: asyncio.Future[bool] | None = None  # the probe name's one resolution
        self._early: asyncio.Future[bool] | None = None  # the probe asked early (see note)
        self._dns_failed: set[str] = set()
        self._answered: set[str] = set()

    @property
    def answered(self) -> bool:
        """Some host answered this run: the network works (a DNS failure is then the name's)."""
        return bool(self._answered)

    async def ensure_up(self, send: Callable[[str], Awaitable[Answer]]) -> None:
        """Raise NetworkDownError if the network is known to be down; once per run, before the
        first request, `send` the configured probe URL (a HEAD) and require an answer."""
        if self._early is not None and not self._early.done():
            await asyncio.shield(self._early)  # the early probe decides before more requests go out
        if self.down:
            raise self.down
        if not self._probe_url:
            return
        if self._probed is None:
            self._probed = asyncio.ensure_future(self._probe(send))
        await asyncio.shield(self._probed)

    async def _probe(self, send: Callable[[str], Awaitable[Answer]]) -> None:
        answer = await send(self._probe_url)
        if answer.status == 0:
            self.down = NetworkDownError(
                f"the network probe {self._probe_url} did not answer ({answer.error}: {answer.detail}); "
                "not checking external links (fix the connection or proxy, or run with --offline)"
            )
            raise self.down
        self._answered.add(hostname(self._probe_url))

    async def confirm_failures(self, failed: Mapping[str, AnyReason]) -> None:
        """Raise NetworkDownError when `failed` (host -> the NETWORK_FAILURES reason its URLs
        ended with) has no evidence of a working network: nothing answered, and a route was
        missing or the probe name does not resolve."""
        if not failed or self._answered or self.down is not None:
            if self.down is not None:
                raise self.down
            return
        if Reason.NO_ROUTE in failed.values() or not await self._probe_name_resolves():
            self.down = self._down(set(failed), no_route=Reason.NO_ROUTE in failed.values())
            raise self.down

    def note(self, host: str, answer: Answer, *, in_flight: int) -> None:
        """Count `answer` from `host`; `in_flight`: requests still on their way."""
        if answer.status:
            self._answered.add(host)
        elif answer.error in NETWORK_FAILURES:
            self._dns_failed.add(host)
        if (
            self.down is None
            and not self._answered
            and len(self._dns_failed) >= NETWORK_DOWN_HOSTS
            and in_flight == 0  # nothing else still on its way: every attempt so far failed DNS
            and self._early is None
        ):
            if self._probe_name and self._resolve is not None:
                self._early = asyncio.ensure_future(self._probe_early())
            else:
                self.down = self._down(self._dns_failed)

    async def _probe_early(self) -> bool:
        resolves = await self._probe_name_resolves()
        if not resolves and not self._answered:
            self.down = self._down(self._dns_failed)
        return resolves

    async def _probe_name_resolves(self) -> bool:
        """Whether the probe name resolves (asked once per run); True when there is no probe."""
        if not self._probe_name or self._resolve is None:
            return True
        if self._resolving is None:
            self._resolving = asyncio.ensure_future(self._resolve(self._probe_name))
        return bool(await asyncio.shield(self._resolving))

    def _down(self, failed: set[str], *, no_route: bool = False) -> NetworkDownError:
        sample = ", ".join(sorted(failed)[:5])
        hosts = f"{len(failed)} host{'s' if len(failed) != 1 else ''} failed, e.g. {sample}"
        if no_route:
            what = f"no route to the network and no host answered ({hosts})"
        else:
            probe = f"; not even {self._probe_name} resolves" if self._probe_name and self._resolve is not None else ""
            what = f"no host name resolves ({hosts}{probe})"
        return NetworkDownError(
            f"network down: {what}; not reporting links as broken or checked "
            "(check the connection, DNS or proxy, or run with --offline)"
        )
