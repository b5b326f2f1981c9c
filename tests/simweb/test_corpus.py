"""The recovery evaluation web: corpus size, case invariants, and that the web serves what the
cases say (dead URLs dead, answers live, captures where claimed, decoys present)."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from urllib.parse import urlencode, urlsplit

import aiohttp
import pytest

from linkfix_simweb import corpus
from linkfix_simweb.corpus import (
    CASE_TYPES,
    Case,
    build_web,
    canonical_url,
    cases_document,
    edit_blocks,
    is_correct,
    load_cases,
    load_pages,
    make_plan,
    words_changed,
)


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    return load_cases()


@pytest.fixture(scope="module")
def plan():
    return make_plan()


def test_corpus_is_real_prose_with_provenance():
    with gzip.open(corpus.PAGES_FILE, "rt", encoding="utf-8") as handle:
        payload = json.load(handle)
    assert "python3.11-doc" in payload["source"] and "PSF" in payload["licence"]
    pages = load_pages()
    assert len(pages) >= 300
    assert len({p.id for p in pages}) == len(pages)
    assert all(len(p.text.split()) >= 120 and p.title for p in pages)
    assert len({p.chapter for p in pages}) >= 10


def test_cases_file_is_in_sync_with_the_generator(cases, plan):
    assert cases_document(plan.cases) == cases_document(cases)


def test_generation_is_deterministic(plan):
    again = corpus._Planner(corpus.SEED).build()
    assert cases_document(again.cases) == cases_document(plan.cases)
    assert sorted(again.pages) == sorted(plan.pages)
    assert [(c.url, c.timestamp) for c in again.captures] == [(c.url, c.timestamp) for c in plan.captures]


def test_counts_per_type_and_unique_dead_urls(cases):
    assert len(cases) >= 150
    counts = Counter(c.type for c in cases)
    assert set(counts) == set(CASE_TYPES)
    assert all(n >= 12 for n in counts.values()), counts
    assert len({c.dead_url for c in cases}) == len(cases)
    assert len({c.id for c in cases}) == len(cases)


def test_at_least_300_live_prose_pages_over_several_sites(plan):
    content = [p for p in plan.pages.values() if p.kind == "content"]
    assert len(content) >= 300
    hosts = Counter(p.host for p in content)
    assert len(hosts) >= 5 and min(hosts.values()) >= 15, hosts


def test_answers_are_live_and_dead_urls_are_not(cases, plan):
    for case in cases:
        assert case.dead_url not in plan.pages, case.id
        if case.type in ("archive-only", "none"):
            continue
        assert case.answer in plan.pages and plan.pages[case.answer].kind == "content", case.id
        assert case.answer != case.dead_url


def test_none_cases_have_no_answer_no_archive_and_live_decoys(cases, plan):
    none = [c for c in cases if c.type == "none"]
    assert none and all(c.answer is None and not c.archived for c in none)
    sources = {p.id: p for p in load_pages()}
    for case in none:
        assert len(case.decoys) >= 2
        assert all(d in plan.pages for d in case.decoys), case.id
        decoy_titles = [plan.pages[d].title.lower() for d in case.decoys]
        name = corpus.module_name(sources[case.source]).lower()
        assert any(name in t for t in decoy_titles), case.id
    # Nothing else carries a "none" answer.
    assert all(c.answer is not None for c in cases if c.type != "none")


def test_archive_only_answers_are_real_captures_before_the_link(cases, plan):
    archive = [c for c in cases if c.type == "archive-only"]
    captured = {(p.url, p.timestamp, p.status) for p in plan.captures}
    for case in archive:
        assert case.expected_method == "archive"
        match = re.fullmatch(r"https://web\.archive\.org/web/(\d{14})/(.+)", case.answer)
        assert match and match.group(2) == case.dead_url
        assert (case.dead_url, match.group(1), 200) in captured
        assert match.group(1) <= case.linked_at
        assert not any(p.source == case.source for p in plan.pages.values()), "content must be gone from the live web"


def test_capture_refs_match_the_archive_and_most_cases_are_archived(cases, plan):
    by_url: dict[str, set] = {}
    for p in plan.captures:
        by_url.setdefault(p.url, set()).add((p.timestamp, p.status))
    for case in cases:
        assert {(r.timestamp, r.status) for r in case.captures} == by_url.get(case.dead_url, set()), case.id
        if case.archived:  # one 200 capture of the real page at or before the link was written
            assert any(r.status == 200 and r.version in ("original", "older") and r.timestamp <= case.linked_at for r in case.captures)
    answerable = [c for c in cases if c.type != "none"]
    archived = sum(c.archived for c in answerable)
    assert 0.6 * len(answerable) < archived < len(answerable)
    assert any(r.version == "older" for c in cases for r in c.captures)
    assert any(r.version == "soft-404" for c in cases for r in c.captures)
    assert all(not c.archived for c in cases if c.type == "no-archive")


def test_moved_edited_text_changed_between_5_and_20_percent(cases, plan):
    pages = {p.id: p for p in load_pages()}
    for case in (c for c in cases if c.type == "moved-edited"):
        assert 0.05 <= case.edit_ratio <= 0.20, case.id
        live = plan.pages[case.answer]
        measured = words_changed(pages[case.source].text, " ".join(t for _, t in live.blocks))
        assert measured == pytest.approx(case.edit_ratio, abs=1e-3)


def test_edit_blocks_stays_in_range():
    import random

    pages = load_pages()
    rng = random.Random(7)
    for page in pages[:6]:
        blocks, ratio = edit_blocks(page.blocks, pages[-1], rng)
        assert 0.05 <= ratio <= 0.20 and blocks != page.blocks


def test_anchor_kinds(cases):
    one_word = [c for c in cases if c.type == "one-word-anchor"]
    assert all(len(c.anchor.split()) == 1 for c in one_word)
    click = [c for c in cases if c.type == "click-here"]
    assert all(c.anchor in corpus.CLICK_HERE for c in click)
    for case in cases:
        assert f"[{corpus.md_escape(case.anchor)}]({case.dead_url})" in case.context, case.id


def test_restructure_shares_one_pattern(cases):
    moved = [c for c in cases if c.type == "restructured"]
    for case in moved:
        old = re.fullmatch(r"https://legacy\.example\.test/docs/(.+)\.html", case.dead_url)
        assert old and case.answer == f"https://legacy.example.test/en/latest/{old.group(1)}/"


def test_dead_status_variety(cases):
    statuses = Counter(c.dead_status for c in cases)
    for status in ("404", "410", "soft-404", "dns", "301"):
        assert statuses[status] >= 4, statuses


def test_is_correct_and_canonical():
    archive_case = next(c for c in load_cases() if c.type == "archive-only")
    assert is_correct(archive_case, archive_case.answer)
    timestamp = archive_case.answer.split("/")[4]
    raw = archive_case.answer.replace(f"/web/{timestamp}/", "/web/2019id_/")
    assert is_correct(archive_case, raw)
    assert not is_correct(archive_case, "https://web.archive.org/web/2019/https://elsewhere.test/")
    moved = next(c for c in load_cases() if c.type == "moved-edited")
    port_url = moved.answer.replace("https://", "http://").replace(urlsplit(moved.answer).hostname, urlsplit(moved.answer).hostname + ":8123")
    assert canonical_url(port_url) == moved.answer
    assert is_correct(moved, port_url + "#section")
    assert canonical_url("http://insecure.docs.python.test:8123/3/x.html") == "http://docs.python.test/3/x.html"
    none = next(c for c in load_cases() if c.type == "none")
    assert not is_correct(none, none.decoys[0])


def _remapped(rules: list[str], url: str) -> str:
    for rule in rules:
        pattern, replacement = rule.split(maxsplit=1)
        if re.match(pattern, url):
            return re.sub(pattern, replacement, url, count=1)
    return url


@pytest.fixture
async def served(simweb, tmp_path, cases):
    ev = build_web(simweb, docs_dir=tmp_path / "docs")
    connector = aiohttp.TCPConnector(resolver=simweb.resolver, limit=32)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def get(url: str, *, follow: bool = False):
            """GET a canonical URL through the remap rules, following redirects by hand."""
            chain = []
            for _ in range(5):
                try:
                    async with session.get(_remapped(ev.remap, url), allow_redirects=False) as response:
                        text = await response.text()
                        location = response.headers.get("Location", "")
                except aiohttp.ClientConnectorError:
                    return "dns", "", chain
                if follow and location:
                    chain.append(response.status)
                    url = location
                    continue
                return response.status, text, chain
            raise AssertionError("redirect loop")

        yield ev, get


async def test_served_web_matches_the_cases(served):
    ev, get = served
    for case in ev.cases:
        status, text, _ = await get(case.dead_url)
        if case.dead_status == "soft-404":
            assert status == 200 and "not" in text.lower(), case.id
        else:
            assert str(status) == case.dead_status, case.id
        if case.type == "redirect":
            final, _, chain = await get(case.dead_url, follow=True)
            assert final == 200 and all(code in (301, 308) for code in chain), case.id
        if case.answer and case.type != "archive-only":
            status, text, _ = await get(case.answer)
            assert status == 200, case.id
    # parents: markdown files holding each case's link, and working links that stay working
    for case in ev.cases:
        assert f"]({case.dead_url})" in (ev.docs_dir / case.parent_path).read_text(encoding="utf-8")
    assert len(ev.live_links) == len(ev.parent_paths)
    written = "".join(p.read_text(encoding="utf-8") for p in ev.parent_paths)
    for url in ev.live_links:
        assert f"]({url})" in written
        assert (await get(url))[0] == 200


async def test_served_archive_and_search(served):
    ev, get = served
    archive_case = next(c for c in ev.cases if c.type == "archive-only")
    cdx = archive_case.dead_url
    query = urlencode({"url": cdx, "output": "json", "filter": "statuscode:200", "to": archive_case.linked_at, "limit": "-1"})
    status, text, _ = await get(f"https://web.archive.org/cdx/search/cdx?{query}")
    rows = json.loads(text)
    assert status == 200 and rows[1][1] == archive_case.answer.split("/")[4]
    status, text, _ = await get(archive_case.answer.replace(f"/web/{rows[1][1]}/", f"/web/{rows[1][1]}id_/"))
    assert status == 200 and "WAYBACK" not in text and "<h" in text
    never = next(c for c in ev.cases if c.type == "no-archive")
    status, text, _ = await get(f"https://web.archive.org/wayback/available?{urlencode({'url': never.dead_url})}")
    assert json.loads(text)["archived_snapshots"] == {}
    # The search engine finds a moved page by its title, across hosts.
    moved = next(c for c in ev.cases if c.type == "moved-host")
    title = ev.search_index.pages[[p.url for p in ev.search_index.pages].index(moved.answer)].title
    status, text, _ = await get(f"https://searx.example.test/search?{urlencode({'q': title, 'format': 'json'})}")
    assert json.loads(text)["results"][0]["url"] == moved.answer


async def test_served_site_sources(served):
    ev, get = served
    status, text, _ = await get("https://howto.example.test/robots.txt")
    assert "Sitemap: https://howto.example.test/sitemap.xml" in text
    status, text, _ = await get("https://howto.example.test/sitemap.xml")
    assert status == 200 and "<urlset" in text
    status, text, _ = await get("https://wiki.example.test/sitemap_index.xml")
    assert "<sitemapindex" in text and "sitemap-2.xml" in text
    status, text, _ = await get("https://howto.example.test/search/search_index.json")
    index = json.loads(text)
    assert {"location", "title", "text"} <= set(index["docs"][0])
    status, text, _ = await get("https://legacy.example.test/en/latest/search/search_index.json")
    locations = {d["location"] for d in json.loads(text)["docs"]}
    moved = [c for c in ev.cases if c.type == "restructured"]
    assert {c.answer.removeprefix("https://legacy.example.test/en/latest/") for c in moved} <= locations
    status, text, _ = await get("https://docs.python.test/3/searchindex.js")
    assert status == 200 and text.startswith("Search.setIndex(")
    sphinx = json.loads(text[len("Search.setIndex("):-1])
    assert len(sphinx["docnames"]) == len(sphinx["titles"]) > 50
    assert (await get("https://docs.python.test/sitemap.xml"))[0] == 404
    assert (await get("https://blog.example.test/sitemap.xml"))[0] == 200  # soft-404 site
    status, text, _ = await get("https://blog.example.test/posts/")
    assert status == 200 and text.count("<li>") > 20
    status, _, chain = await get("http://howto.example.test/guides/", follow=True)
    assert status == 200 and chain == [301]
