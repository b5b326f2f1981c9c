"""`check URL --crawl` against the simulated web: scope, robots.txt, sitemaps, limits, reports."""

from __future__ import annotations

import pytest

from linkfix.check.crawl import CrawlLimits, CrawlScope, parse_sitemap
from linkfix.config import Config
from linkfix.errors import InputError
from linkfix.model import Status
from linkfix.pipeline.crawl import crawl_check
from linkfix.urls import page_key

HOST = "docs.example.test"
OTHER = "other.example.test"


def html(title: str, body: str) -> str:
    return f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{body}</body></html>"


def build_site(web, *, robots: str | None = None) -> None:
    site = web.add_site(HOST)
    other = web.add_site(OTHER)
    other.page("/fine.html", html("Fine", "<p>fine</p>"))
    base = f"http://{HOST}:{web.port}"
    site.page("/docs/", html("Home", (
        '<a href="guide.html">Guide</a> <a href="guide.html#install">Install</a> '
        '<a href="guide.html#nope">Nope</a> <a href="missing.html">Missing</a> '
        '<a href="private/secret.html">Secret</a> <a href="/outside.html">Outside</a> '
        f'<a href="http://{OTHER}:{web.port}/fine.html">Fine</a> '
        f'<a href="http://{OTHER}:{web.port}/gone.html">Gone</a> '
        '<img src="logo.png"> <a href="d1.html">Deep</a> <a href="mailto:a@b.test">Mail</a>'
    )))
    site.page("/docs/guide.html", html("Guide", '<h2 id="install">Install</h2><a href="./#top">Home</a>'))
    site.page("/docs/logo.png", b"\x89PNG....", content_type="image/png")
    site.page("/docs/private/secret.html", html("Secret", '<a href="never-crawled.html">x</a>'))
    site.page("/outside.html", html("Outside", '<a href="/not-followed.html">x</a>'))
    site.page("/docs/d1.html", html("D1", '<a href="d2.html">d2</a>'))
    site.page("/docs/d2.html", html("D2", '<a href="d3.html">d3</a>'))
    site.page("/docs/d3.html", html("D3", '<a href="d3-broken.html">broken</a>'))
    site.page("/docs/orphan.html", html("Orphan", '<a href="orphan-broken.html">broken</a>'))
    site.page("/sitemap.xml", (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{base}/sitemap-docs.xml</loc></sitemap></sitemapindex>"
    ), content_type="application/xml")
    site.page("/sitemap-docs.xml", (
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{base}/docs/orphan.html</loc></url><url><loc>{base}/elsewhere.html</loc></url></urlset>"
    ), content_type="application/xml")
    if robots is None:
        robots = f"User-agent: *\nDisallow: /docs/private/\n\nSitemap: {base}/sitemap.xml\n"
    site.page("/robots.txt", robots, content_type="text/plain")


def config() -> Config:
    return Config(allow_private=True, cache=False, max_retries=0, timeout=5.0)


def statuses(report) -> dict[str, Status]:
    return {r.resolved.split(":", 2)[-1].split("/", 1)[-1]: r.result.status for r in report.results}


async def test_crawl_checks_every_link_of_the_site(simweb, caplog):
    build_site(simweb)
    start = simweb.url(HOST, "/docs/")
    report = await crawl_check(start, config(), CrawlLimits(max_depth=5, max_pages=100), resolver=simweb.resolver)
    found = statuses(report)
    assert found["docs/guide.html"] is Status.OK
    assert found["docs/guide.html#install"] is Status.OK
    assert found["docs/guide.html#nope"] is Status.BROKEN
    assert found["docs/missing.html"] is Status.BROKEN
    assert found["fine.html"] is Status.OK
    assert found["gone.html"] is Status.BROKEN
    assert found["docs/logo.png"] is Status.OK
    assert found["outside.html"] is Status.OK  # checked, though outside the crawl prefix
    assert found["docs/private/secret.html"] is Status.OK  # robots stop the crawl, not the check
    assert found["docs/d3-broken.html"] is Status.BROKEN  # found three links deep
    assert found["docs/orphan-broken.html"] is Status.BROKEN  # seeded from the sitemap index
    assert any(r.result.status is Status.UNSUPPORTED for r in report.results)  # mailto:
    assert "not-followed.html" not in " ".join(found)  # the page outside the prefix was not crawled
    assert "never-crawled.html" not in " ".join(found)  # robots.txt was obeyed
    assert report.root == start
    assert report.files == 6  # /docs/, guide, d1, d2, d3, orphan (not the disallowed secret page)
    pages = {r.link.page.path for r in report.results}
    assert start in pages and simweb.url(HOST, "/docs/orphan.html") in pages
    stats = simweb.stats(HOST)
    assert stats.paths["/docs/guide.html"] == 1  # crawled once, not requested again to check it
    assert stats.paths["/docs/private/secret.html"] == 1  # checked, never crawled (one request)
    assert stats.paths["/robots.txt"] == 1  # read once, for both the rules and Crawl-delay
    # pages robots.txt kept out of the crawl are said, not only counted: their links went unchecked
    assert any(r.levelname == "WARNING" and "1 page(s) not crawled: robots.txt disallows them" in r.getMessage()
               for r in caplog.records)


async def test_depth_and_page_limits(simweb):
    build_site(simweb)
    start = simweb.url(HOST, "/docs/")
    shallow = await crawl_check(start, config(), CrawlLimits(max_depth=1, max_pages=100), resolver=simweb.resolver)
    crawled = {r.link.page.path.rsplit("/", 1)[-1] for r in shallow.results}
    assert "d1.html" in crawled and "d2.html" not in crawled
    simweb.reset_stats()
    few = await crawl_check(start, config(), CrawlLimits(max_depth=5, max_pages=2), resolver=simweb.resolver)
    assert few.files == 2


async def test_robots_disallow_all_is_a_clear_error_and_nothing_is_read(simweb):
    build_site(simweb, robots="User-agent: linkfix\nDisallow: /\n")
    with pytest.raises(InputError, match=r"robots\.txt disallows it"):
        await crawl_check(simweb.url(HOST, "/docs/"), config(), CrawlLimits(), resolver=simweb.resolver)
    assert simweb.stats(HOST).paths["/docs/"] == 0


async def test_dead_start_page_is_a_clear_error(simweb):
    build_site(simweb)
    with pytest.raises(InputError, match="HTTP 404"):
        await crawl_check(simweb.url(HOST, "/nowhere/"), config(), CrawlLimits(), resolver=simweb.resolver)


async def test_whole_host_with_prefix_root(simweb):
    build_site(simweb)
    report = await crawl_check(simweb.url(HOST, "/docs/"), config(), CrawlLimits(prefix="/"), resolver=simweb.resolver)
    pages = {r.link.page.path.rsplit("/", 1)[-1] for r in report.results}
    assert "outside.html" in pages


async def test_start_must_be_a_url():
    with pytest.raises(InputError, match="one http"):
        await crawl_check("docs/", config(), CrawlLimits())


def test_scope_is_host_and_prefix():
    scope = CrawlScope("https://Docs.Example.com/en/latest/index.html", "")
    assert "https://docs.example.com/en/latest/x/" in scope
    assert "http://docs.example.com/en/latest/" in scope  # scheme does not matter
    assert "https://docs.example.com/en/latest" in scope
    assert "https://docs.example.com/en/" not in scope
    assert "https://docs.example.com:8443/en/latest/x" not in scope
    assert "https://evil.example.com/en/latest/x" not in scope
    assert "mailto:x@docs.example.com" not in scope
    assert page_key("HTTPS://Docs.Example.com?q=1#frag") == "https://docs.example.com/?q=1"


def test_parse_sitemap_forms_and_garbage():
    urlset = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> https://a.test/x </loc></url></urlset>'
    assert parse_sitemap(urlset) == (["https://a.test/x"], [])
    index = '<sitemapindex><sitemap><loc>https://a.test/s1.xml</loc></sitemap></sitemapindex>'
    assert parse_sitemap(index) == ([], ["https://a.test/s1.xml"])
    assert parse_sitemap("<html>not xml") == ([], [])
    bomb = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><urlset><url><loc>&b;</loc></url></urlset>'
    pages, _ = parse_sitemap(bomb)
    assert all("aaaa" not in p for p in pages)  # entities are never expanded
    assert parse_sitemap("") == ([], [])


async def test_crawl_delay_raises_the_host_interval_only():
    from protego import Protego

    from linkfix.check.crawl import obey_crawl_delay
    from linkfix.check.http import HttpChecker
    from linkfix.store.cache import Cache

    robots = Protego.parse("User-agent: *\nCrawl-delay: 3\n")
    async with HttpChecker(Config(), Cache(None)) as client:
        client.hosts.host_for("https://docs.example.com/")  # a host already met (robots.txt) is slowed down too
        obey_crawl_delay(client, "https://docs.example.com/", robots)
        assert client.hosts.host_for("https://docs.example.com/").interval == 3.0
        assert client.hosts.host_for("https://docs.example.com:8443/").interval == 3.0  # every port of the host
        assert client.hosts.host_for("https://other.example.com/").interval == 0.0
    already_slow = Config(hosts={"docs.example.com": {"request_interval": 5}})
    async with HttpChecker(already_slow, Cache(None)) as client:
        obey_crawl_delay(client, "https://docs.example.com/", robots)
        assert client.hosts.host_for("https://docs.example.com/").interval == 5.0
    async with HttpChecker(Config(), Cache(None)) as client:
        obey_crawl_delay(client, "https://docs.example.com/", None)
        assert client.hosts.host_for("https://docs.example.com/").interval == 0.0


async def test_robots_server_error_means_disallow_all(simweb):
    build_site(simweb)
    simweb.sites[HOST].page("/robots.txt", "busy", status=500, content_type="text/plain")
    with pytest.raises(InputError, match=r"robots\.txt disallows it"):
        await crawl_check(simweb.url(HOST, "/docs/"), config(), CrawlLimits(), resolver=simweb.resolver)
    assert simweb.stats(HOST).paths["/docs/"] == 0


async def test_cli_crawl_writes_the_usual_reports(tmp_path):
    import asyncio
    import json

    from linkfix.cli import main
    from linkfix_simweb import SimWeb

    web = SimWeb()
    site = web.add_site("127.0.0.1")  # a literal IP: the CLI uses the system resolver
    site.page("/docs/", html("Home", '<a href="a.html">A</a> <a href="gone.html">Gone</a>'))
    site.page("/docs/a.html", html("A", '<a href="./">Home</a>'))
    out = tmp_path / "crawl.json"
    async with web:
        start = f"http://127.0.0.1:{web.port}/docs/"
        argv = ["check", start, "--crawl", "--crawl-depth", "2", "--allow-private", "--no-cache",
                "--max-retries", "0", "-f", "json", "-o", str(out), "-q"]
        code = await asyncio.to_thread(main, argv)
    assert code == 1
    data = json.loads(out.read_text())
    assert {(link["url"], link["status"]) for link in data["links"]} == {
        ("a.html", "ok"), ("gone.html", "broken"), ("./", "ok")}
    assert await asyncio.to_thread(main, ["check", "a", "b", "--crawl"]) == 2  # one URL only
    assert await asyncio.to_thread(main, ["check", "docs/", "--crawl"]) == 2  # a URL


# -- what one page's links may cost (issue 27, finding 14) -------------------------------------------------
def build_link_farm(web, links: int) -> None:
    """A start page with `links` distinct links to another host (each a 404 there)."""
    site = web.add_site(HOST)
    other = web.add_site(OTHER)
    site.page("/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
    farm = " ".join(f'<a href="http://{OTHER}:{web.port}/p/{i}.html">{i}</a>' for i in range(links))
    site.page("/docs/", html("Farm", farm))
    other.page("/robots.txt", "", content_type="text/plain")


async def test_the_links_taken_from_one_page_are_capped_and_the_report_says_so(simweb):
    build_link_farm(simweb, 3000)
    report = await crawl_check(simweb.url(HOST, "/docs/"), config(), CrawlLimits(max_links=200), resolver=simweb.resolver)
    assert len(report.results) == 200
    assert sum(simweb.stats(OTHER).paths[f"/p/{i}.html"] for i in range(200, 3000)) == 0
    assert any("only its first 200 links are followed and checked (--crawl-links)" in e for e in report.errors), report.errors


async def test_the_runs_requests_are_capped_and_what_is_left_is_reported_not_checked(simweb):
    build_link_farm(simweb, 400)
    report = await crawl_check(simweb.url(HOST, "/docs/"), config(), CrawlLimits(max_requests=120), resolver=simweb.resolver)
    sent = simweb.stats(HOST).requests + simweb.stats(OTHER).requests
    assert sent == 120  # robots.txt, sitemap, the page, then the links' own, until the budget is spent
    statuses = [(r.result.status, r.result.reason) for r in report.results]
    assert len(statuses) == 400 and (Status.BROKEN, "404") in statuses  # the first links were checked
    unchecked = statuses.count((Status.EXCLUDED, "request-budget"))
    assert unchecked > 250  # each of the others got no request, and says why
    assert any("request budget (--crawl-requests 120) was spent" in e and f"{unchecked} link(s) not checked" in e
               for e in report.errors), report.errors


def test_cli_crawl_limits_must_be_positive():
    from linkfix.cli import main

    assert main(["check", "http://docs.example.test/", "--crawl", "--crawl-links", "0"]) == 2
    assert main(["check", "http://docs.example.test/", "--crawl", "--crawl-requests", "0"]) == 2


async def test_a_crawled_page_s_ignore_attributes_and_comments_are_honoured(simweb):
    """What a built site on disk silences (`data-proofer-ignore`, `data-linkfix-ignore`, an ignore
    comment) is silenced on the same page fetched by --crawl too: the crawl dropped them."""
    site = simweb.add_site(HOST)
    site.page("/docs/", html("Home", (
        '<a href="gone-a.html">a</a>\n<a data-proofer-ignore href="gone-b.html">b</a>\n'
        '<div data-linkfix-ignore><p><a href="gone-c.html">c</a></p></div>\n'
        '<!-- linkfix-disable-next-line -->\n<a href="gone-d.html">d</a>\n')))
    site.page("/robots.txt", "User-agent: *\n", content_type="text/plain")
    report = await crawl_check(simweb.url(HOST, "/docs/"), config(), CrawlLimits(), resolver=simweb.resolver)
    found = statuses(report)
    assert found["docs/gone-a.html"] is Status.BROKEN
    assert [found[f"docs/gone-{name}.html"] for name in "bcd"] == [Status.EXCLUDED] * 3
