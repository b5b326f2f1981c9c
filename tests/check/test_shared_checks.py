"""Runs sharing a store (a real redis-server) on the simulated web: one check per URL among
them, their results shared on each run's own terms, per-host limits and pauses held together,
and every fault or garbage the store can hold turned into a run that is still right."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter

import pytest

from linkfix.check.http import HttpChecker
from linkfix.check.http.shared_results import SharedResults
from linkfix.check.http.url_check import Outcome
from linkfix.config import Config
from linkfix.model import CheckResult, Status
from linkfix.store import shared as shared_module
from linkfix.store.cache import Cache
from linkfix.store.shared import PREFIX, SharedStore, name
from linkfix.urls import normalise_url

redis = pytest.importorskip("redis")

HOST = "docs.example.test"
SOLO = "solo.example.test"  # the same pages, checked by one run without a store: what one run sends
PAGES = [f"/ok/page-{i}.html" for i in range(8)] + ["/status/404/gone", "/redirect/301/ok/moved.html", "/nohead/x", "/challenge/wall"]


def config(**overrides) -> Config:
    return Config(**{"allow_private": True, "max_retries": 2, "network_probe": "", **overrides})


@contextlib.asynccontextmanager
async def run(web, server, cfg: Config | None = None, cache: Cache | None = None, *, store: bool = True):
    """One run: its own cache and its own connection to the store (another CI job, in effect)."""
    cache = cache or Cache(None)
    shared = SharedStore(server.url, run_id=cache.run_id) if store else None
    async with HttpChecker(cfg or config(), cache, resolver=web.resolver, backoff=0.01, max_retry_after=0.2, shared=shared) as checker:
        yield checker


async def check_all(checker, urls):
    targets = [(url, "") for url in urls]
    for url, fragment in targets:
        checker.submit(url, fragment)
    found = await checker.results(targets)
    return {url: found[(url, "")] for url in urls}


def statuses(results) -> list[Status]:
    return [result.status for result in results.values()]


@pytest.fixture
async def web(simweb):
    for host in (HOST, SOLO, "busy.example.test", "other.example.test"):
        simweb.add_site(host)
    return simweb


async def test_runs_at_once_check_each_url_once_and_agree(web, redis_server):
    async with run(web, redis_server, store=False) as solo:
        alone = await check_all(solo, [web.url(SOLO, page) for page in PAGES])
    sent: Counter[tuple[str, str]] = Counter()

    async def recorder(request):
        sent[request.method, request.path] += 1
        return None  # on to the catalogue

    web.sites[HOST].mount(recorder)
    urls = [web.url(HOST, page) for page in PAGES]
    async with run(web, redis_server) as first, run(web, redis_server) as second:
        together = await asyncio.gather(check_all(first, urls), check_all(second, urls))
    for results in together:
        assert statuses(results) == statuses(alone)
    # One check of a page sends each method to it once at most (none of these pages is retried);
    # two checks would send their first request twice.
    linked = {page for page in PAGES} | {"/ok/moved.html"}
    assert {pair: count for pair, count in sent.items() if pair[1] in linked and count > 1} == {}
    assert {path for _, path in sent} >= linked


async def test_a_later_run_with_an_empty_cache_asks_no_host(web, redis_server):
    urls = [web.url(HOST, page) for page in PAGES]
    async with run(web, redis_server) as first:
        before = await check_all(first, urls)
    web.reset_stats()
    async with run(web, redis_server) as later:
        after = await check_all(later, urls)
    assert web.stats(HOST).requests == 0
    assert statuses(after) == statuses(before)
    assert all(result.from_cache for result in after.values())


async def test_what_a_run_takes_from_the_store_stays_in_its_own_cache(web, redis_server, tmp_path):
    urls = [web.url(HOST, page) for page in PAGES]
    async with run(web, redis_server) as first:
        await check_all(first, urls)
    with Cache(tmp_path / "cache") as cache:
        web.reset_stats()
        async with run(web, redis_server, cache=cache) as later:
            await check_all(later, urls)
        assert web.stats(HOST).requests == 0  # from the store
    web.reset_stats()
    redis_server.stop()
    with Cache(tmp_path / "cache") as cache:
        async with run(web, redis_server, cache=cache, store=False) as offline_store:
            again = await check_all(offline_store, urls)
    assert web.stats(HOST).requests == 0 and all(result.from_cache for result in again.values())


async def test_freshness_is_the_readers_own(web, redis_server):
    url = web.url(HOST, "/ok/page-0.html")
    async with run(web, redis_server) as first:  # max_cache_age 1d: fresh for a day, as it wrote
        await check_all(first, [url])
    await asyncio.sleep(0.6)
    web.reset_stats()
    async with run(web, redis_server, cache=Cache(None, max_age=0.5)) as strict:
        result = (await check_all(strict, [url]))[url]
    assert not result.from_cache and web.stats(HOST).requests > 0
    web.reset_stats()
    async with run(web, redis_server, cache=Cache(None, max_age=3600)) as lenient:  # its own rules take it
        result = (await check_all(lenient, [url]))[url]
    assert result.from_cache and web.stats(HOST).requests == 0


async def test_runs_that_check_a_host_differently_do_not_share_its_results(web, redis_server):
    url = web.url(HOST, "/ok/page-0.html")
    async with run(web, redis_server) as first:
        await check_all(first, [url])
    web.reset_stats()
    with_key = config(hosts={HOST: {"headers": {"Authorization": "Bearer secret-token"}}})
    async with run(web, redis_server, with_key) as keyed:
        result = (await check_all(keyed, [url]))[url]
    assert not result.from_cache and web.stats(HOST).requests > 0
    web.reset_stats()
    async with run(web, redis_server, with_key) as keyed_again:  # the same settings: the same entry
        result = (await check_all(keyed_again, [url]))[url]
    assert result.from_cache and web.stats(HOST).requests == 0
    stored = b"".join(raw_value(redis_server, key) for key in raw(redis_server).scan_iter(PREFIX + "*"))
    assert b"secret-token" not in stored  # a header's value is in a hash of the profile only


async def test_host_concurrency_holds_for_all_runs_together(web, redis_server):
    web.add_site("busy.example.test", latency=0.2)
    cfg = config(host_concurrency=2)
    urls = [[web.url("busy.example.test", f"/ok/{run_name}-{i}.html") for i in range(8)] for run_name in ("a", "b")]
    async with run(web, redis_server, cfg) as first, run(web, redis_server, cfg) as second:
        await asyncio.gather(check_all(first, urls[0]), check_all(second, urls[1]))
    assert web.stats("busy.example.test").peak_concurrent <= 2  # each run alone may use 2: four without the store


async def test_a_429_pauses_the_host_for_every_run(web, redis_server):
    async with run(web, redis_server) as first:
        first.hosts._max_retry_after = 3.0  # the host asks for 1 s (Retry-After: 1)
        limited = asyncio.ensure_future(check_all(first, [web.url(HOST, "/rate/1/limited")]))
        gate = name("host", first.hosts.host_for(web.url(HOST, "/")).key)
        client = raw(redis_server)
        for _ in range(200):
            if client.exists(PREFIX + f"gate:{gate}:pause"):
                break
            await asyncio.sleep(0.02)
        started = time.monotonic()
        async with run(web, redis_server) as second:
            result = (await check_all(second, [web.url(HOST, "/ok/after-the-429.html")]))[web.url(HOST, "/ok/after-the-429.html")]
        waited = time.monotonic() - started
        await limited
    assert result.status is Status.OK
    assert waited >= 0.5  # held by the other run's pause (1 s from its 429), not sent at once


async def test_garbage_in_the_store_is_no_result(web, redis_server):
    urls = {page: web.url(HOST, page) for page in ("/status/404/a", "/status/404/b", "/status/404/c", "/status/404/d", "/status/410/e")}
    other = web.url(HOST, "/ok/someone-else.html")
    ok_record = {"result": {"url": other, "status": "ok", "http_status": 200, "checked_at": time.time()}, "fresh_until": time.time() + 3600}
    garbage = [
        b"not json at all",
        b'{"result": {"url": 5, "status": "ok"}, "fresh_until": 1e300}',
        json.dumps(ok_record).encode(),  # a record of another URL under this one's key
        b"\xff\xfe",
        b"[" * 100_000,
    ]
    probe = SharedResults(config(), Cache(None), SharedStore(redis_server.url))
    client = raw(redis_server)
    for url, value in zip(urls.values(), garbage):
        client.set(PREFIX + name(probe.profile(url), normalise_url(url)), value)
    async with run(web, redis_server) as checker:
        results = await check_all(checker, list(urls.values()))
    assert [result.status for result in results.values()] == [Status.BROKEN] * len(urls)
    assert not any(result.from_cache for result in results.values())


async def test_a_gate_holding_garbage_does_not_hold_the_run(web, redis_server, caplog):
    url = web.url(HOST, "/ok/page-0.html")
    async with run(web, redis_server) as checker:
        key = checker.hosts.host_for(url).key
    gate = name("host", key)
    client = raw(redis_server)
    client.zadd(PREFIX + f"gate:{gate}:leases", {f"junk-{i}": 1e15 for i in range(50)})  # no lease lasts that long
    client.set(PREFIX + f"gate:{gate}:pause", str(10**15))  # nor any pause
    shared_module._SAID.clear()
    with caplog.at_level(logging.WARNING):
        async with run(web, redis_server, config(timeout=1)) as checker:
            result = await asyncio.wait_for(check_all(checker, [url]), 30)
    assert result[url].status is Status.OK
    assert sum("kept waiting past any limit" in record.getMessage() for record in caplog.records) == 1


async def test_the_store_stopping_mid_run_changes_no_result(web, redis_server, caplog):
    web.add_site("busy.example.test", latency=0.05)
    pages = [f"/ok/{i}.html" for i in range(30)] + [f"/status/404/{i}" for i in range(10)]
    async with run(web, redis_server, store=False) as solo:
        alone = await check_all(solo, [web.url(SOLO, page) for page in pages])
    urls = [web.url("busy.example.test", page) for page in pages]
    shared_module._SAID.clear()

    async def stop_soon():
        while web.stats("busy.example.test").requests < 10:
            await asyncio.sleep(0.01)
        redis_server.stop()

    with caplog.at_level(logging.WARNING):
        async with run(web, redis_server) as first, run(web, redis_server) as second:
            results = await asyncio.gather(check_all(first, urls), check_all(second, urls), stop_soon())
    assert statuses(results[0]) == statuses(results[1]) == statuses(alone)
    warnings = [record.getMessage() for record in caplog.records if "shared cache" in record.getMessage()]
    assert len(warnings) == 1  # once per process and store (the two runs here share a process)


def raw(server):
    return redis.Redis.from_url(server.url)


def raw_value(server, key) -> bytes:
    client = raw(server)
    kind = client.type(key)
    if kind == b"string":
        return client.get(key) or b""
    if kind == b"zset":
        return b"".join(client.zrange(key, 0, -1))
    return b""


async def test_an_answer_stored_between_a_look_and_a_claim_is_taken(redis_server):
    """Run A finishes its check of a URL just after run B looked (nothing there yet) and just
    before B claims it (free again): B must take A's answer, not check the URL a second time."""
    url = "https://docs.example.test/page.html"
    cfg = config()
    first_cache, second_cache = Cache(None), Cache(None)
    first, second = SharedStore(redis_server.url, run_id="first"), SharedStore(redis_server.url, run_id="second")
    try:
        results = SharedResults(cfg, first_cache, first)
        key = name(results.profile(url), normalise_url(url))
        assert await first.open() and await second.open() and await first.claim(key)
        first_cache.put_result(url, CheckResult(url=url, status=Status.OK, http_status=200, checked_at=time.time()))
        row = results._rows(url, key, first_cache.record(url))
        claim = second.claim

        async def claim_once_the_first_is_done(name_: str):
            await first.finish(key, row)  # between B's look and B's claim
            return await claim(name_)

        second.claim = claim_once_the_first_is_done
        checks = []

        async def check():
            checks.append(url)
            raise AssertionError("checked a second time")

        waiter = SharedResults(cfg, second_cache, second)
        known = lambda: Outcome(result=second_cache.get_result(url)) if second_cache.get_result(url) else None  # noqa: E731
        outcome = await waiter.outcome(url, want_ids=False, known=known, check=check)
        assert checks == [] and outcome.result.status is Status.OK and outcome.result.from_cache
        assert await first.claim(key)  # B gave its claim up again
    finally:
        await first.close()
        await second.close()

