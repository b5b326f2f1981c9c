"""The behaviour catalogue, one test per behaviour (through a real aiohttp client)."""

from __future__ import annotations

import asyncio
import gzip

import aiohttp
import pytest

from linkfix_simweb import SimWeb

HOST = "docs.example.test"


@pytest.fixture
async def site(simweb):
    return simweb.add_site(HOST)


async def get(simweb, session, path, method="GET", **kwargs):
    kwargs.setdefault("allow_redirects", False)
    async with session.request(method, simweb.url(HOST, path), **kwargs) as response:
        return response.status, response.headers, await response.read()


async def test_home_and_ok_pages_differ_by_path(simweb, simweb_session, site):
    home = await get(simweb, simweb_session, "/")
    one = await get(simweb, simweb_session, "/ok/guide/install-cache.html")
    two = await get(simweb, simweb_session, "/ok/guide/other.html")
    assert home[0] == one[0] == two[0] == 200
    assert b"<title>Install Cache" in one[2]
    assert one[2] != two[2]
    assert one[2] == (await get(simweb, simweb_session, "/ok/guide/install-cache.html"))[2]


@pytest.mark.parametrize("code", [404, 410, 500, 403, 502])
async def test_status_always(simweb, simweb_session, site, code):
    for _ in range(2):
        assert (await get(simweb, simweb_session, f"/status/{code}/some/page"))[0] == code


async def test_status_999_linkedin(simweb, simweb_session, site):
    async with simweb_session.get(simweb.url(HOST, "/status/999")) as response:
        assert (response.status, response.reason) == (999, "Request denied")


async def test_unknown_path_is_a_real_404_with_the_path(simweb, simweb_session, site):
    status, _, body = await get(simweb, simweb_session, "/guide/gone.html")
    assert status == 404 and b"/guide/gone.html" in body


async def test_soft404_site_answers_200_naming_the_path(simweb, simweb_session):
    simweb.add_site(HOST, soft404=True).page("/real.html", "<h1>real</h1>")
    status, headers, body = await get(simweb, simweb_session, "/guide/gone-away.html")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"/guide/gone-away.html" in body and b"<footer>" in body
    assert (await get(simweb, simweb_session, "/real.html"))[2] == b"<h1>real</h1>"
    assert (await get(simweb, simweb_session, "/status/404"))[0] == 404


async def test_flaky_fails_n_times_per_client(simweb, simweb_session, site):
    statuses = [(await get(simweb, simweb_session, "/flaky/2/x"))[0] for _ in range(4)]
    assert statuses == [503, 503, 200, 200]
    other_client = {"User-Agent": "another-checker"}
    assert (await get(simweb, simweb_session, "/flaky/2/x", headers=other_client))[0] == 503
    assert (await get(simweb, simweb_session, "/flaky/2/y"))[0] == 503  # per path too
    simweb.reset_stats()
    assert (await get(simweb, simweb_session, "/flaky/2/x"))[0] == 503


async def test_rate_answers_429_with_retry_after_then_200(simweb, simweb_session, site):
    status, headers, _ = await get(simweb, simweb_session, "/rate/1/page")
    assert (status, headers["Retry-After"]) == (429, "1")
    assert (await get(simweb, simweb_session, "/rate/1/page"))[0] == 200


async def test_host_rate_limited_after_k_requests(simweb, simweb_session):
    simweb.add_site(HOST, rate_limit_after=3)
    statuses = [(await get(simweb, simweb_session, f"/ok/{i}"))[0] for i in range(5)]
    assert statuses == [200, 200, 200, 429, 429]
    assert (await get(simweb, simweb_session, "/ok/0"))[1]["Retry-After"] == "1"


async def test_nohead_and_head404(simweb, simweb_session, site):
    status, headers, _ = await get(simweb, simweb_session, "/nohead/page", method="HEAD")
    assert (status, headers["Allow"]) == (405, "GET")
    assert (await get(simweb, simweb_session, "/nohead/page"))[0] == 200
    assert (await get(simweb, simweb_session, "/head404/page", method="HEAD"))[0] == 404
    assert (await get(simweb, simweb_session, "/head404/page"))[0] == 200


@pytest.mark.parametrize("method", ["GET", "HEAD"])
async def test_cloudflare_challenge(simweb, simweb_session, site, method):
    status, headers, body = await get(simweb, simweb_session, "/challenge/page", method=method)
    assert status == 403
    assert headers["Server"] == "cloudflare" and headers["cf-mitigated"] == "challenge"
    if method == "GET":
        assert b"<title>Just a moment...</title>" in body
    else:
        assert body == b""


async def test_chain_of_n_hops(simweb, simweb_session, site):
    async with simweb_session.get(simweb.url(HOST, "/chain/4/doc")) as response:
        assert response.status == 200
        assert [h.status for h in response.history] == [301] * 4
        assert response.url.path == "/chain/0/doc"
    status, headers, _ = await get(simweb, simweb_session, "/chain/2/doc?code=307")
    assert (status, headers["Location"]) == (307, "/chain/1/doc?code=307")


async def test_loop_never_ends(simweb, simweb_session, site):
    status, headers, _ = await get(simweb, simweb_session, "/loop/3")
    assert (status, headers["Location"]) == (302, "/loop/3/1")
    assert (await get(simweb, simweb_session, "/loop/3/2"))[1]["Location"] == "/loop/3/0"
    with pytest.raises(aiohttp.TooManyRedirects):
        async with simweb_session.get(simweb.url(HOST, "/loop/2"), max_redirects=10):
            pass
    paths = simweb.stats(HOST).paths  # aiohttp gives up after 10 requests in the loop
    assert paths["/loop/2"] == 1 and paths["/loop/2/1"] == 5 and paths["/loop/2/0"] == 4


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
async def test_each_redirect_code(simweb, simweb_session, site, code):
    status, headers, _ = await get(simweb, simweb_session, f"/redirect/{code}/ok/target.html")
    assert (status, headers["Location"]) == (code, "/ok/target.html")


async def test_redirect_to_another_site(simweb, simweb_session, site):
    simweb.add_site("new.test").page("/here", "moved here")
    target = simweb.url("new.test", "/here")
    async with simweb_session.get(simweb.url(HOST, "/redirect/301"), params={"to": target}) as response:
        assert (response.status, await response.text()) == (200, "moved here")


async def test_redirect_to_home_and_to_error_pages(simweb, simweb_session, site):
    assert (await get(simweb, simweb_session, "/tohome/old"))[1]["Location"] == "/"
    for path, marker in (("/to404/old/page", "404"), ("/tonotfound/old/page", "notfound")):
        async with simweb_session.get(simweb.url(HOST, path)) as response:
            assert marker in str(response.url)
            assert response.status == 200  # the error page itself claims success
            assert "old/page" in await response.text()


async def test_slow_answers_after_the_delay(simweb, simweb_session, site):
    loop = asyncio.get_running_loop()
    began = loop.time()
    assert (await get(simweb, simweb_session, "/slow?s=0.1"))[0] == 200
    assert loop.time() - began >= 0.1
    assert (await get(simweb, simweb_session, "/slow?s=999"))[0] == 404  # refused, not 999 s


async def test_hang_never_answers_and_stop_ends_it():
    web_ = SimWeb()
    web_.add_site(HOST)
    await web_.start()
    connector = aiohttp.TCPConnector(resolver=web_.resolver)
    async with aiohttp.ClientSession(connector=connector) as session:
        pending = asyncio.ensure_future(session.get(web_.url(HOST, "/hang")))
        done, _ = await asyncio.wait([pending], timeout=0.3)
        assert not done  # still waiting for an answer
        await web_.stop()  # wakes the handler, which drops the connection
        with pytest.raises(aiohttp.ClientError):
            response = await pending
            response.close()


async def test_fragment_page_has_the_ids(simweb, simweb_session, site):
    body = (await get(simweb, simweb_session, "/fragments/page.html"))[2].decode()
    for fragment in ("intro", "install", "usage", "faq"):
        assert f'id="{fragment}"' in body
    assert '<a name="legacy">' in body
    body = (await get(simweb, simweb_session, "/fragments/p.html?ids=alpha,beta&names=old"))[2].decode()
    assert 'id="alpha"' in body and 'id="beta"' in body and '<a name="old">' in body
    assert 'id="intro"' not in body


async def test_big_body_is_streamed_with_length(simweb, simweb_session, site):
    async with simweb_session.get(simweb.url(HOST, "/big?mb=3")) as response:
        assert response.content_length == 3 * 1024 * 1024
        received = 0
        async for chunk in response.content.iter_chunked(256 * 1024):
            received += len(chunk)
    assert received == 3 * 1024 * 1024
    status, headers, body = await get(simweb, simweb_session, "/big?mb=1", method="HEAD")
    assert (status, headers["Content-Length"], body) == (200, str(1024 * 1024), b"")


async def test_gzip_body(simweb, simweb_session, site):
    async with simweb_session.get(simweb.url(HOST, "/gzip/page.html"), auto_decompress=False) as response:
        raw = await response.read()
        assert response.headers["Content-Encoding"] == "gzip"
    assert b"<title>Page" in gzip.decompress(raw)
    async with simweb_session.get(simweb.url(HOST, "/gzip/page.html")) as response:
        assert "<title>Page" in await response.text()


async def test_head_bodies_are_empty(simweb, simweb_session, site):
    status, headers, body = await get(simweb, simweb_session, "/ok/page.html", method="HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0


@pytest.mark.parametrize("path", ["/status/abc", "/flaky/x", "/chain/-1", "/chain/2?code=200", "/redirect/200/x", "/loop/0", "/big?mb=lots"])
async def test_malformed_catalogue_paths_are_plain_404(simweb, simweb_session, site, path):
    assert (await get(simweb, simweb_session, path))[0] == 404


async def test_hang_gives_up_by_dropping_the_connection(simweb, simweb_session, site, monkeypatch, caplog):
    from linkfix_simweb import behaviours

    monkeypatch.setattr(behaviours, "MAX_WAIT", 0.1)  # the real bound is 60 s
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await get(simweb, simweb_session, "/hang")
    assert simweb.stats(HOST).concurrent == 0
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


def test_stats_snapshot_is_a_copy():
    from linkfix_simweb.stats import HostCounters

    counters = HostCounters()
    counters.begin("GET", "/a")
    snapshot = counters.snapshot()
    counters.begin("HEAD", "/b")
    counters.end(200)
    assert (snapshot.requests, snapshot.paths, snapshot.concurrent) == (1, {"/a": 1}, 1)
