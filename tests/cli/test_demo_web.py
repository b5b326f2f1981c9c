"""The demo's own loopback web (linkfix/cli/demo): each host answers as its real counterpart does,
in the wire formats linkfix's clients read."""

from __future__ import annotations

import json
import re

import aiohttp
import pytest

from linkfix.cli.demo.acme import acme_web
from linkfix.cli.demo.archive import Capture, cdx_rows, urlkey
from linkfix.recover.providers.searxng import parse_searxng
from linkfix.recover.providers.site import parse_robots_sitemaps, parse_sitemap
from linkfix.recover.providers.wayback import parse_availability, parse_cdx_json

TOOLS_PAGE = "https://tools.acme.test/legacy/migrate-v1.html"
TOOLS_TS = "20200820100000"


@pytest.fixture
async def get():
    """get(url, method="GET") -> (status, headers, text), sent to the started demo web by its
    real https:// URL (rewritten to the loopback server as linkfix's remap rules do)."""
    async with acme_web() as web, aiohttp.ClientSession(connector=aiohttp.TCPConnector(resolver=web.resolver)) as session:

        async def fetch(url: str, method: str = "GET"):
            local = re.sub(r"^https://([^/]+)/", rf"http://\1:{web.port}/", url)
            async with session.request(method, local, allow_redirects=False) as response:
                return response.status, response.headers, await response.text()

        yield fetch


async def test_each_host_answers_like_its_kind_of_site(get):
    status, headers, text = await get("https://docs.acme.test/robots.txt")
    sitemaps = parse_robots_sitemaps(text)
    assert status == 200 and sitemaps == ["https://docs.acme.test/sitemap.xml"]
    pages, children = parse_sitemap((await get(sitemaps[0]))[2])
    assert "https://docs.acme.test/guide/configure/settings.html" in pages and children == []
    assert not any("quickstart.html" in page for page in pages)  # redirects are not pages
    status, headers, _ = await get("https://docs.acme.test/quickstart.html")
    assert (status, headers["Location"]) == (301, "/start/quickstart.html")
    status, headers, _ = await get("https://docs.acme.test/start/quickstart.html")
    assert (status, headers["Location"]) == (301, "/start/quickstart/")
    assert (await get("https://docs.acme.test/v1/api/tokens.html"))[0] == 404
    assert (await get(TOOLS_PAGE))[0] == 410
    assert (await get("https://blog.acme.test/robots.txt"))[0] == 404  # the old blog is gone


async def test_soft_404_and_challenge_hosts(get):
    status, _, text = await get("https://wiki.acme.test/No_Such_Page")
    assert status == 200 and "Page not found" in text and "/No_Such_Page" in text
    for method in ("GET", "HEAD"):
        status, headers, text = await get("https://forum.acme.test/t/anything/1", method)
        assert status == 403 and headers["cf-mitigated"] == "challenge" and headers["Server"] == "cloudflare"
        assert ("Just a moment..." in text) == (method == "GET")  # no body on HEAD


async def test_unknown_names_stay_unresolved_and_unknown_hosts_are_refused():
    async with acme_web() as web:
        assert (await web.resolver.resolve("docs.acme.test"))[0]["host"] == "127.0.0.1"
        with pytest.raises(OSError):
            await web.resolver.resolve("example.com")
        # the system resolver: 127.0.0.1 itself
        async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{web.port}/") as response:
            assert response.status == 421
        assert web.canonical(f"see http://docs.acme.test:{web.port}/x and http://docs.acme.test:{web.port}1/") == (
            f"see https://docs.acme.test/x and http://docs.acme.test:{web.port}1/")


async def test_wayback_cdx_as_linkfix_asks_it(get):
    query = (f"https://web.archive.org/cdx/search/cdx?url={TOOLS_PAGE}&output=json"
             "&filter=statuscode:200&filter=mimetype:text/html&to={to}&limit=-1")
    status, headers, text = await get(query.format(to="20240101"))
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    rows = parse_cdx_json(text)
    assert [(r["urlkey"], r["timestamp"], r["original"], r["statuscode"]) for r in rows] == [
        ("test,acme,tools)/legacy/migrate-v1.html", TOOLS_TS, TOOLS_PAGE, "200")]
    assert json.loads((await get(query.format(to="2019")))[2]) == []  # captured after the link's time
    listing = ("https://web.archive.org/cdx/search/cdx?url=docs.acme.test/&matchType=prefix"
               "&output=json&fl=original&collapse=urlkey")
    header, *originals = json.loads((await get(listing))[2])
    assert header == ["original"] and len(originals) == 4 and all(o[0].startswith("https://docs.acme.test/") for o in originals)
    assert (await get("https://web.archive.org/cdx/search/cdx?url=x&filter=nosuchfield:1"))[0] == 400


async def test_wayback_availability_and_captures(get):
    available = f"https://web.archive.org/wayback/available?url={TOOLS_PAGE}&timestamp=2021"
    closest = parse_availability((await get(available))[2])
    assert closest == {"status": "200", "available": "True", "timestamp": TOOLS_TS,
                       "url": f"http://web.archive.org/web/{TOOLS_TS}/{TOOLS_PAGE}"}
    nothing = json.loads((await get("https://web.archive.org/wayback/available?url=https://nowhere.test/"))[2])
    assert nothing == {"url": "https://nowhere.test/", "archived_snapshots": {}}

    status, headers, raw = await get(f"https://web.archive.org/web/{TOOLS_TS}id_/{TOOLS_PAGE}")
    assert status == 200 and "acme-migrate" in raw and "WAYBACK TOOLBAR" not in raw and "Memento-Datetime" in headers
    assert "WAYBACK TOOLBAR" in (await get(f"https://web.archive.org/web/{TOOLS_TS}/{TOOLS_PAGE}"))[2]
    status, headers, _ = await get(f"https://web.archive.org/web/2023id_/{TOOLS_PAGE}")
    assert (status, headers["Location"]) == (302, f"https://web.archive.org/web/{TOOLS_TS}id_/{TOOLS_PAGE}")
    assert (await get(f"https://web.archive.org/web/{TOOLS_TS}id_/https://nowhere.test/"))[0] == 404


def test_cdx_rows_order_limit_negation_and_collapse():
    captures = [Capture(url="https://a.test/p", timestamp=ts, body=ts) for ts in ("20200101000000", "20190101000000")]
    captures.append(Capture(url="https://www.a.test/p", timestamp="20210101000000", body="x", status=404))
    names, rows = cdx_rows(captures, [("url", "a.test/p"), ("fl", "timestamp,statuscode")])
    assert names == ["timestamp", "statuscode"]
    assert rows == [["20190101000000", "200"], ["20200101000000", "200"], ["20210101000000", "404"]]  # www. shares the key
    assert cdx_rows(captures, [("url", "a.test/p"), ("fl", "timestamp"), ("limit", "-1")])[1] == [["20210101000000"]]
    assert cdx_rows(captures, [("url", "a.test/p"), ("fl", "timestamp"), ("filter", "!statuscode:200")])[1] == [["20210101000000"]]
    assert cdx_rows(captures, [("url", "a.test/*"), ("fl", "urlkey"), ("collapse", "urlkey")])[1] == [["test,a)/p"]]
    with pytest.raises(ValueError):
        cdx_rows(captures, [("url", "a.test/p"), ("to", "yesterday")])
    assert urlkey("https://www.Acme.test/A/b?x=1") == "test,acme)/a/b?x=1"


async def test_searxng_json(get):
    status, _, text = await get("https://searx.example.test/search?q=caching+explained&format=json")
    payload = json.loads(text)
    assert status == 200 and {"query", "number_of_results", "results", "answers", "unresponsive_engines"} <= set(payload)
    hits = parse_searxng(text, "caching explained", 10)
    assert hits[0].url == "https://engineering.acme.test/posts/caching-explained/" and hits[0].title == "Caching explained"
    assert payload["results"][0]["parsed_url"][1] == "engineering.acme.test"
    assert (await get("https://searx.example.test/search?format=json"))[0] == 400
    assert (await get("https://searx.example.test/search?q=caching"))[0] == 403  # only JSON is enabled


def test_the_installed_packages_never_import_the_test_web():
    """The simulated web in fixtures/ is a test asset, left out of the wheel: linkfix and the
    mkdocs plugin must run without it (the fixtures may import linkfix, not the other way)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for source in [*(root / "linkfix").rglob("*.py"), *(root / "plugins").rglob("*.py")]:
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n.split(".")[0] == "linkfix_simweb" for n in names), source
