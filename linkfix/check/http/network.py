"""Network down is not link rot: tell a dead network from dead links.

When several distinct hosts fail DNS and none has answered, or the configured `network_probe`
URL does not answer, the run stops with one NetworkDownError instead of reporting every link
broken.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from ...errors import NetworkDownError
from ...model import Reason
from .transport import Answer

NETWORK_DOWN_HOSTS = 5  # distinct hosts failing DNS, none answering, before "network down"


class NetworkWatch:
    def __init__(self, probe_url: str) -> None:
        self.down: NetworkDownError | None = None
        self._probe_url = probe_url
        self._probed: asyncio.Future[None] | None = None
        self._dns_failed: set[str] = set()
        self._answered: set[str] = set()

    @property
    def answered(self) -> bool:
        """Some host answered this run: the network works (a DNS failure is then the name's)."""
        return bool(self._answered)

    async def ensure_up(self, send: Callable[[str], Awaitable[Answer]]) -> None:
        """Raise NetworkDownError if the network is known to be down; once per run, before the
        first request, `send` the configured probe URL (a HEAD) and require an answer."""
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

    def note(self, host: str, answer: Answer, *, in_flight: int) -> None:
        """Count `answer` from `host`; `in_flight`: requests still on their way."""
        if answer.status:
            self._answered.add(host)
        elif answer.error in (Reason.DNS, Reason.DNS_ERROR):
            self._dns_failed.add(host)
        if (
            self.down is None
            and not self._answered
            and len(self._dns_failed) >= NETWORK_DOWN_HOSTS
            and in_flight == 0  # nothing else still on its way: every attempt so far failed DNS
        ):
            sample = ", ".join(sorted(self._dns_failed)[:5])
            self.down = NetworkDownError(
                f"network down: no host name resolves ({len(self._dns_failed)} hosts failed, e.g. {sample}); "
                "not reporting links as broken (check the connection, DNS or proxy, or run with --offline)"
            )
