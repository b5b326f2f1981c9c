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
