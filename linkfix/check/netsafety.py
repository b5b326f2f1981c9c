"""Which addresses linkfix may fetch: loopback/private/link-local only when allowed, cloud
metadata endpoints never.

A link in a document is untrusted input: fetching `http://169.254.169.254/...` from a CI runner
would read cloud credentials, and fetching `http://10.0.0.5/admin` probes the runner's network.
Hosts are judged twice: by the literal host in the URL (before any request) and by every
address the name resolves to (in `GuardedResolver`, so DNS rebinding to a private address is
caught at connect time as well).
"""

from __future__ import annotations

import ipaddress
import socket
from enum import Enum
from typing import Any

from aiohttp.abc import AbstractResolver, ResolveResult


class Reach(str, Enum):
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


class ForbiddenAddressError(OSError):
    """Raised by GuardedResolver; aiohttp wraps it in ClientConnectorDNSError (see `forbidden_in`)."""

    def __init__(self, host: str, address: str, reach: Reach) -> None:
        super().__init__(f"{host} resolves to {reach.value} address {address}")
        self.host = host
        self.address = address
        self.reach = reach


def parse_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address a URL host denotes, including legacy forms (127.1, 2130706433, 0x7f.1)."""
    text = host.strip("[]").rstrip(".")
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


def classify_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> Reach:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address in METADATA_ADDRESSES:
        return Reach.METADATA
    if (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_reserved
        or address.is_unspecified
        or address.is_multicast
        or (isinstance(address, ipaddress.IPv4Address) and address in _SHARED_CGNAT)
    ):
        return Reach.PRIVATE
    return Reach.PUBLIC


_SHARED_CGNAT = ipaddress.ip_network("100.64.0.0/10")


def classify_host(host: str) -> Reach:
    """Judge a URL's host as written; names that need DNS are PUBLIC until resolved."""
    name = host.lower().rstrip(".")
    if name in METADATA_NAMES:
        return Reach.METADATA
    if name == "localhost" or name.endswith(".localhost"):
        return Reach.PRIVATE
    address = parse_address(name)
    if address is None:
        return Reach.PUBLIC
    return classify_address(address)


def allowed(reach: Reach, *, allow_private: bool) -> bool:
    return reach is Reach.PUBLIC or (reach is Reach.PRIVATE and allow_private)


class GuardedResolver(AbstractResolver):
    """Wraps a resolver and refuses names that resolve to forbidden addresses.

    Every address of the answer must be allowed: otherwise a name with one public and one
    private record would let the connector fall through to the private one.
    """

    def __init__(self, inner: AbstractResolver, *, allow_private: bool) -> None:
        self._inner = inner
        self._allow_private = allow_private

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        if classify_host(host) is Reach.METADATA:
            raise ForbiddenAddressError(host, host, Reach.METADATA)
        answers = await self._inner.resolve(host, port, family)
        for answer in answers:
            address = parse_address(answer["host"])
            if address is None:
                continue
            reach = classify_address(address)
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
