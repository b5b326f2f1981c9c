"""One aiohttp server on 127.0.0.1 that plays several named hosts, routed by the Host header.

The demo's links name real-looking `https://` hosts. `remap_rules()` gives linkfix's `remap`
rules that send those URLs to this server (`http://host:PORT/...`, so the Host header still
names the host), `resolver` resolves exactly these names to 127.0.0.1 (any other name fails like
NXDOMAIN, so nothing leaves loopback), and `canonical()` turns what the server answered back
into the real form for display.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web
from aiohttp.abc import AbstractResolver, ResolveResult

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
LOOPBACK = "127.0.0.1"


class LoopbackResolver(AbstractResolver):
    """Resolves the given host names to 127.0.0.1; any other name fails like NXDOMAIN."""

    def __init__(self, names: frozenset[str]) -> None:
        self._names = names

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        if host.rstrip(".").lower() not in self._names:
            raise OSError(socket.EAI_NONAME, f"Name or service not known: {host}")
        return [ResolveResult(hostname=host, host=LOOPBACK, port=port, family=socket.AF_INET, proto=0,
                              flags=socket.AI_NUMERICHOST)]

    async def close(self) -> None:
        return None


class LoopbackWeb:
    """`hosts` maps each host name to the handler answering every request for it."""

    def __init__(self, hosts: Mapping[str, Handler]) -> None:
        self.hosts = dict(hosts)
        self.resolver = LoopbackResolver(frozenset(self.hosts))
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the demo web is not started")
        return self._port

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, LOOPBACK, 0)  # a free ephemeral port
        await site.start()
        self._runner, self._port = runner, site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner, self._port = self._runner, None, None
            await runner.cleanup()

    async def __aenter__(self) -> LoopbackWeb:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.stop()

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        handler = self.hosts.get((request.host or "").rsplit(":", 1)[0].lower())
        if handler is None:  # what a real shared front end answers for a name it does not serve
            return web.Response(status=421, text="Misdirected Request\n")
        return await handler(request)

    def remap_rules(self) -> list[str]:
        """'REGEX REPLACEMENT' rules sending each host's real URLs to this server."""
        return [f"^https?://{re.escape(host)}/ http://{host}:{self.port}/" for host in self.hosts]

    def canonical(self, text: str) -> str:
        """A URL this server answered with (or a sentence naming such URLs) in its real form:
        http://host:PORT/x -> https://host/x."""
        names = "|".join(re.escape(host) for host in self.hosts)
        return re.sub(rf"http://({names}):{self.port}(?!\d)", r"https://\1", text)
