"""The real-moves web as served: pages at their real URLs, 404 for old ones, sitemaps, search
indexes, the archive's captures of old and current pages, the search engine, the remap rules."""

from __future__ import annotations

import json
from urllib.parse import quote

import aiohttp
import pytest
from realmoves_sample import MK_BASE, MOVED, SX_BASE, sample_dataset

from linkfix.config import Config, validate
from linkfix_simweb import SimWeb
from linkfix_simweb.realmoves import ArchiveLimits, build_real_web, dataset_dir, load_dataset

SMALL = ArchiveLimits(search_limit=50, search_window=1.0, playback_limit=50, playback_window=1.0, ban_after=1.0, ban_seconds=1.0)


@pytest.fixture
async def real(simweb):
    yield build_real_web(simweb, sample_dataset(), limits=SMALL)


@pytest.fixture
async def get(real, simweb_session):
    async def fetch(url: str) -> tuple[int, str, dict]:
        async with simweb_session.get(real.loopback(url), allow_redirects=False) as response:
            return response.status, await response.text(), dict(response.headers)

    return fetch


async def test_every_current_page_is_served_at_its_url_with_its_title(get):
    status, body, _ = await get(MK_BASE + "guide/install/")
    assert status == 200 and "<title>Installing Example - Example</title>" in body
    assert (await get(MK_BASE + "guide/install/index.html"))[0] == 200
    status, _, headers = await get(MK_BASE + "guide/install")
    assert status == 301 and headers["Location"] == "/latest/guide/install/"
    status, body, _ = await get(SX_BASE + "usage/start.html")
    assert status == 200 and "Getting started with widgets — Widgets documentation" in body
    assert (await get(SX_BASE))[0] == 200  # the Sphinx root is index.html
    status, _, headers = await get("https://sphinx.example.test/")
    assert status == 302 and headers["Location"] == "/en/latest/"


async def test_old_urls_and_unknown_paths_are_404(get):
    for url in (MK_BASE + "setup/", SX_BASE + "old/start.html", SX_BASE + "usage/start/", MK_BASE + "nothing.html"):
        status, body, _ = await get(url)
        assert status == 404, url
        assert "404 - Not found" in body


async def test_sitemap_robots_and_search_indexes_sit_where_the_generators_put_them(get):
    status, robots, _ = await get("https://docs.example.test/robots.txt")
    assert status == 200 and f"Sitemap: {MK_BASE}sitemap.xml" in robots
    status, sitemap, _ = await get(MK_BASE + "sitemap.xml")
    assert status == 200 and f"<loc>{MK_BASE}guide/install/</loc>" in sitemap
    status, index, _ = await get(MK_BASE + "search/search_index.json")
    assert status == 200 and {d["location"] for d in json.loads(index)["docs"]} >= {"", "guide/install/"}
    status, js, _ = await get(SX_BASE + "searchindex.js")
    assert status == 200 and js.startswith("Search.setIndex(")
    assert (await get(MK_BASE + "searchindex.js"))[0] == 404
    assert (await get(SX_BASE + "search/search_index.json"))[0] == 404


async def test_the_archive_holds_the_old_page_before_the_move_and_current_pages_after(get, real):
    cdx = f"{real.archive_url}/cdx/search/cdx?url={quote(MK_BASE + 'setup/', safe='')}&output=json"
    status, body, _ = await get(cdx)
    rows = json.loads(body)
    assert status == 200 and rows[0][:2] == ["urlkey", "timestamp"]
    (ok, gone) = [dict(zip(rows[0], r)) for r in rows[1:]]
    assert ok["statuscode"] == "200" and ok["timestamp"] < MOVED.strftime("%Y%m%d%H%M%S") < gone["timestamp"]
    assert gone["statuscode"] == "404"
    status, page, _ = await get(f"{real.archive_url}/web/{ok['timestamp']}id_/{ok['original']}")
    assert status == 200 and "<title>Setup - Example</title>" in page and "How to set up Example" in page
    live = real.captures.captures_of(MK_BASE + "guide/install/")
    assert len(live) == 1 and live[0].timestamp > MOVED.strftime("%Y%m%d%H%M%S")
    # The Sphinx case's old source was reStructuredText.
    old = real.captures.captures_of(SX_BASE + "old/start.html")[0]
    assert "Widgets used to start here." in old.body


async def test_the_search_engine_finds_current_pages_of_every_site(get, real):
    status, body, _ = await get(f"{real.searxng_url}/search?q=widgets+configured&format=json")
    assert status == 200
    assert json.loads(body)["results"][0]["url"] == SX_BASE + "usage/start.html"


async def test_remap_rules_and_canonical_urls_round_trip(real):
    config = Config(**real.config_overrides())
    validate(config)
    assert config.archive[0].url == "https://web.archive.org"
    assert real.canonical(real.loopback(MK_BASE + "guide/install/")) == MK_BASE + "guide/install/"
    assert real.canonical("http://docs.example.test/latest/") == "http://docs.example.test/latest/"  # not ours: unchanged


@pytest.mark.skipif(dataset_dir() is None, reason="corpus absent: ../shared/recovery-dev (the real-moves set)")
async def test_on_the_real_set_every_new_url_is_live_and_every_old_url_is_404(simweb):
    dataset = load_dataset(dataset_dir())
    chosen = ["tljh.jupyter.org/en/latest", "docs.pola.rs"]
    real = build_real_web(simweb, dataset, sites=chosen, limits=SMALL)
    cases = [c for c in dataset.cases if c.site in chosen]
    assert cases
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(resolver=simweb.resolver)) as session:
        for case in cases:
            async with session.get(real.loopback(case.new_url), allow_redirects=False) as response:
                assert response.status == 200, case.new_url
            async with session.get(real.loopback(case.old_url), allow_redirects=False) as response:
                assert response.status == 404, case.old_url


async def test_a_second_build_reads_the_rendered_pages_from_the_render_cache(simweb, tmp_path, monkeypatch):
    from linkfix_simweb.realmoves import web as web_module

    first = build_real_web(simweb, sample_dataset(), limits=SMALL, render_cache=tmp_path)
    assert list(tmp_path.iterdir())  # one file per site

    def no_rendering(*args, **kwargs):
        raise AssertionError("rendered again")

    monkeypatch.setattr(web_module, "render_source", no_rendering)
    async with SimWeb() as other:
        second = build_real_web(other, sample_dataset(), limits=SMALL, render_cache=tmp_path)
    assert second.search_index.pages == first.search_index.pages  # the same pages, the same text
