"""One HTTP exchange: the aiohttp session, the connection guard, what each request carries
(per-host headers, the GitHub token, the proxy, remap), a capped read of the body, and every
failure turned into data (`Answer.error`), never an exception.
"""

from __future__ import annotations

import asyncio
import errno
import math
import os
import socket
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver
from aiohttp.resolver import DefaultResolver

from ...config import Config
from ...model import Reason, Redirect
from ...urls import hostname, request_host, split
from .. import policy
from ..netsafety import ConnectionGuard, GuardedResolver, Reach, SocketFactory, allowed, classify_host, forbidden_in, parse_address, refusal
from ..remap import Remap

GITHUB_HOSTS = frozenset({"github.com", "api.github.com", "raw.githubusercontent.com"})
SNIFF_BYTES = 64 * 1024  # a GET without a fragment to find: enough for a title, text, bot markers
PAGE_BYTES = 8 * 1024 * 1024  # a GET that must find a fragment id
_DNS_NOT_FOUND = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}
Extra = tuple[str, Mapping[str, str]] | None  # (host, headers) sent to that host only


@dataclass(frozen=True, slots=True, kw_only=True)
class Fetched:
    """A GET made for recovery (archive, sitemap, search API, candidate page)."""

    url: str
    final_url: str
    status: int  # 0: no HTTP answer (see `error`)
    headers: Mapping[str, str]
    text: str
    error: str = ""
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """One HTTP exchange, or the reason there was none."""

    url: str
    method: str = "GET"
    status: int = 0
    headers: Mapping[str, str] | None = None
    body: bytes = b""
    charset: str = ""
    error: Reason = Reason.NONE  # when status == 0: dns, dns-error, timeout, reset, tls, ...
    detail: str = ""

    @property
    def header_map(self) -> Mapping[str, str]:
        return self.headers or {}

    def text(self) -> str:
        return decode(self.body, self.charset)

    @property
    def is_html(self) -> bool:
        kind = self.header_map.get("Content-Type", "").split(";")[0].strip().lower()
        return kind in ("", "text/html", "application/xhtml+xml")

    def retry_after(self) -> float:
        """Its Retry-After in seconds, uncapped; -1 when it has none (or none readable)."""
        if self.status not in (429, 503):
            return -1.0
        wait = policy.parse_retry_after(self.header_map.get("Retry-After"), cap=math.inf)
        return -1.0 if wait is None else wait

    def is_challenge(self) -> bool:
        """A bot wall's answer (it does not go away by asking again)."""
        return policy.is_bot_challenge(self.status, self.header_map, self.text()[:20000] if self.body else "")


class Transport:
    """The session every request goes through, and what each request carries."""

    def __init__(self, config: Config, *, resolver: AbstractResolver | None = None, socket_factory: SocketFactory | None = None) -> None:
        self.config = config
        self._resolver = resolver
        self._socket_factory = socket_factory  # opens the sockets the ConnectionGuard allowed
        self._remap = Remap(config.remap)  # the repository's patterns, each matched under a time bound
        self.remaps = bool(self._remap)
        self._github_token = os.environ.get("GITHUB_TOKEN", "")
        # HTTP(S)_PROXY / NO_PROXY, read once: aiohttp's trust_env looks them (and ~/.netrc) up
        # in a worker thread for every request, which costs more than the request on loopback.
        self._proxies = urllib.request.getproxies_environment()  # {"http": ..., "https": ..., "no": ...}
        self._proxy_for_host: dict[tuple[str, str], str | None] = {}
        self._host_headers: dict[tuple[str, str], dict[str, str]] = {}
        self._session: aiohttp.ClientSession | None = None
        self._names: AbstractResolver | None = None  # the resolver under the guard (also the network probe's)

    def open(self) -> None:
        """Create the session (inside a running event loop); `close` closes it."""
        guard = ConnectionGuard(allow_private=self.config.allow_private, open_socket=self._socket_factory)
        self._names = self._resolver or DefaultResolver()
        resolver = GuardedResolver(self._names, allow_private=self.config.allow_private, guard=guard)
        for proxy in {self._proxies.get("http"), self._proxies.get("https")} - {None, ""}:
            _trust_proxy(str(proxy), guard, resolver)
        connector = aiohttp.TCPConnector(
            limit=self.config.max_concurrency,
            limit_per_host=0,  # per-host limits are the host scheduler's: they also cover redirects
            resolver=resolver,
            ttl_dns_cache=300,
            socket_factory=guard,  # every connection, whatever produced its address
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            trust_env=False,  # proxies from the environment are applied per request (`proxy`)
            timeout=aiohttp.ClientTimeout(total=self.config.timeout, sock_connect=min(self.config.timeout, 10.0)),
            headers={
                "User-Agent": self.config.user_agent,
                "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            },
            cookie_jar=aiohttp.DummyCookieJar(),  # see redirects.ChainCookies: cookies live for one chain
            auto_decompress=True,
        )

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def resolves(self, name: str) -> bool:
        """Whether `name` resolves, asked once of the session's resolver (nothing is connected
        to), within the request timeout and at most 10 s: the network probe."""
        names = self._names or self._resolver or DefaultResolver()
        try:
            async with asyncio.timeout(min(self.config.timeout, 10.0)):  # (3.11's wait_for can lose a cancellation)
                found = await names.resolve(name, 443, socket.AF_UNSPEC)
        except (TimeoutError, OSError, aiohttp.ClientError, ValueError):
            return False
        return bool(found)

    async def request(self, method: str, url: str, read: int, extra: Extra = None) -> Answer:
        """One exchange, no redirect followed; at most `read` bytes of the body (0: none)."""
        assert self._session is not None
        headers = self.headers_for(url)
        if extra is not None and extra[0] == hostname(url):
            headers = {**headers, **extra[1]}
        proxy = self.proxy(url)
        if proxy is not None:
            # The connection guard sees only the proxy's address; the host the proxy is asked
            # for is judged here, whichever caller sent the request (a check, a redirect hop,
            # recovery, the network probe).
            refused = self._refused_host(url)
            if refused is not None:
                return Answer(url=url, method=method, error=refused[0], detail=refused[1])
        try:
            # headers=None when there are none: aiohttp merges a given dict into the session's.
            async with self._session.request(method, url, headers=headers or None, allow_redirects=False, proxy=proxy) as response:
                body = await _read_capped(response, read) if read else b""
                return Answer(url=url, method=method, status=response.status, headers=response.headers, body=body, charset=response.charset or "")
        except Exception as exc:
            kind, detail = _classify_error(exc)
            return Answer(url=url, method=method, error=kind, detail=detail)

    def headers_for(self, url: str) -> Mapping[str, str]:
        """The extra headers for `url`'s host (shared per scheme and host: do not mutate)."""
        parts = split(url)
        name = hostname(url)
        known = self._host_headers.get((parts.scheme, name))
        if known is not None:
            return known
        headers: dict[str, str] = {}
        headers.update({str(k): str(v) for k, v in self.config.host_settings(name).headers.items()})
        # Per hop, never per chain: a redirect away from GitHub does not carry the token.
        if self._github_token and name in GITHUB_HOSTS and parts.scheme == "https":
            headers.setdefault("Authorization", f"Bearer {self._github_token}")
        self._host_headers[(parts.scheme, name)] = headers
        return headers

    def _refused_host(self, url: str) -> tuple[Reason, str] | None:
        """(reason, detail) when `url`'s host, spelled as the client sends it, is one linkfix
        does not contact (netsafety); None when it may be."""
        try:
            reach = classify_host(request_host(url))
        except ValueError as exc:
            return Reason.INVALID_URL, str(exc)
        if allowed(reach, allow_private=self.config.allow_private):
            return None
        return refusal(reach, hostname(url))

    def proxy(self, url: str) -> str | None:
        """The proxy for `url` from HTTP_PROXY/HTTPS_PROXY, unless NO_PROXY covers its host."""
        if not (self._proxies.get("http") or self._proxies.get("https")):
            return None
        parts = split(url)
        key = (parts.scheme, parts.netloc)
        if key not in self._proxy_for_host:
            bypass = urllib.request.proxy_bypass_environment(parts.netloc, self._proxies)  # type: ignore[attr-defined]
            self._proxy_for_host[key] = None if bypass else self._proxies.get(parts.scheme)
        return self._proxy_for_host[key]

    def remap(self, url: str) -> str:
        """`url` after the configured remap rules: where its requests really go."""
        return self._remap.request(url)


def _trust_proxy(proxy: str, guard: ConnectionGuard, resolver: GuardedResolver) -> None:
    """Let the connections to a configured proxy through the address guards."""
    try:
        parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        host, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return  # aiohttp will refuse it when a request uses it
    if parse_address(host) is not None:
        guard.trust(host, port)
    else:
        resolver.trust(host, port)  # its addresses are trusted when it resolves


def _classify_error(exc: BaseException) -> tuple[Reason, str]:
    """A failed exchange as (code, detail)."""
    forbidden = forbidden_in(exc)
    if forbidden is not None:
        return (Reason.METADATA_ADDRESS if forbidden.reach is Reach.METADATA else Reason.PRIVATE_ADDRESS), str(forbidden)
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        cause = exc.os_error
        if getattr(cause, "errno", None) in _DNS_NOT_FOUND:
            return Reason.DNS, f"host name not found: {exc.host}"
        return Reason.DNS_ERROR, f"cannot resolve {exc.host}: {cause}"
    if isinstance(exc, (aiohttp.ClientConnectorCertificateError, aiohttp.ClientSSLError)):
        return Reason.TLS, str(exc)
    if isinstance(exc, (asyncio.TimeoutError, aiohttp.ServerTimeoutError)):
        return Reason.TIMEOUT, "no answer in time"
    if isinstance(exc, aiohttp.ClientConnectorError):
        if exc.os_error.errno == errno.ENETUNREACH:  # "Network is unreachable": no route at all, not this host's fault
            return Reason.NO_ROUTE, str(exc)
        return Reason.CONNECTION, str(exc)
    if isinstance(exc, (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError, aiohttp.ClientOSError, ConnectionError)):
        return Reason.RESET, str(exc) or type(exc).__name__
    if isinstance(exc, (aiohttp.InvalidURL, ValueError)):
        return Reason.INVALID_URL, str(exc)
    if isinstance(exc, aiohttp.ClientResponseError):
        return Reason.PROTOCOL, exc.message
    if isinstance(exc, aiohttp.ClientError):
        return Reason.CONNECTION, str(exc) or type(exc).__name__
    return Reason.ERROR, f"{type(exc).__name__}: {exc}"


async def _read_capped(response: aiohttp.ClientResponse, limit: int) -> bytes:
    """Stream at most `limit` bytes of the body; the rest is never downloaded."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_chunked(64 * 1024):
        chunks.append(chunk)
        size += len(chunk)
        if size >= limit:
            break
    return b"".join(chunks)[:limit]


def decode(body: bytes, charset: str) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return body.decode("utf-8", errors="replace")
