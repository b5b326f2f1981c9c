"""The Wayback stand-in answers in the real formats: availability JSON, CDX, raw and toolbar replay."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import aiohttp
import pytest

from linkfix_simweb.wayback import Capture, CaptureStore, mount_wayback, pad_timestamp, surt

PAGE = "https://docs.example.test/guide/install.html"
OLD = "<html><head><title>Install (old)</title></head><body><p>old text</p></body></html>"
NEW = "<html><head><title>Install</title></head><body><p>new text</p></body></html>"


def make_store() -> CaptureStore:
    store = CaptureStore()
    store.add(PAGE.replace("https://", "http://"), "20150101000000", OLD)
    store.add(PAGE, "20180601120000", NEW)
    store.add(PAGE, "20200101000000", "<html><body>Not found</body></html>", status=404)
    store.add("https://docs.example.test/guide/old.html", "20170101000000", status=301, location=PAGE)
    store.add("https://docs.example.test/logo.png", "20170101000000", "PNG", mimetype="image/png")
    store.add("https://docs.example.test/api/", "20190101000000", NEW)
    store.add("https://blog.docs.example.test/post.html", "20190101000000", NEW)
    store.add("https://other.test/guide/install.html", "20190101000000", NEW)
    return store


@pytest.fixture
async def archive(simweb):
    store = mount_wayback(simweb, captures=make_store())
    connector = aiohttp.TCPConnector(resolver=simweb.resolver)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def get(path: str, **params: str | list[str]):
            query = urlencode([(k, v) for k, vs in params.items() for v in (vs if isinstance(vs, list) else [vs])])
            url = simweb.url("web.archive.org", path + ("?" + query if query else ""))
            async with session.get(url, allow_redirects=False) as response:
                return response.status, dict(response.headers), await response.text()

        yield get, store


def test_surt_matches_the_real_index_keys():
    assert surt("http://www.archive.org:80/") == "org,archive)/"
    assert surt("https://Docs.Example.test/A/b.html?z=1&a=2") == "test,example,docs)/a/b.html?a=2&z=1"
    assert surt("docs.example.test:8080/x") == "test,example,docs:8080)/x"
    assert surt("https://docs.example.test") == "test,example,docs)/"


def test_timestamps_pad_to_bounds():
    assert pad_timestamp("2019") == "20190101000000"
    assert pad_timestamp("2019", upper=True) == "20191231235959"
    assert pad_timestamp("20190601120000", upper=True) == "20190601120000"


def test_capture_rejects_bad_timestamp():
    with pytest.raises(ValueError):
        Capture(url=PAGE, timestamp="2019")


async def test_availability_closest_200_capture(archive):
    get, _ = archive
    status, headers, text = await get("/wayback/available", url=PAGE, timestamp="20160101")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    payload = json.loads(text)
    assert payload["url"] == PAGE
    assert payload["timestamp"] == "20160101"
    closest = payload["archived_snapshots"]["closest"]
    assert closest == {
        "status": "200",
        "available": True,
        "url": "http://web.archive.org/web/20150101000000/http://docs.example.test/guide/install.html",
        "timestamp": "20150101000000",
    }
    # Without a timestamp: the latest 200 capture, never the later 404 one.
    payload = json.loads((await get("/wayback/available", url=PAGE))[2])
    assert payload["archived_snapshots"]["closest"]["timestamp"] == "20180601120000"
    assert "timestamp" not in payload


async def test_availability_before_and_unknown(archive):
    get, _ = archive
    payload = json.loads((await get("/wayback/available", url=PAGE, timestamp="20171231", closest="after"))[2])
    assert payload["archived_snapshots"]["closest"]["timestamp"] == "20180601120000"
    payload = json.loads((await get("/wayback/available", url="https://nowhere.test/x"))[2])
    assert payload == {"url": "https://nowhere.test/x", "archived_snapshots": {}}


async def test_cdx_json_header_row_and_filters(archive):
    get, _ = archive
    status, _, text = await get(
        "/cdx/search/cdx", url=PAGE, output="json", filter=["statuscode:200", "mimetype:text/html"]
    )
    rows = json.loads(text)
    assert status == 200
    assert rows[0] == ["urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length"]
    assert [r[1] for r in rows[1:]] == ["20150101000000", "20180601120000"]
    assert all(isinstance(v, str) for r in rows for v in r)
    assert rows[1][0] == "test,example,docs)/guide/install.html"
    assert rows[2][6] == str(len(NEW.encode()))
    # Negation keeps only what does not match.
    rows = json.loads((await get("/cdx/search/cdx", url=PAGE, output="json", filter="!statuscode:200"))[2])
    assert [r[4] for r in rows[1:]] == ["404"]
    # Filters are full-match regexes: '20' does not match '200'.
    rows = json.loads((await get("/cdx/search/cdx", url=PAGE, output="json", filter="statuscode:20"))[2])
    assert rows == []
    rows = json.loads((await get("/cdx/search/cdx", url=PAGE, output="json", filter="statuscode:[23]0[01]"))[2])
    assert len(rows) == 3


async def test_cdx_to_from_and_limits(archive):
    get, _ = archive
    def timestamps(text: str) -> list[str]:
        return [r[1] for r in json.loads(text)[1:]]

    base = {"url": PAGE, "output": "json"}
    assert timestamps((await get("/cdx/search/cdx", **base, to="2019"))[2]) == ["20150101000000", "20180601120000"]
    assert timestamps((await get("/cdx/search/cdx", **base, **{"from": "2018"}))[2]) == ["20180601120000", "20200101000000"]
    assert timestamps((await get("/cdx/search/cdx", **base, limit="1"))[2]) == ["20150101000000"]
    assert timestamps((await get("/cdx/search/cdx", **base, limit="-1"))[2]) == ["20200101000000"]
    last_good = await get("/cdx/search/cdx", **base, to="20190101", filter="statuscode:200", limit="-1")
    assert timestamps(last_good[2]) == ["20180601120000"]
    assert timestamps((await get("/cdx/search/cdx", **base, offset="1", limit="1"))[2]) == ["20180601120000"]


async def test_cdx_match_types_and_fields(archive):
    get, _ = archive
    def originals(text: str) -> set[str]:
        return {r[0] for r in json.loads(text)[1:]}

    prefix = await get("/cdx/search/cdx", url="docs.example.test/guide/", matchType="prefix", output="json", fl="original")
    assert json.loads(prefix[2])[0] == ["original"]
    assert originals(prefix[2]) == {"http://docs.example.test/guide/install.html", PAGE, "https://docs.example.test/guide/old.html"}
    wildcard = await get("/cdx/search/cdx", url="docs.example.test/guide/*", output="json", fl="original")
    assert originals(wildcard[2]) == originals(prefix[2])
    host = await get("/cdx/search/cdx", url="https://docs.example.test/", matchType="host", output="json", fl="original")
    assert "https://docs.example.test/logo.png" in originals(host[2])
    assert "https://blog.docs.example.test/post.html" not in originals(host[2])
    domain = await get("/cdx/search/cdx", url="docs.example.test", matchType="domain", output="json", fl="original")
    assert "https://blog.docs.example.test/post.html" in originals(domain[2])
    assert "https://other.test/guide/install.html" not in originals(domain[2])
    collapsed = await get(
        "/cdx/search/cdx", url="docs.example.test/", matchType="prefix", output="json", fl="urlkey", collapse="urlkey"
    )
    keys = [r[0] for r in json.loads(collapsed[2])[1:]]
    assert len(keys) == len(set(keys)) == 4


async def test_cdx_text_output_and_errors(archive):
    get, _ = archive
    status, _, text = await get("/cdx/search/cdx", url=PAGE, fl="timestamp,statuscode")
    assert status == 200
    assert text.splitlines() == ["20150101000000 200", "20180601120000 200", "20200101000000 404"]
    assert (await get("/cdx/search/cdx", url=PAGE, filter="nosuchfield:1"))[0] == 400
    assert (await get("/cdx/search/cdx", url=PAGE, filter="statuscode:("))[0] == 400
    assert (await get("/cdx/search/cdx", url=PAGE, fl="bogus"))[0] == 400
    assert (await get("/cdx/search/cdx"))[0] == 400


async def test_raw_capture_with_id_modifier(archive):
    get, _ = archive
    status, headers, text = await get(f"/web/20180601120000id_/{PAGE}")
    assert status == 200
    assert text == NEW  # raw: no toolbar
    assert headers["Content-Type"].startswith("text/html")
    assert headers["Memento-Datetime"] == "Fri, 01 Jun 2018 12:00:00 GMT"
    assert f"<{PAGE}>; rel=\"original\"" in headers["Link"]
    # The archived 404 replays as a 404.
    assert (await get(f"/web/20200101000000id_/{PAGE}"))[0] == 404


async def test_inexact_timestamp_redirects_to_closest(archive):
    get, _ = archive
    status, headers, _ = await get(f"/web/2016id_/{PAGE}")
    assert status == 302
    assert headers["Location"] == "https://web.archive.org/web/20150101000000id_/http://docs.example.test/guide/install.html"
    status, headers, _ = await get(f"/web/20180701/{PAGE}")
    assert status == 302
    assert headers["Location"].endswith(f"/web/20180601120000/{PAGE}")


async def test_toolbar_replay_and_captured_redirect(archive):
    get, _ = archive
    status, _, text = await get(f"/web/20180601120000/{PAGE}")
    assert status == 200
    assert "BEGIN WAYBACK TOOLBAR INSERT" in text and "new text" in text
    assert text.index("<body>") < text.index("BEGIN WAYBACK TOOLBAR INSERT")
    status, headers, _ = await get("/web/20170101000000id_/https://docs.example.test/guide/old.html")
    assert status == 301
    assert headers["Location"] == f"https://web.archive.org/web/20170101000000id_/{PAGE}"


async def test_unarchived_url_is_404(archive):
    get, _ = archive
    status, _, text = await get("/web/2019id_/https://nowhere.test/page")
    assert status == 404 and "has not archived" in text


async def test_store_reads_live_additions(archive):
    get, store = archive
    store.add("https://late.test/x", "20210101000000", NEW)
    payload = json.loads((await get("/wayback/available", url="https://late.test/x"))[2])
    assert payload["archived_snapshots"]["closest"]["timestamp"] == "20210101000000"


async def test_availability_also_on_archive_org(simweb):
    mount_wayback(simweb, captures=make_store())
    connector = aiohttp.TCPConnector(resolver=simweb.resolver)
    async with aiohttp.ClientSession(connector=connector) as session:
        url = simweb.url("archive.org", "/wayback/available?" + urlencode({"url": PAGE}))
        async with session.get(url) as response:
            payload = await response.json()
        async with session.get(simweb.url("archive.org", "/cdx/search/cdx?url=x")) as response:
            assert response.status == 404  # only the availability API lives there
    assert payload["archived_snapshots"]["closest"]["timestamp"] == "20180601120000"


async def test_memento_timemap(archive):
    get, _ = archive
    status, headers, text = await get(f"/web/timemap/link/{PAGE}")
    assert status == 200 and headers["Content-Type"].startswith("application/link-format")
    entries = [line.rstrip(",") for line in text.splitlines()]
    assert entries[0] == f'<{PAGE}>; rel="original"'
    assert 'rel="self"' in entries[1] and 'from="Thu, 01 Jan 2015 00:00:00 GMT"' in entries[1]
    mementos = [e for e in entries if "memento" in e]
    assert len(mementos) == 3
    assert mementos[0].startswith("<https://web.archive.org/web/20150101000000/http://docs.example.test/guide/install.html>")
    assert 'rel="first memento"' in mementos[0] and 'rel="last memento"' in mementos[-1]
    assert 'datetime="Fri, 01 Jun 2018 12:00:00 GMT"' in mementos[1]
    assert (await get("/web/timemap/link/https://nowhere.test/"))[0] == 404


async def test_memento_timegate(simweb):
    mount_wayback(simweb, captures=make_store())
    connector = aiohttp.TCPConnector(resolver=simweb.resolver)
    async with aiohttp.ClientSession(connector=connector) as session:
        url = simweb.url("web.archive.org", f"/web/{PAGE}")
        async with session.get(url, allow_redirects=False, headers={"Accept-Datetime": "Tue, 01 May 2018 00:00:00 GMT"}) as response:
            assert response.status == 302
            assert response.headers["Location"] == f"https://web.archive.org/web/20180601120000/{PAGE}"
            assert response.headers["Vary"] == "accept-datetime"
        async with session.get(url, allow_redirects=False) as response:  # no datetime: the latest
            assert response.headers["Location"].startswith("https://web.archive.org/web/20200101000000/")
        async with session.get(url, allow_redirects=False, headers={"Accept-Datetime": "yesterday"}) as response:
            assert response.status == 400


async def test_percent_encoded_original_is_found(archive):
    get, store = archive
    store.add("https://wiki.example.test/wiki/struct_(module)", "20190101000000", NEW)
    status, _, text = await get("/web/20190101000000id_/https%3A%2F%2Fwiki.example.test%2Fwiki%2Fstruct_%28module%29")
    assert status == 200 and text == NEW
