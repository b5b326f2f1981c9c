"""The archive's request limits: 429 + Retry-After past the limit, a firewall block for clients
that keep sending through 429s, a separate playback limit. Small limits and a hand-driven clock."""

from __future__ import annotations

import aiohttp
import pytest

from linkfix_simweb.realmoves.ratelimit import ArchiveGate, ArchiveLimits, endpoint_of, limit_archive
from linkfix_simweb.wayback import CaptureStore, mount_wayback

LIMITS = ArchiveLimits(search_limit=3, search_window=10.0, playback_limit=2, playback_window=1.0,
                       ban_after=5.0, ban_seconds=100.0)
CDX = "/cdx/search/cdx"
PLAYBACK = "/web/20200101000000id_/https://docs.example.test/a"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def gate(clock: Clock) -> ArchiveGate:
    return ArchiveGate(LIMITS, clock=clock)


def test_endpoints_are_grouped_as_the_archive_groups_them():
    assert endpoint_of("/cdx/search/cdx") == ("search", "cdx")
    assert endpoint_of("/wayback/available") == ("search", "available")
    assert endpoint_of("/web/timemap/link/https://a.test/") == ("search", "timemap")
    assert endpoint_of("/web/20200101000000id_/https://a.test/") == ("playback", "playback")
    assert endpoint_of("/web/2020/https://a.test/") == ("playback", "playback")
    assert endpoint_of("/web/https://a.test/") == ("playback", "timegate")


def test_past_the_limit_the_answer_is_429_with_the_wait_until_a_slot_frees(gate, clock):
    for _ in range(3):
        clock.now += 1
        assert gate.decide("10.0.0.1", CDX) == ("ok", 0.0)
    clock.now += 1
    verdict, wait = gate.decide("10.0.0.1", CDX)
    assert verdict == "429"
    # Refused requests count too: two of the four must leave the 10 s window, the second at 1012.
    assert wait == pytest.approx(8.0)
    clock.now += wait
    assert gate.decide("10.0.0.1", CDX)[0] == "ok"  # waited as told: admitted


def test_the_limit_is_per_client_address_and_the_search_endpoints_share_it(gate, clock):
    assert [gate.decide("10.0.0.1", p)[0] for p in (CDX, "/wayback/available", "/web/timemap/link/x")] == ["ok"] * 3
    assert gate.decide("10.0.0.1", "/wayback/available")[0] == "429"
    assert gate.decide("10.0.0.2", CDX)[0] == "ok"


def test_playback_has_its_own_limit(gate, clock):
    for _ in range(3):
        gate.decide("10.0.0.1", CDX)
    assert gate.decide("10.0.0.1", CDX)[0] == "429"
    assert [gate.decide("10.0.0.1", PLAYBACK)[0] for _ in range(3)] == ["ok", "ok", "429"]
    clock.now += 1.0
    assert gate.decide("10.0.0.1", PLAYBACK)[0] == "ok"
    assert gate.counts()["playback"] == {"ok": 3, "429": 1}


def test_a_client_that_keeps_sending_through_429s_is_blocked_and_repeat_blocks_double(gate, clock):
    for _ in range(3):
        gate.decide("10.0.0.1", CDX)
    verdicts = []
    for _ in range(8):  # one request a second, never waiting as told
        verdicts.append(gate.decide("10.0.0.1", CDX)[0])
        clock.now += 1
    assert verdicts[:6] == ["429"] * 6  # 429s for ban_after (5 s) ...
    assert verdicts[6:] == ["reset", "reset"]  # ... then the firewall
    assert gate.blocked("10.0.0.1") and not gate.blocked("10.0.0.2")
    assert gate.decide("10.0.0.1", PLAYBACK)[0] == "reset"  # every endpoint, not only the search ones
    assert [(b.seconds, b.offence) for b in gate.bans] == [(100.0, 1)]
    clock.now += 100
    assert gate.decide("10.0.0.1", CDX)[0] == "ok"
    for _ in range(2):
        gate.decide("10.0.0.1", CDX)
    for _ in range(8):
        gate.decide("10.0.0.1", CDX)
        clock.now += 1
    assert [(b.seconds, b.offence) for b in gate.bans] == [(100.0, 1), (200.0, 2)]


def test_a_client_that_waits_as_told_is_never_blocked(gate, clock):
    for _ in range(200):
        verdict, wait = gate.decide("10.0.0.1", CDX)
        assert verdict in ("ok", "429")
        clock.now += wait if verdict == "429" else 0.1
    assert gate.bans == []
    assert gate.counts()["cdx"]["ok"] >= 50


def test_limits_must_be_positive():
    with pytest.raises(ValueError, match="search_limit"):
        ArchiveLimits(search_limit=0)


async def test_over_http_429_carries_retry_after_and_a_blocked_client_is_reset(simweb, clock):
    store = CaptureStore()
    store.add("https://docs.example.test/a", "20200101000000", "<html><title>A</title></html>")
    mount_wayback(simweb, captures=store)
    gate = limit_archive(simweb, LIMITS, clock=clock)
    url = simweb.url("web.archive.org", CDX + "?url=docs.example.test/a&output=json")
    connector = aiohttp.TCPConnector(resolver=simweb.resolver)
    async with aiohttp.ClientSession(connector=connector) as session:
        statuses = []
        for _ in range(4):
            async with session.get(url) as response:
                statuses.append(response.status)
                retry_after = response.headers.get("Retry-After")
        assert statuses == [200, 200, 200, 429]
        assert retry_after == "10"
        clock.now += 3  # sent again before the wait is over ...
        async with session.get(url) as response:
            assert response.status == 429
        clock.now += 3  # ... and again, now for longer than ban_after
        with pytest.raises(aiohttp.ClientConnectionError):
            async with session.get(url) as response:
                await response.read()
        # archive.org's availability API sits behind the same firewall
        with pytest.raises(aiohttp.ClientConnectionError):
            async with session.get(simweb.url("archive.org", "/wayback/available?url=docs.example.test/a")) as response:
                await response.read()
    assert len(gate.bans) == 1
    assert gate.counts()["cdx"]["ok"] == 3
