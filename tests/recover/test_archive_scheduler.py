"""The archive as one scheduled resource per run: batched CDX lookups, the neediest links first,
429s waited out, no ban, deferral (never "no capture"), archive_wait, and persistence across
runs. Against the simulated Wayback Machine behind the Internet Archive's limits
(linkfix_simweb.realmoves.ratelimit), with small, fast, non-zero limits."""

from __future__ import annotations

import itertools
import logging
import time
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web as aioweb

from linkfix.check.http import HttpChecker
from linkfix.config import Config
from linkfix.model import Link, LinkKind, LinkResult, Page, Scope, Span
from linkfix.recover import recover_all
from linkfix.store.cache import Cache
from linkfix_simweb.realmoves.ratelimit import ArchiveLimits, limit_archive
from linkfix_simweb.wayback import CaptureStore, mount_wayback

DOCS = "docs.example.test"
WRITTEN = datetime(2021, 6, 1, tzinfo=UTC)  # when every link was written
# The archive allows 4 search requests per second here; linkfix is told 120 a minute (2 a
# second, spaced): the published limit with margin, scaled down.
LIMITS = ArchiveLimits(search_limit=4, search_window=1.0, playback_limit=6, playback_window=1.0, ban_after=1.0, ban_seconds=60.0)
WAYBACK = {"provider": "wayback", "requests_per_minute": 120, "playback_per_minute": 240}


def page_html(title: str) -> str:
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>All about {title.lower()}.</p></body></html>"


class Recorder:
    """Every archive request as the archive answered it: (time, path and query, verdict, Retry-After)."""

    def __init__(self, site) -> None:
        self.seen: list[tuple[float, str, str, float]] = []
        inner = site.handler

        async def recording(request):
            at = time.monotonic()
            response = await inner(request)
            verdict = {429: "429", 444: "reset"}.get(response.status, "ok")
            self.seen.append((at, request.path_qs, verdict, float(response.headers.get("Retry-After", 0))))
            return response

        site.mount(recording)

    def search(self) -> list[tuple[float, str, str, float]]:
        return [s for s in self.seen if s[1].startswith(("/cdx/search/cdx", "/wayback/available"))]


@pytest.fixture
def archive(simweb):
    """A docs host where everything is gone (404), and the archive behind small limits."""
    site = simweb.add_site(DOCS, catalogue=False)

    async def gone(request):
        return aioweb.Response(status=404, text="<title>Not found</title>", content_type="text/html")

    site.mount(gone)
    store = CaptureStore()
    mount_wayback(simweb, captures=store)
    gate = limit_archive(simweb, LIMITS)
    return store, gate, Recorder(simweb.sites["web.archive.org"])


def config(simweb, **extra) -> Config:
    return Config(
        remap=[rf"^https://{DOCS}/ http://{DOCS}:{simweb.port}/"],
        allow_private=True,
        archive=[{**WAYBACK, "url": f"http://web.archive.org:{simweb.port}", **extra.pop("wayback", {})}],
        search=[],
        **extra,
    )


def capture(store: CaptureStore, path: str, when: str = "20200301120000") -> str:
    url = f"https://{DOCS}{path}"
    store.add(url, when, page_html(path.strip("/").replace("/", " ").title()))
    return url


async def run(simweb, cfg: Config, urls: list[str], *, anchors: dict[str, str] | None = None, cache: Cache | None = None,
              stats: list | None = None) -> dict[str, LinkResult]:
    cache = cache if cache is not None else Cache(None)
    async with HttpChecker(cfg, cache, resolver=simweb.resolver) as client:
        results = []
        for url in urls:
            check = await client.check(url)
            span = Span(path="docs/index.md", line=1, column=1, start=0, end=len(url))
            anchor = (anchors or {}).get(url, "the configuration reference for frobnicator plugins")
            link = Link(url=url, kind=LinkKind.INLINE, span=span, page=Page(path="docs/index.md"), anchor_text=anchor)
            results.append(LinkResult(link=link, resolved=url, scope=Scope.EXTERNAL, result=check))
        hook = {"on_recovery": stats.append} if stats is not None else {}
        out = await recover_all(results, config=cfg, client=client, cache=cache, link_times={u: WRITTEN for u in urls}, **hook)
    return {lr.resolved: lr for lr in out}


def state(lr: LinkResult) -> str:
    lookup = getattr(lr, "archive_lookup", None)
    if lookup is None:  # (the code before deferral existed: only `archived` to go on)
        return "found" if lr.archived is not None else ""
    return lookup.state.value


async def test_one_prefix_query_answers_the_dead_urls_of_a_directory(simweb, archive):
    store, gate, _ = archive
    found = [capture(store, f"/guide/page{n}.html") for n in range(4)]
    # Two captures of one page: the last one at or before the link's time is the one wanted.
    capture(store, "/guide/page0.html", "20210101000000")
    capture(store, "/guide/page0.html", "20220101000000")  # after the link was written
    later = capture(store, "/guide/later.html", "20220101000000")  # captured only after
    store.add(f"https://{DOCS}/guide/gone.html", "20200101000000", "gone", status=404)  # no good capture
    never = f"https://{DOCS}/guide/never.html"
    out = await run(simweb, config(simweb), [*found, later, f"https://{DOCS}/guide/gone.html", never])
    counts = gate.counts()
    assert counts["cdx"] == {"ok": 1}  # one prefix query answered all seven lookups
    assert counts["playback"] == {"ok": 4}  # and only the copies that exist were fetched
    assert [state(out[u]) for u in found] == ["found"] * 4
    assert out[found[0]].archived.datetime == "2021-01-01T00:00:00Z"
    assert {state(out[u]) for u in (later, f"https://{DOCS}/guide/gone.html", never)} == {"no-capture"}
    assert all(out[u].archived is None for u in (later, never))


async def test_the_links_that_need_a_copy_most_are_asked_first(simweb, archive):
    store, _, recorder = archive
    strong = capture(store, "/manual/install.html")
    weak = capture(store, "/blog/post.html")
    settled = f"https://{DOCS}/moved/page.html"
    simweb.sites[DOCS].redirect("/moved/page.html", "/new/page.html", status=301)
    simweb.sites[DOCS].page("/new/page.html", page_html("New page"))
    # Given strong first; the weak anchor ("here") has nothing else to go on: its copy comes first.
    await run(simweb, config(simweb), [strong, weak, settled], anchors={weak: "here"})
    asked = [path for _, path, verdict, _ in recorder.seen if verdict == "ok"]
    cdx = [p for p in asked if p.startswith("/cdx/")]
    assert len(cdx) == 2
    assert "blog" in cdx[0] and "manual" in cdx[1]
    assert not any("moved" in p or "new" in p for p in asked)  # settled by its redirect: no archive


def test_priority_classes():
    from linkfix.recover.anchors import analyse_anchor
    from linkfix.recover.pool import Contender, Pool, Reference
    from linkfix.recover.rank import Known
    from linkfix.recover.recoverer import Early
    from linkfix.recover.run import need_priority

    def early(anchor: str, candidates: int) -> Early:
        a = analyse_anchor(anchor)
        ref = Reference(dead="https://x.test/a", anchor=a, known=Known(dead_url="https://x.test/a"), dead_is_home=False)
        pool = Pool(ref, threshold=0.9)
        for n in range(candidates):
            pool.score(pool.add(Contender(url=f"https://x.test/{n}", method="rewrite")), {"rewrite": 1.0})
        return Early(pool=pool)

    assert need_priority(early("here", 0)) == 0  # weak anchor, nothing found: needs the copy most
    assert need_priority(early("Installing the Frobnicator plugin", 0)) == 1
    assert need_priority(early("here", 1)) == 2  # a cheap candidate below the auto-fix confidence
    assert need_priority(early("Installing the Frobnicator plugin", 1)) == 2


async def exhaust(simweb) -> None:
    """Use up this address's search window, as another client on the same address would."""
    url = simweb.url("web.archive.org", "/cdx/search/cdx?url=elsewhere.test/&output=json")
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(resolver=simweb.resolver)) as session:
        for _ in range(LIMITS.search_limit):
            async with session.get(url) as response:
                assert response.status == 200


async def test_a_429_is_waited_out_with_nothing_sent_meanwhile(simweb, archive):
    store, gate, recorder = archive
    urls = [capture(store, f"/{d}/page.html") for d in ("a", "b", "c")]
    await exhaust(simweb)
    # max_retries 0: the checker hands the 429 over at once; the scheduler must honour it.
    out = await run(simweb, config(simweb, archive_wait=True, max_retries=0), urls)
    assert [state(out[u]) for u in urls] == ["found"] * 3
    seen = recorder.search()[LIMITS.search_limit:]  # linkfix's own requests
    assert seen[0][2] == "429"
    for (at, _, verdict, wait), later in itertools.pairwise(seen):
        if verdict == "429":
            assert later[0] >= at + wait - 0.05, "a request was sent before the Retry-After was over"
    assert sum(1 for s in seen if s[2] == "429") == 1 and gate.bans == []


async def test_a_429_beyond_the_runs_budget_defers_and_is_not_no_capture(simweb, archive, caplog):
    store, _, recorder = archive
    urls = [capture(store, f"/{d}/page.html") for d in ("a", "b")]
    await exhaust(simweb)
    with caplog.at_level(logging.WARNING):
        out = await run(simweb, config(simweb, archive_seconds=0.3, max_retries=0), urls)
    lookups = [out[u].archive_lookup for u in urls]
    assert [lk.state.value for lk in lookups] == ["deferred"] * 2
    assert {lk.reason for lk in lookups} == {"retry-after"}
    assert all(out[u].archived is None for u in urls)
    assert [s[2] for s in recorder.search()[LIMITS.search_limit:]] == ["429"]  # asked once, then waited: not again
    assert sum("2 lookups deferred" in r.getMessage() for r in caplog.records) == 1


async def test_many_lookups_at_the_archives_pace_no_429_no_ban_and_archive_wait_gets_every_copy(simweb, archive):
    store, gate, _ = archive
    # Ten directories: ten CDX queries (more than a window allows at once), ten copies.
    urls = [capture(store, f"/part{n}/page.html") for n in range(10)]
    default = await run(simweb, config(simweb, archive_seconds=1.0), urls)
    deferred = [u for u in urls if out_state(default, u) == "deferred"]
    assert deferred, "a one-second budget cannot hold ten lookups at two a second"
    assert {default[u].archive_lookup.reason for u in deferred} == {"rate-limit"}
    assert all(out_state(default, u) == "found" for u in urls if u not in deferred)
    gate.reset()
    waited = await run(simweb, config(simweb, archive_wait=True), urls)
    assert [out_state(waited, u) for u in urls] == ["found"] * 10
    counts = gate.counts()
    assert counts["cdx"] == {"ok": 10} and counts["playback"] == {"ok": 10}  # not one 429
    assert gate.bans == []


def out_state(out: dict[str, LinkResult], url: str) -> str:
    return state(out[url])


async def test_a_blocked_address_stops_the_archive_for_the_run(simweb, archive, caplog):
    store, gate, _ = archive
    urls = [capture(store, f"/{d}/page.html") for d in ("a", "b", "c", "d")]
    # Another program on this address ignored its 429s: the firewall now resets its connections.
    url = simweb.url("web.archive.org", "/cdx/search/cdx?url=elsewhere.test/&output=json")
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(resolver=simweb.resolver)) as session:
        while not gate.bans:
            try:
                async with session.get(url) as response:
                    await response.read()
            except aiohttp.ClientConnectionError:
                break
    assert gate.bans
    before = gate.counts()["cdx"].get("reset", 0)
    with caplog.at_level(logging.WARNING):
        out = await run(simweb, config(simweb, archive_wait=True, max_retries=0), urls)
    assert {out[u].archive_lookup.reason for u in urls} == {"blocked"}
    # Two failed requests (aiohttp itself tries a reset pooled connection twice), then no more:
    # the other three lookups were not sent at all.
    assert gate.counts()["cdx"]["reset"] - before <= 4
    assert sum("firewall block" in r.getMessage() for r in caplog.records) == 1


async def test_a_second_run_asks_only_for_what_the_first_did_not_get(simweb, archive, tmp_path: Path):
    store, gate, recorder = archive
    urls = [capture(store, f"/part{n}/page.html") for n in range(6)]
    cache = Cache(tmp_path / "cache")
    first = await run(simweb, config(simweb, archive_seconds=1.0), urls, cache=cache)
    cache.close()
    got = [u for u in urls if state(first[u]) == "found"]
    assert got and len(got) < len(urls)
    gate.reset()
    recorder.seen.clear()
    cache = Cache(tmp_path / "cache")
    stats: list = []
    second = await run(simweb, config(simweb, archive_wait=True), urls, cache=cache, stats=stats)
    cache.close()
    assert [state(second[u]) for u in urls] == ["found"] * 6
    asked = [path for _, path, _, _ in recorder.seen]
    assert len([p for p in asked if p.startswith("/cdx/")]) == len(urls) - len(got)
    assert not any(u.split(DOCS)[1] in p for p in asked for u in got)  # neither looked up nor fetched again
    assert stats[0].archive.stored == len(got)


async def test_run_check_takes_each_links_written_time_and_reports_the_counters(simweb, archive, tmp_path: Path):
    from linkfix.pipeline import run_check

    store, _, recorder = archive
    url = capture(store, "/guide/old.html", "20190101000000")
    capture(store, "/guide/old.html", "20230101000000")  # after the link was written: not the one
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(f"# Home\n\nSee [the old installation guide]({url}).\n", encoding="utf-8")
    stats: list = []
    report = await run_check([str(docs)], config(simweb, suggest=True, cache=False, gitignore=False), resolver=simweb.resolver,
                             link_times={url: datetime(2020, 1, 1, tzinfo=UTC)}, on_recovery=stats.append)
    (lr,) = [r for r in report.results if r.link.url == url]
    assert lr.archived is not None and lr.archived.datetime == "2019-01-01T00:00:00Z"
    lookups = [path for _, path, _, _ in recorder.seen if path.startswith("/cdx/")]
    assert "to=20200101000000" in lookups[0]
    (link,) = stats[0].links
    assert link.url == url and link.archive == "found" and link.archive_requests == 2  # lookup + copy
    assert link.requests >= 1 and link.seconds > 0
    assert stats[0].archive.requests["wayback:search"] == 1
