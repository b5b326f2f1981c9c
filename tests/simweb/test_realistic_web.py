"""The benchmark's realistic external web: skewed hosts, only linked paths exist, kinds left out."""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlsplit

import pytest

from linkfix_simweb.generate import (
    KINDS,
    ZIPF_EXPONENT,
    external_hosts,
    host_weights,
    linked_paths,
    plan_urls,
)

NORMAL = "docs.example.test"
SOFT = "soft.example.test"
LINKED = "/ok/guide/install-proxy-1.html"
SIBLING = "/ok/guide/linkfix-3fa9c2.html"  # what a soft-404 probe asks for: nobody linked it


def per_host(truth: dict[str, str]) -> Counter:
    return Counter(urlsplit(url).hostname for url in truth)


def test_skewed_plan_is_deterministic_and_gives_the_busiest_host_an_eighth():
    first = plan_urls(10000, 40, seed=1, port=80, spread="skewed")
    assert first == plan_urls(10000, 40, seed=1, port=80, spread="skewed")
    assert first != plan_urls(10000, 40, seed=2, port=80, spread="skewed")
    counts = per_host(first)
    (busiest, most), = counts.most_common(1)
    # ZIPF_EXPONENT is chosen for ~1,260 of 10,000 (issue 3's 7.9 s limit at 8/host, 50 ms)
    assert busiest == "127.0.0.10" and 1150 <= most <= 1370
    assert counts["127.0.0.10"] > counts["127.0.0.11"] > counts["127.0.0.20"] > counts["127.0.0.48"] > 0
    assert len(counts) == 40


def test_even_spread_is_the_default_and_stays_flat():
    even = plan_urls(4000, 40, seed=1, port=80)
    assert even == plan_urls(4000, 40, seed=1, port=80, spread="even", without=())
    assert max(per_host(even).values()) < 2 * 4000 / 40
    assert plan_urls(4000, 40, seed=1, port=80, spread="skewed") != even


def test_host_weights_follow_the_exponent_and_bad_spreads_are_refused():
    weights = host_weights(4, "skewed")
    assert list(weights) == external_hosts(4)
    assert weights["127.0.0.12"] == pytest.approx(3**-ZIPF_EXPONENT)
    assert set(host_weights(4).values()) == {1.0}
    with pytest.raises(ValueError, match="spread"):
        plan_urls(10, 4, seed=1, port=80, spread="zipf")


def test_without_leaves_a_kind_out_and_unknown_kinds_are_refused():
    rate = next(k for k in KINDS if k.name == "429-then-ok")
    with_rate = plan_urls(3000, 16, seed=4, port=80)
    without_rate = plan_urls(3000, 16, seed=4, port=80, without={"429-then-ok"})
    assert any(rate.match(urlsplit(u).path) for u in with_rate)
    assert not any(rate.match(urlsplit(u).path) for u in without_rate)
    assert len(without_rate) == 3000 and "/rate/" not in "".join(without_rate)
    with pytest.raises(ValueError, match="unknown kinds"):
        plan_urls(10, 4, seed=1, port=80, without={"429"})
    with pytest.raises(ValueError, match="every kind"):
        plan_urls(10, 4, seed=1, port=80, without={k.name for k in KINDS})


def test_linked_paths_include_redirect_hops_and_no_fragment():
    urls = [
        "http://127.0.0.10:80/redirect/301/ok/guide/cache-token-7.html",
        "http://127.0.0.10:80/chain/3/api/proxy-module-8",
        "http://127.0.0.11:80/fragments/blog/theme-flag-9.html#install",
        "http://127.0.0.11:80/status/410/docs/index-query-10",
    ]
    assert linked_paths(urls) == {
        "127.0.0.10": {
            "/redirect/301/ok/guide/cache-token-7.html",
            "/ok/guide/cache-token-7.html",
            "/chain/3/api/proxy-module-8",
            "/chain/2/api/proxy-module-8",
            "/chain/1/api/proxy-module-8",
            "/chain/0/api/proxy-module-8",
        },
        "127.0.0.11": {"/fragments/blog/theme-flag-9.html", "/status/410/docs/index-query-10"},
    }


async def status_of(session, url, **kwargs) -> tuple[int, str]:
    async with session.get(url, **kwargs) as response:
        return response.status, await response.text()


async def test_restricted_catalogue_serves_only_linked_paths(simweb, simweb_session):
    normal = simweb.add_site(NORMAL)
    soft = simweb.add_site(SOFT, soft404=True)
    paths = linked_paths([f"http://{NORMAL}/redirect/301{LINKED}", f"http://{NORMAL}/chain/3/guide/a-2"])[NORMAL]
    normal.restrict_catalogue(paths | {LINKED})
    normal.page("/explicit.html", "made by hand")
    soft.restrict_catalogue({LINKED})
    get = simweb_session
    assert (await status_of(get, simweb.url(NORMAL, LINKED)))[0] == 200
    assert (await status_of(get, simweb.url(NORMAL, SIBLING)))[0] == 404
    assert (await status_of(get, simweb.url(NORMAL, "/chain/2/guide/b-3")))[0] == 404
    assert (await status_of(get, simweb.url(NORMAL, "/explicit.html")))[0] == 200
    assert (await status_of(get, simweb.url(NORMAL, "/")))[0] == 200
    status, body = await status_of(get, simweb.url(SOFT, SIBLING))
    assert status == 200 and SIBLING in body  # the soft-404 page names the missing path
    assert (await status_of(get, simweb.url(SOFT, LINKED)))[0] == 200
    async with get.get(simweb.url(NORMAL, f"/redirect/301{LINKED}"), allow_redirects=True) as response:
        assert response.status == 200 and [r.status for r in response.history] == [301]
    async with get.get(simweb.url(NORMAL, "/chain/3/guide/a-2"), allow_redirects=True) as response:
        assert response.status == 200 and len(response.history) == 3
    normal.restrict_catalogue(None)
    assert (await status_of(get, simweb.url(NORMAL, SIBLING)))[0] == 200


async def test_catalogue_is_unrestricted_by_default(simweb, simweb_session):
    simweb.add_site(NORMAL)
    assert (await status_of(simweb_session, simweb.url(NORMAL, SIBLING)))[0] == 200


def test_restrict_catalogue_refuses_relative_paths(simweb):
    with pytest.raises(ValueError):
        simweb.add_site(NORMAL).restrict_catalogue({"ok/x.html"})


async def test_prerendered_pages_are_the_pages_served(simweb, simweb_session):
    from linkfix_simweb import pages
    from linkfix_simweb.generate import prerender_truth

    simweb.add_site(NORMAL)
    urls = [
        f"http://{NORMAL}{LINKED}",
        f"http://{NORMAL}/redirect/301/ok/guide/cache-token-7.html",  # its hop /ok/... is a page
        f"http://{NORMAL}/fragments/blog/theme-flag-9.html#install",
        f"http://{NORMAL}/status/410/docs/index-query-10",  # no page to render
        f"http://{NORMAL}/challenge/docs/index-query-11",
    ]
    assert prerender_truth(simweb, urls) == 3
    status, body = await status_of(simweb_session, simweb.url(NORMAL, LINKED))
    assert status == 200 and body == pages.content_page(NORMAL, LINKED)
    status, body = await status_of(simweb_session, simweb.url(NORMAL, "/fragments/blog/theme-flag-9.html"))
    assert status == 200 and 'id="install"' in body and '<a name="legacy">' in body


def load_benchmark():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "external.py"
    spec = importlib.util.spec_from_file_location("external_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_floors_count_the_busiest_host():
    bench = load_benchmark()
    floor, host, sent = bench.busiest_host_floor({"a": 17, "b": 40, "c": 0}, 8, 0.05)
    assert (host, sent) == ("b", 40) and floor == pytest.approx(5 * 0.05)
    assert bench.busiest_host_floor({"a": 0}, 8, 0.05)[0] == 0
    truth = plan_urls(3000, 16, seed=4, port=80)
    rate = Counter(urlsplit(u).hostname for u in truth if urlsplit(u).path.startswith("/rate/"))
    floor, host, count = bench.polite_floor(truth)
    assert count == max(rate.values()) == rate[host] and floor == count * bench.RETRY_AFTER
    assert bench.polite_floor(plan_urls(3000, 16, seed=4, port=80, without={"429-then-ok"}))[2] == 0
