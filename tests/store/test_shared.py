"""The shared store against a real redis-server: records, claims, gates, credentials, faults."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from linkfix.store import shared as shared_module
from linkfix.store.shared import DONE, PREFIX, SharedStore, name

redis = pytest.importorskip("redis")


def raw(server):
    return redis.Redis.from_url(server.url, password=server.password or None)


@contextlib.asynccontextmanager
async def opened(url: str, **kw):
    store = SharedStore(url, **kw)
    try:
        yield store
    finally:
        await store.close()


async def test_rows_written_are_read_back_in_one_batch(redis_server):
    async with opened(redis_server.url) as store:
        assert await store.open()
        await store.write([("a", "[1]", 60), ("b", '{"x":"é"}', 60)])
        both = await asyncio.gather(store.read([("a", 100)]), store.read([("b", 100), ("missing", 100)]))
    assert both == [{"a": "[1]"}, {"b": '{"x":"é"}'}]
    assert 0 < raw(redis_server).pttl(PREFIX + "a") <= 60_000  # every row expires


async def test_values_too_long_or_not_text_are_not_read(redis_server):
    client = raw(redis_server)
    client.set(PREFIX + "long", b"x" * 5000)
    client.set(PREFIX + "binary", b"\xff\xfe{}")
    client.set(PREFIX + "fine", b"[]")
    async with opened(redis_server.url) as store:
        assert await store.open()
        found = await store.read([("long", 1000), ("binary", 1000), ("fine", 1000)])
    assert found == {"fine": "[]"}  # the long one was read only up to its cap: never whole


async def test_a_claim_is_one_runs_until_it_finishes_and_wakes_the_others(redis_server):
    async with opened(redis_server.url, run_id="first") as first, opened(redis_server.url, run_id="second") as second:
        assert await first.open() and await second.open()
        assert await first.claim("k") is True
        assert await first.claim("k") is True  # ours already
        assert await second.claim("k") is False
        waiting = asyncio.ensure_future(second.woken(DONE, "k", timeout=60))
        await asyncio.sleep(0.1)
        await first.finish("k", [("k", '"answer"', 60)])
        await asyncio.wait_for(waiting, 30)  # woken by the message, not by its 60 s timeout
        assert await second.read([("k", 100)]) == {"k": '"answer"'}
        assert await second.claim("k") is True  # given up by the finish


async def test_a_dead_runs_claim_is_taken_over(redis_server):
    async with opened(redis_server.url, run_id="dead") as dead, opened(redis_server.url, run_id="alive") as alive:
        assert await dead.open() and await alive.open()
        assert await dead.claim("k") is True
        assert await alive.claim("k") is False
        raw(redis_server).delete(PREFIX + "alive:dead")  # what its expiry does once a killed run stops renewing it
        assert await alive.claim("k") is True


async def test_closing_frees_the_runs_claims_at_once(redis_server):
    async with opened(redis_server.url, run_id="other") as other:
        assert await other.open()
        async with opened(redis_server.url, run_id="leaving") as leaving:
            assert await leaving.open()
            assert await leaving.claim("k") is True
        assert await other.claim("k") is True


async def test_gate_leases_limit_then_free(redis_server):
    async with opened(redis_server.url) as store:
        assert await store.open()
        assert await store.take_slot("g", "t1", 2, 30) == 0
        assert await store.take_slot("g", "t2", 2, 30) == 0
        assert await store.take_slot("g", "t3", 2, 30) == -1  # both out
        store.free_slot("g", "t1")
        await asyncio.sleep(0.2)  # sent in the background
        assert await store.take_slot("g", "t3", 2, 30) == 0


async def test_a_lease_never_given_back_expires(redis_server):
    """A killed run's lease frees its share by itself."""
    async with opened(redis_server.url) as store:
        assert await store.open()
        assert await store.take_slot("g", "killed", 1, 0.2) == 0
        assert await store.take_slot("g", "next", 1, 0.2) == -1
        await asyncio.sleep(0.3)
        assert await store.take_slot("g", "next", 1, 0.2) == 0


async def test_a_pause_holds_every_lease_and_turn(redis_server):
    async with opened(redis_server.url) as first, opened(redis_server.url) as second:
        assert await first.open() and await second.open()
        first.hold_off("g", 5.0)
        await asyncio.sleep(0.2)
        assert 4.0 < await second.take_slot("g", "t", 8, 30) <= 5.0
        assert 4.0 < await second.take_turn("g", 0.1) <= 5.0


async def test_turns_are_spaced(redis_server):
    async with opened(redis_server.url) as store:
        assert await store.open()
        assert await store.take_turn("g", 10.0) == 0
        assert 9.0 < await store.take_turn("g", 10.0) <= 10.0


async def test_credentials_come_from_the_environment(tmp_path):
    from linkfix_simweb.store_server import RedisServer

    if not RedisServer.available():
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    with RedisServer(password="s3cret") as server:
        async with opened(server.url, environ={"LINKFIX_CACHE_PASSWORD": "s3cret"}) as store:
            assert await store.open()
        async with opened(server.url, environ={}) as store:
            assert not await store.open()
            assert "Authentication" in store.problem or "NOAUTH" in store.problem


async def test_unreachable_store_is_said_once_and_answers_nothing(redis_server, caplog):
    url = redis_server.url
    redis_server.stop()
    shared_module._SAID.clear()
    with caplog.at_level(logging.WARNING, logger="linkfix.store.shared"):
        async with opened(url) as store:
            assert not await store.open()
            assert not await store.open()  # asked again: the same answer, no second attempt
            assert await store.read([("a", 10)]) == {}
            assert await store.claim("k") is None
            assert await store.take_slot("g", "t", 1, 1) is None
            await store.write([("a", "1", 1)])
            await store.finish("k", [])
            store.free_slot("g", "t")
            await store.woken(DONE, "k", timeout=60)  # returns at once: nothing to wait for
    assert [r.getMessage() for r in caplog.records].count(f"shared cache {url} cannot be reached ({store.problem}); going on with the local cache") == 1
    assert len(caplog.records) == 1


async def test_a_store_stopped_mid_run_is_given_up_once(redis_server, caplog):
    shared_module._SAID.clear()
    with caplog.at_level(logging.WARNING, logger="linkfix.store.shared"):
        async with opened(redis_server.url) as store:
            assert await store.open()
            waiting = asyncio.ensure_future(store.woken(DONE, "k", timeout=60))
            await asyncio.sleep(0.1)
            redis_server.stop()
            for _ in range(3):
                await store.read([("a", 10)])
                await store.claim("k")
            await asyncio.wait_for(waiting, 30)  # the fault woke it
            assert not store.up
    assert len(caplog.records) == 1 and "going on with the local cache" in caplog.records[0].getMessage()


async def test_a_store_that_never_answers_is_given_up(unused_tcp_port):
    """A slow store is a fault: a server that accepts and says nothing costs OP_SECONDS, not a hang."""
    accepted = []
    server = await asyncio.start_server(lambda reader, writer: accepted.append(writer), "127.0.0.1", unused_tcp_port)
    async with server, opened(f"redis://127.0.0.1:{unused_tcp_port}/0") as store:
        assert not await asyncio.wait_for(store.open(), 10 * shared_module.OP_SECONDS)
        assert "Timeout" in store.problem
    for writer in accepted:
        writer.close()


def test_names_are_fixed_size_hashes():
    assert len(name("profile", "https://example.com/" + "a" * 10000)) == 32
    assert name("a", "b") != name("ab")


async def test_the_redis_user_the_docs_give_linkfix_is_enough(redis_server):
    """docs/ci.md's `user linkfix ...` line, applied as written: every command linkfix sends passes."""
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "ci.md").read_text(encoding="utf-8")
    (line,) = [line for line in docs.splitlines() if line.startswith("user linkfix ")]
    rules = line.split()[2:]
    client = raw(redis_server)
    client.execute_command("ACL", "SETUSER", "linkfix", *[rule.replace("CHANGE-ME", "pw") for rule in rules])
    environ = {"LINKFIX_CACHE_USERNAME": "linkfix", "LINKFIX_CACHE_PASSWORD": "pw"}
    async with opened(redis_server.url, environ=environ) as first, opened(redis_server.url, environ=environ) as second:
        assert await first.open() and await second.open()
        await first.write([("k", "1", 10)])
        assert await first.read([("k", 10)]) == {"k": "1"}
        assert await first.claim("u") is True and await second.claim("u") is False
        await first.finish("u", [("u", "2", 10)])
        assert await first.take_slot("g", "t", 1, 5) == 0 and await first.take_turn("g", 0.1) == 0
        first.hold_off("g", 1)
        first.free_slot("g", "t")
        await asyncio.sleep(0.2)
        assert await second.take_slot("g", "t2", 1, 5) > 0
        assert first.up and second.up, (first.problem, second.problem)
    assert client.acl_log() == []


async def test_close_ends_with_a_heartbeat_beating_as_fast_as_it_can(redis_server, monkeypatch):
    """close() cancels the heartbeat and waits for it. Python 3.11's asyncio.wait_for can lose a
    cancellation that meets a finishing command: the heartbeat then beat on, and close() (and the
    run, and a test of the suite one time in a few) waited forever. A heartbeat with no pause
    between beats meets that race on nearly every close."""
    monkeypatch.setattr(shared_module, "HEARTBEAT", 0)
    for _ in range(20):
        store = SharedStore(redis_server.url)
        assert await store.open()
        await asyncio.sleep(0.01)
        closing = asyncio.ensure_future(store.close())
        done, _ = await asyncio.wait([closing], timeout=3 * shared_module.OP_SECONDS)
        if not done:  # stop the runaway heartbeat (its loop ends once the store is down), then fail
            store._client = None
            await closing
        assert done and all(task.done() for task in store._tasks)
