"""The SearXNG stand-in: SearXNG's JSON shape, BM25 ranking, paging, site: filter, errors."""

from __future__ import annotations

import math
from urllib.parse import urlencode

import aiohttp
import pytest

from linkfix_simweb.searxng import IndexedPage, SearchIndex, mount_searxng, tokenize

PAGES = [
    IndexedPage(url="https://docs.example.test/library/json.html", title="json — JSON encoder and decoder",
                text="JSON (JavaScript Object Notation) is a lightweight data interchange format inspired by JavaScript object literal syntax."),
    IndexedPage(url="https://docs.example.test/library/csv.html", title="csv — CSV File Reading and Writing",
                text="The so-called CSV (Comma Separated Values) format is the most common import and export format for spreadsheets and databases."),
    IndexedPage(url="https://howto.example.test/logging/", title="Logging HOWTO",
                text="Logging is a means of tracking events that happen when some software runs. The software's developer adds logging calls."),
    IndexedPage(url="https://blog.example.test/2020/json-tips/", title="Five tips for working with data",
                text="A short post about reading files, parsing JSON documents and writing CSV reports for colleagues."),
]

RESULT_KEYS = {"url", "title", "content", "engine", "engines", "score", "category", "parsed_url", "positions",
               "template", "publishedDate", "thumbnail", "img_src", "priority"}


def test_tokenize_lowercases_words():
    assert tokenize("JSON — encoder/decoder, v2!") == ["json", "encoder", "decoder", "v2"]


def test_bm25_matches_hand_computation():
    docs = [IndexedPage(url="https://a.test/1", title="", text="apple apple banana"),
            IndexedPage(url="https://a.test/2", title="", text="banana cherry")]
    index = SearchIndex(docs)
    # N=2, df(apple)=1 -> idf = ln(1 + 1.5/1.5) = ln 2; doc 1: f=2, |d|=3, avgdl=2.5
    expected = math.log(2) * (2 * 2.2) / (2 + 1.2 * (1 - 0.75 + 0.75 * 3 / 2.5))
    (page, score), = index.search("apple")
    assert page.url == "https://a.test/1"
    assert score == pytest.approx(expected)
    assert index.search("durian") == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.url)
def test_own_title_ranks_first(page):
    hits = SearchIndex(PAGES).search(page.title)
    assert hits[0][0] == page
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


def test_site_operator_filters_hosts():
    hits = SearchIndex(PAGES).search("json site:blog.example.test")
    assert [p.url for p, _ in hits] == ["https://blog.example.test/2020/json-tips/"]


@pytest.fixture
async def searx(simweb):
    index = mount_searxng(simweb, index=PAGES)
    connector = aiohttp.TCPConnector(resolver=simweb.resolver)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def get(**params: str):
            url = simweb.url("searx.example.test", "/search?" + urlencode(params))
            async with session.get(url) as response:
                body = await response.json() if response.content_type == "application/json" else await response.text()
                return response.status, body

        yield get, index


async def test_json_format(searx):
    get, index = searx
    status, body = await get(q="JSON data interchange", format="json")
    assert status == 200
    assert set(body) == {"query", "number_of_results", "results", "answers", "corrections", "infoboxes",
                         "suggestions", "unresponsive_engines"}
    assert body["query"] == "JSON data interchange"
    assert isinstance(body["number_of_results"], int) and body["number_of_results"] == len(body["results"]) == 2
    first = body["results"][0]
    assert set(first) == RESULT_KEYS
    assert first["url"] == "https://docs.example.test/library/json.html"
    assert first["parsed_url"] == ["https", "docs.example.test", "/library/json.html", "", "", ""]
    assert first["positions"] == [1] and first["engines"] == [first["engine"]]
    assert isinstance(first["score"], float) and first["category"] == "general"
    assert "JSON" in first["content"]
    assert index.queries == ["JSON data interchange"]


async def test_paging(simweb):
    many = [IndexedPage(url=f"https://docs.example.test/p{i}", title=f"page {i}", text="common " * (i + 1)) for i in range(25)]
    mount_searxng(simweb, index=many)
    connector = aiohttp.TCPConnector(resolver=simweb.resolver)
    async with aiohttp.ClientSession(connector=connector) as session:
        pages = []
        for pageno in (1, 2, 3, 4):
            url = simweb.url("searx.example.test", f"/search?q=common&format=json&pageno={pageno}")
            async with session.get(url) as response:
                pages.append(await response.json())
    assert [len(p["results"]) for p in pages] == [10, 10, 5, 0]
    assert all(p["number_of_results"] == 25 for p in pages)
    assert pages[1]["results"][0]["positions"] == [11]
    urls = [r["url"] for p in pages for r in p["results"]]
    assert len(set(urls)) == 25


async def test_errors_and_html(searx):
    get, _ = searx
    assert (await get(q="json", format="csv"))[0] == 403
    assert (await get(format="json"))[0] == 400
    assert (await get(q="json", format="json", pageno="zero"))[0] == 400
    status, body = await get(q="json")
    assert status == 200 and "docs.example.test/library/json.html" in body
