"""SimWeb itself: routing, pages, redirects, mounts, counters, resolver, lifecycle."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
from aiohttp import web

from linkfix_simweb import SimWeb

HOST = "docs.example.test"


async def fetch(session, url, method="GET", **kwargs):
    kwargs.setdefault("allow_redirects", False)
    async with session.request(method, url, **kwargs) as response:
        return response.status, response.headers, await response.read()


async def test_page_served_with_status_headers_and_type(simweb, simweb_session):
    site = simweb.add_site(HOST)
    site.page("/guide/intro.html", "<h1>Intro</h1>", headers={"X-Test": "yes"})
    site.page("/data.json", '{"a": 1}', status=202, content_type="application/json")
    status, headers, body = await fetch(simweb_session, simweb.url(HOST, "/guide/intro.html"))
    assert (status, body, headers["X-Test"]) == (200, b"<h1>Intro</h1>", "yes")
    assert headers["Content-Type"].startswith("text/html")
    status, headers, body = await fetch(simweb_session, simweb.url(HOST, "/data.json"))
    assert (status, headers["Content-Type"], body) == (202, "application/json", b'{"a": 1}')


async def test_routing_by_host_header(simweb, simweb_session):
    simweb.add_site("a.test").page("/same", "from a")
    simweb.add_site("b.test").page("/same", "from b")
    assert (await fetch(simweb_session, simweb.url("a.test", "/same")))[2] == b"from a"
    assert (await fetch(simweb_session, simweb.url("b.test", "/same")))[2] == b"from b"
    assert simweb.stats("a.test").requests == 1
    assert simweb.stats("b.test").requests == 1


async def test_unknown_host_header_gets_421(simweb, simweb_session):
    simweb.add_site(HOST)
    url = f"http://127.0.0.1:{simweb.port}/"
    status, _, _ = await fetch(simweb_session, url, headers={"Host": "other.test"})
    assert status == 421
    assert simweb.unknown_hosts["other.test"] == 1


async def test_resolver_fails_for_names_that_are_not_sites(simweb, simweb_session):
    simweb.add_site(HOST)
    with pytest.raises(aiohttp.ClientConnectorError):
        await fetch(simweb_session, f"http://missing.test:{simweb.port}/")
    [result] = await simweb.resolver.resolve(HOST, simweb.port)
    assert (result["host"], result["port"]) == ("127.0.0.1", simweb.port)
    with pytest.raises(OSError):
        await simweb.resolver.resolve("missing.test")


async def test_ip_sites_get_their_own_listener_on_the_same_port():
    web_ = SimWeb()
    web_.add_site("127.0.0.12").page("/x", "twelve")
    web_.add_site("127.0.0.13").page("/x", "thirteen")
    async with web_:
        async with aiohttp.ClientSession() as session:  # no resolver: plain addresses
            assert (await fetch(session, web_.url("127.0.0.12", "/x")))[2] == b"twelve"
            assert (await fetch(session, web_.url("127.0.0.13", "/x")))[2] == b"thirteen"
        assert web_.url("127.0.0.12", "/x") == f"http://127.0.0.12:{web_.port}/x"
        assert web_.stats("127.0.0.12").requests == 1
        with pytest.raises(RuntimeError):
            web_.add_site("127.0.0.14")


async def test_fixed_port_is_used():
    probe = SimWeb()
    async with probe:
        free = probe.port
    async with SimWeb(port=free) as web_:
        assert web_.port == free


async def test_redirects_relative_and_absolute(simweb, simweb_session):
    site = simweb.add_site(HOST)
    other = simweb.add_site("new.test")
    other.page("/landing", "landed")
    site.redirect("/old", "/new", status=308)
    site.redirect("/away", simweb.url("new.test", "/landing"))
    status, headers, _ = await fetch(simweb_session, simweb.url(HOST, "/old"))
    assert (status, headers["Location"]) == (308, "/new")
    async with simweb_session.get(simweb.url(HOST, "/away")) as response:
        assert (response.status, await response.text()) == (200, "landed")
        assert [h.status for h in response.history] == [301]
    with pytest.raises(ValueError):
        site.redirect("/x", "/y", status=200)


async def test_page_matched_with_query_first(simweb, simweb_session):
    site = simweb.add_site(HOST)
    site.page("/p", "plain")
    site.page("/p?v=2", "version two")
    assert (await fetch(simweb_session, simweb.url(HOST, "/p?v=2")))[2] == b"version two"
    assert (await fetch(simweb_session, simweb.url(HOST, "/p?v=3")))[2] == b"plain"


async def test_mount_answers_unknown_paths_and_may_fall_through(simweb, simweb_session):
    site = simweb.add_site("archive.test")
    site.page("/fixed", "page wins")

    async def handler(request: web.Request):
        if request.path.startswith("/web/"):
            return web.Response(text=f"archived {request.path}")
        return None

    site.mount(handler)
    assert (await fetch(simweb_session, simweb.url("archive.test", "/web/2020/x")))[2] == b"archived /web/2020/x"
    assert (await fetch(simweb_session, simweb.url("archive.test", "/fixed")))[2] == b"page wins"
    assert (await fetch(simweb_session, simweb.url("archive.test", "/status/410")))[0] == 410
    assert (await fetch(simweb_session, simweb.url("archive.test", "/nothing")))[0] == 404


async def test_catalogue_can_be_switched_off(simweb, simweb_session):
    simweb.add_site(HOST, catalogue=False)
    assert (await fetch(simweb_session, simweb.url(HOST, "/status/500")))[0] == 404


async def test_counters_methods_paths_statuses_and_times(simweb, simweb_session):
    simweb.add_site(HOST).page("/a", "a")
    await fetch(simweb_session, simweb.url(HOST, "/a"))
    await fetch(simweb_session, simweb.url(HOST, "/a?x=1"), method="HEAD")
    await fetch(simweb_session, simweb.url(HOST, "/missing"))
    stats = simweb.stats(HOST)
    assert stats.requests == 3
    assert stats.methods == {"GET": 2, "HEAD": 1}
    assert stats.paths == {"/a": 2, "/missing": 1}
    assert stats.statuses == {200: 2, 404: 1}
    assert len(stats.times) == 3 and stats.times == sorted(stats.times)
    assert stats.concurrent == 0
    simweb.reset_stats()
    assert simweb.stats(HOST).requests == 0 and simweb.stats(HOST).paths == {}
    with pytest.raises(KeyError):
        simweb.stats("nope.test")


async def test_peak_concurrency_is_tracked_per_host():
    async with SimWeb(latency=0.3) as web_:
        web_.add_site("busy.test")
        web_.add_site("quiet.test")
        connector = aiohttp.TCPConnector(resolver=web_.resolver, limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            urls = [web_.url("busy.test", f"/ok/{i}") for i in range(6)] + [web_.url("quiet.test", "/ok/q")]
            statuses = await asyncio.gather(*(fetch(session, u) for u in urls))
        assert {s[0] for s in statuses} == {200}
        assert web_.stats("busy.test").peak_concurrent == 6
        assert web_.stats("quiet.test").peak_concurrent == 1


async def test_latency_delays_every_response_at_least_that_long():
    async with SimWeb(latency=0.05) as web_:
        web_.add_site(HOST)
        web_.add_site("fast.test", latency=0.0)
        connector = aiohttp.TCPConnector(resolver=web_.resolver)
        async with aiohttp.ClientSession(connector=connector) as session:
            loop = asyncio.get_running_loop()
            began = loop.time()
            await fetch(session, web_.url(HOST, "/"))
            assert loop.time() - began >= 0.05  # a lower bound: sleeping cannot be shorter


async def test_site_names_are_validated(simweb):
    for bad in ("", "Upper.test", "host:80", "a/b"):
        with pytest.raises(ValueError):
            simweb.add_site(bad)
    with pytest.raises(ValueError):
        simweb.add_site("10.0.0.1")
    with pytest.raises(ValueError):
        simweb.add_site(HOST).page("relative", "x")
    with pytest.raises(KeyError):
        simweb.url("unknown.test", "/")


async def test_port_before_start_is_an_error():
    with pytest.raises(RuntimeError):
        _ = SimWeb().port  # reading it is what raises


async def test_stop_is_idempotent_and_restart_works():
    web_ = SimWeb()
    web_.add_site(HOST)
    await web_.start()
    await web_.stop()
    await web_.stop()
    await web_.start()
    try:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(resolver=web_.resolver)) as session:
            assert (await fetch(session, web_.url(HOST, "/")))[0] == 200
    finally:
        await web_.stop()


HOSTILE = [
    b"GET /redirect/301?to=/x%0d%0aSet-Cookie:%20a=b HTTP/1.1\r\nHost: docs.example.test\r\n\r\n",
    b"GET /%00%ff/../.. HTTP/1.1\r\nHost: docs.example.test\r\n\r\n",
    b"GET /to404/%ff%fe HTTP/1.1\r\nHost: docs.example.test\r\n\r\n",
    b"GET /slow?s=nan HTTP/1.1\r\nHost: docs.example.test\r\n\r\n",
    b"GET /big?mb=inf HTTP/1.1\r\nHost: docs.example.test\r\n\r\n",
    b"GET /status/99999999999999999999999 HTTP/1.1\r\nHost: docs.example.test\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: \xff\xfe\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n",
    b"GARBAGE\r\n\r\n",
]


@pytest.mark.parametrize("raw", HOSTILE)
async def test_hostile_requests_get_a_clean_answer(simweb, simweb_session, raw):
    simweb.add_site(HOST)
    reader, writer = await asyncio.open_connection("127.0.0.1", simweb.port)
    writer.write(raw)
    await writer.drain()
    status_line = await reader.readline()
    writer.close()
    status = int(status_line.split()[1])
    assert 400 <= status < 500 or status == 302
    assert (await fetch(simweb_session, simweb.url(HOST, "/")))[0] == 200  # still serving


def test_redirect_targets_with_control_characters_are_refused():
    with pytest.raises(ValueError):
        SimWeb().add_site(HOST).redirect("/a", "/b\r\nSet-Cookie: x")
