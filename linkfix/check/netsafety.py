"""Which addresses linkfix may fetch: loopback/private/link-local only when allowed, cloud
metadata endpoints never.

A link in a document is untrusted input: fetching `http://169.254.169.254/...` from a CI runner
would read cloud credentials, and fetching `http://10.0.0.5/admin` probes the runner's network.
Hosts are judged three times:

* by the host of the URL, spelled the way the HTTP client will spell it (`classify_host`:
  `１２７。０。０。１` is 127.0.0.1), before any request, for links and redirect targets alike;
* by every address a name resolves to (`GuardedResolver`: a name with one public and one
  private record is refused as a whole; DNS rebinding is caught when the connection is made);
* by the address each connection is actually opened to (`ConnectionGuard`, aiohttp's socket
  factory), whatever produced it: an IP literal never reaches the resolver, so this is the
  check nothing can go around.

A configured proxy is trusted: the connection to it is allowed whatever its address, and the
names it is asked for are resolved by the proxy, not here. The host each request asks the proxy
for is judged by its spelling (`classify_host`) where the proxy is chosen (`Transport.request`),
for every request alike: checks, redirect hops, recovery and the network probe.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from aiohttp.abc import AbstractResolver, ResolveResult

from ..errors import LinkfixError
from ..model import Reason
from ..urls import normalise_host

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
AddrInfo = tuple[int, int, int, str, tuple[Any, ...]]  # what getaddrinfo() gives, one entry
SocketFactory = Callable[[AddrInfo], socket.socket]


class Reach(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"  # loopback, RFC 1918, link-local, unique-local, reserved
    METADATA = "metadata"  # cloud instance metadata: never fetched, whatever the config says


# Instance-metadata endpoints of the big clouds (AWS, GCP, Azure, Alibaba, Oracle).
METADATA_ADDRESSES = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),
        ipaddress.ip_address("169.254.170.2"),  # AWS ECS task metadata
        ipaddress.ip_address("fd00:ec2::254"),
        ipaddress.ip_address("100.100.100.200"),
        ipaddress.ip_address("192.0.0.192"),
    }
)
METADATA_NAMES = frozenset({"metadata.google.internal", "metadata.goog", "metadata", "instance-data"})


class ForbiddenAddressError(LinkfixError, OSError):
    """Raised by GuardedResolver; aiohttp wraps it in ClientConnectorDNSError (see `forbidden_in`).
    An OSError too: the connector lets only those through as a failed connection."""

    def __init__(self, host: str, address: str, reach: Reach, *, message: str = "") -> None:
        super().__init__(message or f"{host} resolves to {reach.value} address {address}")
        self.host = host
        self.address = address
        self.reach = reach


def parse_address(host: str) -> IPAddress | None:
    """The IP address a URL host denotes, including legacy forms (127.1, 2130706433, 0x7f.1)
    and non-ASCII spellings the HTTP client reads as one (１２７。０。０。１)."""
    text = normalise_host(host.strip("[]")).rstrip(".")
    if "%" in text:  # IPv6 zone id: fe80::1%eth0
        text = text.split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if text and all(c in "0123456789abcdefxABCDEFX." for c in text) and text[0].isdigit():
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    return None


def _classify_address(address: IPAddress) -> Reach:
    """The address's own class, or that of the IPv4 address it carries when that is worse."""
    reach = _classify_one(address)
    embedded = _embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else None
    if embedded is not None:
        inner = _classify_one(embedded)
        if inner is Reach.METADATA or reach is Reach.PUBLIC:
            return inner
    return reach


def _classify_one(address: IPAddress) -> Reach:
    if address in METADATA_ADDRESSES:
        return Reach.METADATA
    if (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_reserved
        or address.is_unspecified
        or address.is_multicast
        or (isinstance(address, ipaddress.IPv6Address) and address.is_site_local)
        or (isinstance(address, ipaddress.IPv4Address) and address in _SHARED_CGNAT)
    ):
        return Reach.PRIVATE
    return Reach.PUBLIC


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address routes to or stands for: mapped (::ffff:a.b.c.d), 6to4
    (2002:AABB:CCDD::/48), NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and IPv4-compatible
    (::a.b.c.d). A 6to4 relay or NAT64 gateway would carry the request to that address."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64 or address in _NAT64_LOCAL or address in _IPV4_COMPATIBLE:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


_SHARED_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


@functools.lru_cache(maxsize=4096)  # pure; asked for every origin and every redirect hop
def classify_host(host: str) -> Reach:
    """Judge a URL's host as the HTTP client will spell it (IDNA/UTS-46: full-width digits,
    ideographic dots, enclosed alphanumerics); names that need DNS are PUBLIC until resolved."""
    name = normalise_host(host.strip("[]")).rstrip(".")
    if name in METADATA_NAMES:
        return Reach.METADATA
    if name == "localhost" or name.endswith(".localhost"):
        return Reach.PRIVATE
    address = parse_address(name)
    if address is None:
        return Reach.PUBLIC
    return _classify_address(address)


def allowed(reach: Reach, *, allow_private: bool) -> bool:
    return reach is Reach.PUBLIC or (reach is Reach.PRIVATE and allow_private)


def refusal(reach: Reach, host: str) -> tuple[Reason, str]:
    """(reason, detail) for a host that is not fetched."""
    if reach is Reach.METADATA:
        return Reason.METADATA_ADDRESS, f"{host} is a cloud metadata address: never fetched"
    return Reason.PRIVATE_ADDRESS, f"{host} is a loopback/private address (allow_private: true to check it)"


class ConnectionGuard:
    """aiohttp's socket factory: refuses to open a socket to a forbidden address.

    It sees the address each connection is about to be made to, after every parser, redirect
    and resolver had its say, so nothing that produces an address can go around it. The
    configured proxies (`trust`) are the one exception: the user chose them.
    """

    def __init__(self, *, allow_private: bool, open_socket: SocketFactory | None = None) -> None:
        self.allow_private = allow_private
        self._open = open_socket or _open_socket
        self._trusted: set[tuple[IPAddress, int]] = set()

    def trust(self, address: str, port: int) -> None:
        """Let connections to `address`:`port` through (a configured proxy)."""
        parsed = parse_address(address)
        if parsed is not None:
            self._trusted.add((parsed, port))

    def __call__(self, addr_info: AddrInfo) -> socket.socket:
        host, port = addr_info[4][0], addr_info[4][1]
        address = parse_address(host)
        if address is None:  # no IP address (an AF_UNIX path?): nothing a link can ask for
            raise ForbiddenAddressError(host, str(host), Reach.PRIVATE, message=f"refusing to connect to {host!r}")
        reach = _classify_address(address)
        if not allowed(reach, allow_private=self.allow_private) and (address, port) not in self._trusted:
            raise ForbiddenAddressError(host, host, reach, message=f"refusing to connect to {reach.value} address {host}")
        return self._open(addr_info)


def _open_socket(addr_info: AddrInfo) -> socket.socket:
    family, kind, proto = addr_info[0], addr_info[1], addr_info[2]
    return socket.socket(family=family, type=kind, proto=proto)


class GuardedResolver(AbstractResolver):
    """Wraps a resolver and refuses names that resolve to forbidden addresses.

    Every address of the answer must be allowed: otherwise a name with one public and one
    private record would let the connector fall through to the private one. A configured
    proxy's name (`trust`) is resolved unjudged, and its addresses are trusted by `guard`.
    """

    def __init__(self, inner: AbstractResolver, *, allow_private: bool, guard: ConnectionGuard | None = None) -> None:
        self._inner = inner
        self._allow_private = allow_private
        self._guard = guard
        self._trusted: set[tuple[str, int]] = set()

    def trust(self, host: str, port: int) -> None:
        self._trusted.add((normalise_host(host), port))

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        if (normalise_host(host), port) in self._trusted:
            answers = await self._inner.resolve(host, port, family)
            if self._guard is not None:
                for answer in answers:
                    self._guard.trust(answer["host"], answer["port"])
            return answers
        if classify_host(host) is Reach.METADATA:
            raise ForbiddenAddressError(host, host, Reach.METADATA)
        answers = await self._inner.resolve(host, port, family)
        for answer in answers:
            address = parse_address(answer["host"])
            if address is None:
                continue
            reach = _classify_address(address)
            if not allowed(reach, allow_private=self._allow_private):
                raise ForbiddenAddressError(host, answer["host"], reach)
        return answers

    async def close(self) -> None:
        await self._inner.close()


def forbidden_in(exc: BaseException) -> ForbiddenAddressError | None:
    """The ForbiddenAddressError behind an aiohttp connector error, if that is what it was."""
    seen: set[int] = set()
    current: Any = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ForbiddenAddressError):
            return current
        seen.add(id(current))
        current = getattr(current, "os_error", None) or current.__cause__
    return None
