"""Each provider against recorded responses in the providers' real wire formats."""

import time
from datetime import UTC, datetime

import msgspec
import pytest

from linkfix.config import ArchiveSettings, SearchSettings
from linkfix.recover.providers import ARCHIVES, SEARCHES, Budget, Remote
from linkfix.recover.providers.base import Hit
from linkfix.recover.providers.limits import Deferred, RateLimiter
from linkfix.recover.providers.memento import Memento, mementos
from linkfix.recover.providers.site import (
    Site,
    SiteIndex,
    as_dirhtml,
    parent_dirs,
    parse_mkdocs_index,
    parse_sitemap,
    parse_sphinx_index,
    sphinx_is_dirhtml,
)
from linkfix.recover.providers.wayback import Wayback, parse_cdx_json

from .conftest import FakeClient, data

WB = "https://web.archive.org"
DEAD = "https://example-docs.org/guide/install.html"


def budget(seconds: float = 30) -> Budget:
    return Budget(deadline=time.monotonic() + seconds, queries=20, fetches=20)


def typed(name: str, **settings):
    """A provider's typed settings, as a config gives them; keys it does not take are left out
    (so that one call serves every provider)."""
    union = ArchiveSettings | SearchSettings
    takes = {f.name for s in union.__args__ if s.__struct_config__.tag == name for f in msgspec.structs.fields(s)}
    return msgspec.convert({"provider": name, **{k: v for k, v in settings.items() if k in takes}}, union)


def wayback(client, cache=None, **settings):
    return Wayback(typed("wayback", url=WB, requests_per_minute=0, **settings), Remote(client, cache))


async def test_wayback_last_capture_is_the_latest_at_or_before_the_link_time():
    client = FakeClient({f"{WB}/cdx/search/cdx": (200, data("wayback_cdx.json"))})
    capture = await wayback(client).last_capture(DEAD, datetime(2022, 3, 1, tzinfo=UTC), budget())
    assert capture.timestamp == "20220117193002"
    assert capture.raw_url == f"{WB}/web/20220117193002id_/https://example-docs.org/guide/install.html"
    assert capture.iso_datetime == "2022-01-17T19:30:02Z"
    sent = client.sent[0]
    for part in ("output=json", "filter=statuscode:200", "filter=mimetype:text/html", "to=20220301000000", "limit=-1"):
        assert part in sent


async def test_wayback_empty_cdx_means_no_copy_without_fallback():
    client = FakeClient({f"{WB}/cdx/search/cdx": (200, data("wayback_cdx_empty.json"))})
    assert await wayback(client).last_capture(DEAD, datetime(2022, 3, 1), budget()) is None
    assert len(client.sent) == 1


async def test_wayback_falls_back_to_availability_when_cdx_fails():
    client = FakeClient({
        f"{WB}/cdx/search/cdx": (503, "busy"),
        f"{WB}/wayback/available": (200, data("wayback_available.json")),
    })
    capture = await wayback(client).last_capture(DEAD, datetime(2023, 1, 1), budget())
    assert capture.timestamp == "20210602084411"
    # a closest capture *after* the link was written is not what the author linked to
    assert await wayback(FakeClient({
        f"{WB}/cdx/search/cdx": (503, "busy"),
        f"{WB}/wayback/available": (200, data("wayback_available.json")),
    })).last_capture(DEAD, datetime(2020, 1, 1), budget()) is None
    none = FakeClient({f"{WB}/cdx/search/cdx": (503, ""), f"{WB}/wayback/available": (200, data("wayback_available_none.json"))})
    assert await wayback(none).last_capture(DEAD, datetime(2023, 1, 1), budget()) is None


async def test_wayback_raw_capture_and_host_listing(cache):
    client = FakeClient({
        f"{WB}/web/20220117193002id_/": (200, data("capture.html")),
        f"{WB}/cdx/search/cdx": (200, data("wayback_cdx_host.json")),
    })
    provider = wayback(client, cache)
    # rows without a timestamp (here: a host listing) are no capture
    assert await provider.last_capture(DEAD, datetime(2023, 1, 1), budget()) is None
    text = await provider.capture_text(provider._capture(DEAD, "20220117193002"), budget())
    assert "Installing Frobnicator" in text
    urls = await provider.host_urls(DEAD, budget())
    assert "https://example-docs.org/setup/installing.html" in urls
    assert "matchType=prefix" in client.sent[-1]
    before = len(client.sent)
    assert await provider.host_urls(DEAD, budget()) == urls
    assert len(client.sent) == before  # answered from the cache


async def test_wayback_429_backs_off_and_defers():
    client = FakeClient({f"{WB}/cdx/search/cdx": (429, "slow down", {"Retry-After": "120"})})
    provider = wayback(client)
    # A 429 is not "no capture": the lookup is deferred, with the reason.
    with pytest.raises(Deferred) as raised:
        await provider.last_capture(DEAD, datetime(2023, 1, 1), budget())
    assert raised.value.reason == "retry-after"
    assert len(client.sent) == 1  # not asked again within the 120 s it asked for
    # paused for 120 s: a link with a 30 s budget does not even try
    with pytest.raises(Deferred):
        await provider.last_capture(DEAD, datetime(2023, 1, 1), budget())
    assert len(client.sent) == 1


async def test_rate_limiter_counts_a_sliding_minute():
    now = [0.0]
    limiter = RateLimiter(2, clock=lambda: now[0])
    assert await limiter.acquire(None) and await limiter.acquire(None)
    assert limiter.wait_needed() == pytest.approx(60.0)
    assert not await limiter.acquire(budget(5))  # would wait past the budget: refuse
    now[0] = 61.0
    assert limiter.wait_needed() == 0.0


def test_cdx_parser_survives_garbage():
    assert parse_cdx_json("not json") == []
    assert parse_cdx_json('{"a": 1}') == []
    assert parse_cdx_json('[["a","b"],["1"],["2","3"]]') == [{"a": "2", "b": "3"}]


async def test_memento_picks_the_last_memento_before_the_time():
    assert len(mementos(data("timemap.link"))) == 3
    client = FakeClient({"http://127.0.0.1:1208/timemap/link/": (200, data("timemap.link"))})
    provider = Memento(typed("memento", url="http://127.0.0.1:1208/timemap/link/"), Remote(client))
    capture = await provider.last_capture(DEAD, datetime(2021, 1, 1, tzinfo=UTC), budget())
    assert capture.url == "https://archive.example.net/wayback/20200901120000/http://example-docs.org/guide/install.html"
    assert capture.raw_url == "https://archive.example.net/wayback/20200901120000id_/http://example-docs.org/guide/install.html"
    assert await provider.last_capture(DEAD, datetime(2018, 1, 1, tzinfo=UTC), budget()) is None


@pytest.mark.parametrize("name,file,base", [
    ("searxng", "searxng.json", "http://127.0.0.1:8888"),
    ("brave", "brave.json", "https://api.search.brave.com"),
    ("marginalia", "marginalia.json", "https://api.marginalia.nu"),
])
async def test_search_providers_parse_their_recorded_answers(name, file, base, monkeypatch):
    monkeypatch.setenv("TEST_BRAVE_KEY", "k")
    client = FakeClient({base: (200, data(file))})
    provider = SEARCHES[name](typed(name, url=base, api_key_env="TEST_BRAVE_KEY"), Remote(client))
    hits = await provider.search("installing frobnicator", near=DEAD, limit=10, budget=budget())
    assert [h.url for h in hits] == ["https://example-docs.org/setup/installing.html", "https://blog.example.net/frobnicator-review"]
    assert hits[0].title.startswith("Installing Frobnicator")
    assert hits[0].snippet and hits[0].query == "installing frobnicator" and hits[1].rank == 1
    assert "installing" in client.sent[0]
    assert len(await provider.search("x", near=DEAD, limit=1, budget=budget())) == 1


async def test_brave_without_key_is_skipped_not_fatal(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    client = FakeClient()
    provider = SEARCHES["brave"](typed("brave", api_key_env="NO_SUCH_KEY_VAR"), Remote(client))
    assert await provider.search("q", near=DEAD, limit=10, budget=budget()) == []
    assert client.sent == []


@pytest.mark.parametrize("name", sorted(SEARCHES))
async def test_every_search_provider_degrades_on_failure(name, monkeypatch):
    monkeypatch.setenv("TEST_BRAVE_KEY", "k")
    client = FakeClient()
    client.fail = {"http"}
    provider = SEARCHES[name](typed(name, url="http://127.0.0.1:9", api_key_env="TEST_BRAVE_KEY"), Remote(client))
    assert await provider.search("query", near=DEAD, limit=10, budget=budget()) == []


@pytest.mark.parametrize("name", sorted(ARCHIVES))
async def test_every_archive_provider_degrades_on_failure(name):
    client = FakeClient()
    client.fail = {"http"}
    provider = ARCHIVES[name](typed(name, url="http://127.0.0.1:9/", requests_per_minute=0), Remote(client))
    # No answer is not "no capture": the lookup is deferred (a later run asks again).
    with pytest.raises(Deferred) as raised:
        await provider.last_capture(DEAD, datetime(2023, 1, 1), budget())
    assert raised.value.reason in ("error", "blocked")
    assert await provider.host_urls(DEAD, budget()) == []


def test_site_index_parsers():
    pages, children = parse_sitemap(data("sitemap_index.xml"))
    assert pages == [] and children == ["https://example-docs.org/sitemap-pages.xml"]
    pages, children = parse_sitemap(data("sitemap.xml"))
    assert "https://example-docs.org/reference/cli.html" in pages and children == []
    assert parse_sitemap("<not xml") == ([], [])
    assert parse_sitemap('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><urlset><url><loc>&e;</loc></url></urlset>') == ([], [])
    mk = {h.url: h for h in parse_mkdocs_index(data("search_index.json"), "https://example-docs.org/")}
    assert mk["https://example-docs.org/setup/installing/"].title == "Installing Frobnicator"
    assert "libfrob" in mk["https://example-docs.org/setup/installing/"].text  # section merged in
    assert mk["https://example-docs.org/setup/installing/"].headings == ("Requirements",)  # ... and its title kept
    sx = {h.url: h for h in parse_sphinx_index(data("searchindex.js"), "https://example-docs.org/docs/")}
    assert sx["https://example-docs.org/docs/installing.html"].title == "Installing Frobnicator"
    assert "libfrob" in sx["https://example-docs.org/docs/installing.html"].stems.split()  # index terms: stems, kept apart
    # alltitles: a section's title is a heading of its page; a page's own title (anchor null) is not
    assert sx["https://example-docs.org/docs/installing.html"].headings == ("Build from source",)
    assert sx["https://example-docs.org/docs/cli.html"].headings == ()
    assert parse_sphinx_index("alert(1)", "https://x/") == []
    dirs = {h.url for h in parse_sphinx_index(data("searchindex.js"), "https://example-docs.org/docs/", dirhtml=True)}
    assert dirs == {"https://example-docs.org/docs/cli/", "https://example-docs.org/docs/installing/"}


def test_a_sphinx_index_names_pages_as_the_site_serves_them():
    sphinx = parse_sphinx_index(data("searchindex.js"), "https://d.test/")
    listed = [Hit(url="https://d.test/installing/")]  # the sitemap knows directory URLs: a dirhtml build
    assert sphinx_is_dirhtml(sphinx, listed, "https://d.test/old.html")
    assert not sphinx_is_dirhtml(sphinx, [Hit(url="https://d.test/cli.html")], "https://d.test/old/")
    # no other source: the dead URL's own form decides
    assert sphinx_is_dirhtml(sphinx, [], "https://d.test/old/page/")
    assert not sphinx_is_dirhtml(sphinx, [], "https://d.test/old/page.html")
    assert as_dirhtml("https://d.test/a/index.html") == "https://d.test/a/"


def test_site_search_matches_word_forms_and_sphinx_stems():
    index = SiteIndex([
        *parse_sphinx_index(data("searchindex.js"), "https://d.test/"),
        Hit(url="https://d.test/plugins/", title="Plugins", text="Writing plugins for frob"),
    ])
    # "installation" is "instal" in the Sphinx index (a stem), "plugin" is "plugins" in the text
    assert index.search("installation", 3)[0][1].url == "https://d.test/installing.html"
    assert index.search("plugin", 3)[0][1].url == "https://d.test/plugins/"


def test_parent_dirs():
    assert parent_dirs("https://h.test/a/b/c.html") == ["https://h.test/", "https://h.test/a/", "https://h.test/a/b/"]
    assert parent_dirs("https://h.test/") == ["https://h.test/"]


async def test_site_provider_gathers_every_same_site_source(cache):
    root = "https://example-docs.org/"
    client = FakeClient({
        root + "robots.txt": (200, data("robots.txt")),
        root + "sitemap_index.xml": (200, data("sitemap_index.xml")),
        root + "sitemap-pages.xml": (200, data("sitemap.xml")),
        root + "search/search_index.json": (200, data("search_index.json")),
        root + "guide/searchindex.js": (200, data("searchindex.js")),
        root + "guide/": (200, '<title>Guide</title><a href="usage.html">Using Frobnicator</a> <a href="https://other.test/x">off-site</a>'),
        f"{WB}/cdx/search/cdx": (200, data("wayback_cdx_host.json")),
    })
    remote = Remote(client, cache)
    site = Site(typed("site"), remote)
    site.archives = [Wayback(typed("wayback", url=WB, requests_per_minute=0), remote)]
    pages = {h.url: h for h in await site.pages(DEAD, budget())}
    assert DEAD not in pages  # the dead page itself is never a candidate
    assert "https://example-docs.org/setup/configuring.html" in pages  # sitemap index -> sitemap
    assert pages["https://example-docs.org/setup/installing/"].title == "Installing Frobnicator"  # mkdocs
    assert "https://example-docs.org/guide/installing.html" in pages  # sphinx index in a parent dir
    assert pages["https://example-docs.org/guide/usage.html"].title == "Using Frobnicator"  # parent page link
    assert "https://example-docs.org/guide/usage.html" in pages and "https://other.test/x" not in pages
    hits = await site.search("install frobnicator pip", near=DEAD, limit=3, budget=budget())
    # both installing pages, the MkDocs one by its text and the Sphinx one by its stems
    assert {h.url for h in hits[:2]} == {"https://example-docs.org/setup/installing/", "https://example-docs.org/guide/installing.html"}
    sent = len(client.sent)
    await site.search("configuration", near=DEAD, limit=3, budget=budget())
    assert len(client.sent) == sent  # queries are answered locally


def test_wayback_respects_the_archive_rate_limit_by_default():
    provider = Wayback(typed("wayback", url=WB), Remote(FakeClient()))
    assert provider.limiter.per_minute == 24  # CDX and the availability API: ~30 allowed, with margin
    assert provider.playback.per_minute == 360  # playback has its own, higher limit


async def test_a_client_without_request_headers_skips_brave_with_a_warning(monkeypatch, caplog):
    class NoHeaders(FakeClient):
        async def fetch(self, url, max_bytes=0):
            return await super().fetch(url, max_bytes)

    monkeypatch.setenv("TEST_BRAVE_KEY", "k")
    provider = SEARCHES["brave"](typed("brave", api_key_env="TEST_BRAVE_KEY"), Remote(NoHeaders()))
    assert await provider.search("q", near=DEAD, limit=10, budget=budget()) == []
    assert any("cannot send request headers" in r.message for r in caplog.records)


async def test_remote_answers_are_cached_as_data_and_a_wrong_shape_is_asked_again(tmp_path):
    from linkfix.store.cache import Cache

    url = "https://search.test/q?x=1"
    client = FakeClient({url: (200, "answer")})
    with Cache(tmp_path / "cache") as cache:
        assert await Remote(client, cache).get(url, namespace="searxng", ttl=60) == (200, url, "answer")
    with Cache(tmp_path / "cache") as cache:
        assert await Remote(client, cache).get(url, namespace="searxng", ttl=60) == (200, url, "answer")
        assert len(client.sent) == 1  # the second run asked the cache
        for wrong in ({"status": 200}, [200, url], ["200", url, "answer"], [200, url, None], "answer"):
            cache.set("searxng", url, wrong, ttl=60)
            assert await Remote(client, cache).get(url, namespace="searxng", ttl=60) == (200, url, "answer")
    assert len(client.sent) == 6  # each wrong shape was a miss, asked again
