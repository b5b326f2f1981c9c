"""Fault injection: broken servers, hostile answers, failing DNS, rate limits and failing
recovery providers. Every case must end with the right status, in bounded time and memory,
without an exception escaping.

Time bounds are not asserted (no timed assertions in unit tests); they are bounded by the small
`timeout` and `max_retries` in the config, and the suite's duration shows it. Memory is bounded
by what the checker keeps: asserted with tracemalloc on the gzip bomb.
"""

from __future__ import annotations

import logging
import socket
import time
import tracemalloc
from pathlib import Path

import pytest

from linkfix.check.http import SNIFF_BYTES, HttpChecker
from linkfix.config import Config
from linkfix.model import Status
from linkfix.pipeline import run_check
from linkfix.store.cache import Cache
from linkfix_simweb.corpus import ARCHIVE_HOST, AVAILABILITY_HOST, SEARCH_HOST, build_web
from linkfix_simweb.faults import API_FAULTS, BOMB_BYTES, FaultServer, endless_redirects, failing_api, rate_limit_window


async def check_all(c, targets):
    """Submit every (url, fragment) target, then collect them: the path the pipeline takes."""
    targets = list(dict.fromkeys(targets))
    for url, fragment in targets:
        c.submit(url, fragment)
    return await c.results(targets)


log = logging.getLogger(__name__)
HOST = "docs.example.test"
MIB = 1024 * 1024


def config(**overrides) -> Config:
    # Loopback servers: private addresses allowed. Small timeouts keep every fault short.
    return Config(**{"allow_private": True, "timeout": 0.5, "max_retries": 1, "cache": False, **overrides})


def checker(cfg: Config | None = None, *, resolver=None) -> HttpChecker:
    return HttpChecker(cfg or config(), Cache(None), resolver=resolver, backoff=0.01, max_retry_after=0.2)


@pytest.fixture
async def faults():
    async with FaultServer() as server:
        yield server


# -- protocol-level faults ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fault", "status", "reason"),
    [
        ("ok", Status.OK, "200"),  # the control: the fault server itself is sound
        ("reset", Status.ERROR, "reset"),  # RST after 16 KiB of a 1 MiB body
        ("short", Status.ERROR, "reset"),  # clean close before Content-Length is reached
        ("close", Status.ERROR, "reset"),  # connection closed without a byte
        ("silent", Status.TIMEOUT, "timeout"),  # accepts, never answers
        ("trickle", Status.TIMEOUT, "timeout"),  # endless slow body: the total timeout covers the body
        ("huge-header", Status.ERROR, "protocol"),  # one 1 MiB header line
        ("many-headers", Status.ERROR, "protocol"),  # 20,000 header lines
        ("garbage", Status.ERROR, "protocol"),  # random bytes
        ("bad-status", Status.ERROR, "protocol"),  # "HTTP/1.1 OK 200"
        ("not-http", Status.ERROR, "protocol"),  # an SSH banner
        ("bad-chunk", Status.ERROR, "protocol"),  # chunk size that is not hex
    ],
)
async def test_protocol_faults_end_in_the_right_status(faults, fault, status, reason):
    url = faults.url(f"/{fault}/page.html")
    async with checker() as c:
        plain = await c.check(url)
        with_fragment = await c.check(url, fragment="top")  # a GET that must read the page
        fetched = await c.fetch(url)
    assert (plain.status, plain.reason) == (status, reason), plain.detail
    assert with_fragment.status is status
    if status is Status.OK:
        assert fetched.status == 200 and "fault server" in fetched.text
    else:
        assert (fetched.status, fetched.error) == (0, reason)  # fetch never raises either


async def test_a_fault_is_retried_then_given_up(faults):
    async with checker(config(max_retries=2)) as c:
        result = await c.check(faults.url("/reset/page.html"))
    assert result.status is Status.ERROR
    gets = [p for m, p in faults.requests if m == "GET" and p == "/reset/page.html"]
    assert len(gets) == 3  # first try + max_retries, then a verdict


async def test_trickle_is_cut_by_the_timeout_not_read_forever(faults):
    async with checker(config(max_retries=0, timeout=0.3)) as c:
        result = await c.check(faults.url("/trickle/page.html"))
    assert result.status is Status.TIMEOUT
    # one byte per 20 ms: far under the 64 KiB a sniffing GET would accept
    assert 0 < faults.served_bytes("trickle") < 100


async def test_gzip_bomb_is_capped_in_decompressed_bytes(faults):
    url = faults.url("/gzip-bomb/page.html")
    tracemalloc.start()
    try:
        async with checker(config(max_retries=0, timeout=5.0)) as c:
            checked = await c.check(url)
            fetched = await c.fetch(url, max_bytes=2 * MIB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert checked.status is Status.OK  # it is a live page; only its size is hostile
    assert fetched.status == 200 and len(fetched.text) == 2 * MIB  # exactly the cap, decompressed
    # The bomb would inflate to 1 GiB; what went over the wire is a few KiB per MiB read, and
    # what was held in memory is a few times the cap, not the bomb.
    assert faults.served_bytes("gzip-bomb") < BOMB_BYTES // 1000
    assert peak < 32 * MIB
    assert SNIFF_BYTES < 2 * MIB


# -- redirects ---------------------------------------------------------------------------------------
async def test_endless_redirect_chain_stops_at_max_redirects(simweb):
    site = simweb.add_site(HOST, catalogue=False)
    site.mount(endless_redirects())
    async with checker(config(max_redirects=10), resolver=simweb.resolver) as c:
        result = await c.check(simweb.url(HOST, "/hop/0"))
    assert (result.status, result.reason) == (Status.BROKEN, "too-many-redirects")
    assert len(result.redirects) == 11
    assert simweb.stats(HOST).requests == 11  # HEAD per hop, nothing more


async def test_chain_of_thousands_with_a_raised_limit_is_followed_and_bounded(simweb):
    site = simweb.add_site(HOST, catalogue=False)
    site.mount(endless_redirects(end=1000))  # /hop/1000 answers 200
    async with checker(config(max_redirects=1500), resolver=simweb.resolver) as c:
        followed = await c.check(simweb.url(HOST, "/hop/0"))
    async with checker(config(max_redirects=200), resolver=simweb.resolver) as c:
        stopped = await c.check(simweb.url(HOST, "/hop/700"))  # 300 hops to the end: over the limit
    assert followed.status is Status.REDIRECTED and len(followed.redirects) == 1000
    assert followed.final_url.endswith("/hop/1000")
    assert (stopped.status, stopped.reason, len(stopped.redirects)) == (Status.BROKEN, "too-many-redirects", 201)


# -- DNS ---------------------------------------------------------------------------------------------
class PartlyFailingResolver:
    """The simulated web's resolver, but some names do not exist and some fail temporarily."""

    def __init__(self, inner, *, missing=(), flaky=()) -> None:
        self.inner, self.missing, self.flaky = inner, set(missing), set(flaky)
        self.asked: list[str] = []

    async def resolve(self, host, port=0, family=socket.AF_INET):
        self.asked.append(host)
        if host in self.missing:
            raise OSError(socket.EAI_NONAME, f"Name or service not known: {host}")
        if host in self.flaky:
            raise OSError(socket.EAI_AGAIN, f"Temporary failure in name resolution: {host}")
        return await self.inner.resolve(host, port, family)

    async def close(self):
        return None


async def test_dns_failure_for_some_hosts_is_not_network_down(simweb):
    live = [f"live{i}.example.test" for i in range(3)]
    dead = [f"dead{i}.example.test" for i in range(8)]  # more than NETWORK_DOWN_HOSTS
    flaky = [f"flaky{i}.example.test" for i in range(2)]
    for name in live + dead + flaky:
        simweb.add_site(name)
    resolver = PartlyFailingResolver(simweb.resolver, missing=dead, flaky=flaky)
    targets = [(simweb.url(name, "/ok/page.html"), "") for name in live + dead + flaky]
    async with checker(config(max_retries=1), resolver=resolver) as c:
        results = await check_all(c, targets)  # raises NetworkDownError if it mistook this for an outage
    by_host = {url.split("/")[2].split(":")[0]: r for (url, _), r in results.items()}
    assert all(by_host[name].status is Status.OK for name in live)
    assert all((by_host[name].status, by_host[name].reason) == (Status.BROKEN, "dns") for name in dead)
    # a temporary resolver failure is not proof the name is gone: an error, retried, not "broken"
    assert all((by_host[name].status, by_host[name].reason) == (Status.ERROR, "dns-error") for name in flaky)
    assert resolver.asked.count(flaky[0]) == 2
    assert all(simweb.stats(name).requests == 0 for name in dead + flaky)


# -- rate limiting mid-run ---------------------------------------------------------------------------
async def test_host_that_starts_rate_limiting_mid_run_is_blocked_not_broken(simweb):
    simweb.add_site(HOST, rate_limit_after=6)
    targets = [(simweb.url(HOST, f"/ok/page{i}.html"), "") for i in range(12)]
    async with checker(config(max_retries=1, host_concurrency=2), resolver=simweb.resolver) as c:
        results = await check_all(c, targets)
    statuses = [r.status for r in results.values()]
    assert Status.BROKEN not in statuses and Status.ERROR not in statuses
    assert statuses.count(Status.OK) >= 3  # the ones answered before the limit started
    blocked = [r for r in results.values() if r.status is Status.BLOCKED]
    assert blocked and all(r.http_status == 429 for r in blocked)
    # retries are bounded: at most 1 + max_retries requests per URL, plus, for a page that was
    # answered (the catalogue's /ok/ answers anything, so its directory needs soft-404 checks),
    # a GET of the page (with its retry), plus the directory's probe (with its retry)
    ok = statuses.count(Status.OK)
    assert simweb.stats(HOST).requests <= 12 * 2 + ok * 2 + 2


async def test_rate_limit_window_is_ridden_out_by_retries(simweb):
    site = simweb.add_site(HOST)
    site.mount(rate_limit_window(after=3, count=4))
    targets = [(simweb.url(HOST, f"/ok/page{i}.html"), "") for i in range(8)]
    async with checker(config(max_retries=3, host_concurrency=1), resolver=simweb.resolver) as c:
        results = await check_all(c, targets)
    assert all(r.status is Status.OK for r in results.values())
    assert 429 in simweb.stats(HOST).statuses


# -- recovery providers failing ------------------------------------------------------------------------
RECOVERY_TYPES = ("archive-only", "moved-host", "moved-edited", "no-archive")


@pytest.fixture
async def recovery_web(simweb, tmp_path: Path):
    """The evaluation web, and a project linking one dead URL of each chosen case type."""
    ev = build_web(simweb, latency=0.0, docs_dir=tmp_path / "eval-docs")
    chosen = {}
    for case in ev.cases:
        if case.type in RECOVERY_TYPES:
            chosen.setdefault(case.type, case)
    project = tmp_path / "project"
    project.mkdir()
    lines = ["# Further reading", ""] + [f"- See [{case.anchor}]({case.dead_url}) for details." for case in chosen.values()]
    (project / "index.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    overrides = ev.config_overrides()
    overrides["archive"] = [dict(a, requests_per_minute=0) for a in overrides["archive"]]
    # No retries and a short timeout: run_check builds its own client with the default backoff.
    cfg = Config(**overrides, cache=False, timeout=0.3, max_retries=0, max_seconds=2.0)
    return simweb, project, cfg


def _methods(report) -> list[str]:
    return [s.method for r in report.results for s in r.suggestions]


@pytest.mark.slow  # the 429 mode waits out the archive's Retry-After, as asked
async def test_recovery_degrades_when_archive_and_search_fail(recovery_web):
    web, project, cfg = recovery_web
    healthy = await run_check([str(project)], cfg, resolver=web.resolver)
    assert "archive" in _methods(healthy) and "search" in _methods(healthy)  # the control works
    for mode in API_FAULTS:  # one loop, not a parametrize: the healthy run is the slow part
        for host in (ARCHIVE_HOST, AVAILABILITY_HOST, SEARCH_HOST):
            web.sites[host].mount(failing_api(mode))
        web.reset_stats()
        started = time.monotonic()
        degraded = await run_check([str(project)], cfg, resolver=web.resolver)
        log.info("providers failing with %s: recovery took %.2fs", mode, time.monotonic() - started)
        # the check itself is untouched; recovery loses what the failing providers gave (what
        # the sites themselves give, sitemaps, search indexes, rewrites, may still be offered)
        assert [r.result.status for r in degraded.results] == [r.result.status for r in healthy.results], mode
        assert all(r.result.status is Status.BROKEN for r in degraded.results), mode
        assert "archive" not in _methods(degraded) and "search" not in _methods(degraded), mode
        assert all(r.archived is None for r in degraded.results), mode
        assert sum(web.stats(h).requests for h in (ARCHIVE_HOST, AVAILABILITY_HOST, SEARCH_HOST)) > 0, mode
