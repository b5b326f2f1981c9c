"""netsafety: which hosts may be fetched."""

from __future__ import annotations

import socket

import pytest

from linkfix.check.netsafety import ForbiddenAddressError, GuardedResolver, Reach, allowed, classify_host, forbidden_in


@pytest.mark.parametrize(
    ("host", "reach"),
    [
        ("example.com", Reach.PUBLIC),
        ("93.184.216.34", Reach.PUBLIC),
        ("127.0.0.1", Reach.PRIVATE),
        ("127.1", Reach.PRIVATE),  # legacy short form
        ("2130706433", Reach.PRIVATE),  # 127.0.0.1 as one number
        ("0x7f.0.0.1", Reach.PRIVATE),
        ("localhost", Reach.PRIVATE),
        ("api.localhost", Reach.PRIVATE),
        ("10.1.2.3", Reach.PRIVATE),
        ("192.168.0.1", Reach.PRIVATE),
        ("172.16.5.5", Reach.PRIVATE),
        ("169.254.1.1", Reach.PRIVATE),
        ("100.64.0.1", Reach.PRIVATE),
        ("0.0.0.0", Reach.PRIVATE),
        ("[::1]", Reach.PRIVATE),
        ("::ffff:127.0.0.1", Reach.PRIVATE),
        ("fe80::1%eth0", Reach.PRIVATE),
        ("169.254.169.254", Reach.METADATA),
        ("fd00:ec2::254", Reach.METADATA),
        ("[fd00:ec2::254]", Reach.METADATA),
        ("metadata.google.internal", Reach.METADATA),
        ("Metadata.Google.Internal.", Reach.METADATA),
        ("::ffff:169.254.169.254", Reach.METADATA),
    ],
)
def test_classify_host(host, reach):
    assert classify_host(host) is reach


def test_metadata_never_allowed():
    assert not allowed(Reach.METADATA, allow_private=True)
    assert allowed(Reach.PRIVATE, allow_private=True)
    assert not allowed(Reach.PRIVATE, allow_private=False)
    assert allowed(Reach.PUBLIC, allow_private=False)


class _FixedResolver:
    def __init__(self, *addresses: str) -> None:
        self.addresses = addresses

    async def resolve(self, host, port=0, family=socket.AF_INET):
        return [
            {"hostname": host, "host": a, "port": port, "family": socket.AF_INET, "proto": 0, "flags": 0} for a in self.addresses
        ]

    async def close(self):
        return None


async def test_guarded_resolver_refuses_private_answers():
    guarded = GuardedResolver(_FixedResolver("93.184.216.34", "10.0.0.7"), allow_private=False)
    with pytest.raises(ForbiddenAddressError) as caught:
        await guarded.resolve("rebind.example", 80)
    assert caught.value.reach is Reach.PRIVATE
    assert forbidden_in(OSError("wrapped")) is None


async def test_guarded_resolver_allows_private_when_asked_but_never_metadata():
    assert await GuardedResolver(_FixedResolver("10.0.0.7"), allow_private=True).resolve("intranet.example", 80)
    with pytest.raises(ForbiddenAddressError) as caught:
        await GuardedResolver(_FixedResolver("169.254.169.254"), allow_private=True).resolve("evil.example", 80)
    assert caught.value.reach is Reach.METADATA
    with pytest.raises(ForbiddenAddressError):
        await GuardedResolver(_FixedResolver("93.184.216.34"), allow_private=True).resolve("metadata.google.internal", 80)


async def test_guarded_resolver_passes_public_answers():
    answers = await GuardedResolver(_FixedResolver("93.184.216.34"), allow_private=False).resolve("example.com", 443)
    assert [a["host"] for a in answers] == ["93.184.216.34"]


# -- hosts as the HTTP client spells them (IDNA/UTS-46), and IPv6 addresses that carry IPv4 ----------
@pytest.mark.parametrize(
    ("host", "reach"),
    [
        ("１２７.０.０.１", Reach.PRIVATE),  # full-width digits
        ("127。0。0。1", Reach.PRIVATE),  # ideographic full stops
        ("127．0．0．1", Reach.PRIVATE),  # full-width full stops
        ("127｡0｡0｡1", Reach.PRIVATE),  # half-width ideographic full stops
        ("①②⑦.0.0.1", Reach.PRIVATE),  # enclosed alphanumerics
        ("①②⑦.⓪.⓪.①", Reach.PRIVATE),
        ("１２７.１", Reach.PRIVATE),  # full-width legacy short form
        ("１０.０.０.５", Reach.PRIVATE),
        ("ｌｏｃａｌｈｏｓｔ", Reach.PRIVATE),
        ("１６９.２５４.１６９.２５４", Reach.METADATA),
        ("169。254。169。254", Reach.METADATA),
        ("⑯⑨.254.169.254", Reach.METADATA),
        ("metadata.google.internal。", Reach.METADATA),
        ("ｍｅｔａｄａｔａ.google.internal", Reach.METADATA),
        ("bücher.example", Reach.PUBLIC),  # a real IDN stays a name
        # 6to4 carries the IPv4 address in bits 16-48; a 6to4 relay delivers to it
        ("2002:7f00:1::", Reach.PRIVATE),
        ("[2002:a00:1::1]", Reach.PRIVATE),
        ("2002:a9fe:a9fe::", Reach.METADATA),
        ("2002:5db8:d822::1", Reach.PUBLIC),  # 6to4 of a public address
        # site-local (deprecated, fec0::/10): private by intent
        ("fec0::1", Reach.PRIVATE),
        ("[fed0::a9fe:a9fe]", Reach.PRIVATE),
        # NAT64 and IPv4-compatible forms of the metadata address are metadata, not just private
        ("64:ff9b::a9fe:a9fe", Reach.METADATA),
        ("::a9fe:a9fe", Reach.METADATA),
    ],
)
def test_classify_host_after_the_clients_normalisation(host, reach):
    assert classify_host(host) is reach


class SocketRecorder:
    """Stands in for socket creation: records every address a connection is asked for, and
    refuses them all (nothing is ever connected)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, addr_info):
        self.asked.append(addr_info[4][0])
        raise ConnectionRefusedError(111, "refused by the test's recorder")


def _addr(host: str, port: int = 80):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sockaddr = (host, port, 0, 0) if family == socket.AF_INET6 else (host, port)
    return (family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr)


@pytest.mark.parametrize("host", ["127.0.0.1", "10.0.0.7", "169.254.169.254", "::1", "2002:a9fe:a9fe::", "fec0::1", "fd00:ec2::254"])
def test_connection_guard_refuses_forbidden_addresses_before_a_socket_exists(host):
    from linkfix.check.netsafety import ConnectionGuard

    recorder = SocketRecorder()
    guard = ConnectionGuard(allow_private=False, open_socket=recorder)
    with pytest.raises(ForbiddenAddressError):
        guard(_addr(host))
    assert recorder.asked == []
    with pytest.raises(ConnectionRefusedError):  # the control: a public address gets its socket
        guard(_addr("93.184.216.34"))
    assert recorder.asked == ["93.184.216.34"]


def test_connection_guard_allows_private_when_asked_never_metadata_and_trusts_the_proxy():
    from linkfix.check.netsafety import ConnectionGuard

    recorder = SocketRecorder()
    guard = ConnectionGuard(allow_private=True, open_socket=recorder)
    with pytest.raises(ForbiddenAddressError):
        guard(_addr("169.254.169.254"))
    with pytest.raises(ConnectionRefusedError):
        guard(_addr("10.0.0.7"))
    strict = ConnectionGuard(allow_private=False, open_socket=recorder)
    strict.trust("10.0.0.3", 3128)
    with pytest.raises(ConnectionRefusedError):
        strict(_addr("10.0.0.3", 3128))  # the configured proxy
    with pytest.raises(ForbiddenAddressError):
        strict(_addr("10.0.0.3", 80))  # the same machine on another port is no proxy
    assert recorder.asked == ["10.0.0.7", "10.0.0.3"]


async def test_connection_guard_holds_when_dns_is_not_guarded():
    """Whatever produced the address (here an unguarded resolver), the socket is never opened."""
    import aiohttp

    from linkfix.check.netsafety import ConnectionGuard

    recorder = SocketRecorder()
    connector = aiohttp.TCPConnector(resolver=_FixedResolver("10.0.0.7"), socket_factory=ConnectionGuard(allow_private=False, open_socket=recorder))
    async with aiohttp.ClientSession(connector=connector) as session:
        with pytest.raises(aiohttp.ClientConnectorError) as caught:
            await session.get("http://rebind.example.test/")
    assert forbidden_in(caught.value) is not None
    assert recorder.asked == []
