"""One cache and one HTTP client per run (issue 24): the checks, recovery, a crawl and `fix`
share them, so what the client learned of a host (a Retry-After) holds for every later request."""

from __future__ import annotations

import asyncio
import time

import pytest
from aiohttp import web as aioweb

from linkfix.check.crawl import CrawlLimits
from linkfix.check.http.checker import HttpChecker
from linkfix.config import Config
from linkfix.model import Status
from linkfix.pipeline import run_check
from linkfix.pipeline.crawl import crawl_check
from linkfix.store.cache import Cache

HOST = "docs.example.test"


@pytest.fixture
def made(monkeypatch):
    """How many Cache and HttpChecker objects the code under test builds."""
    counts = {"caches": 0, "clients": 0}

    def counted(cls, key):
        original = cls.__init__

        def init(self, *args, **kwargs):
            counts[key] += 1
            original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", init)

    counted(Cache, "caches")
    counted(HttpChecker, "clients")
    return counts


@pytest.fixture
def site(simweb):
    """A docs host: /docs/ links to a live page and a dead one; /limited (linked from nowhere) answers 429 with
    Retry-After: 3, after 0.3 s; every other path is gone. Each request is recorded (time, path,
    status)."""
    seen: list[tuple[float, str, int]] = []
    pages = {
        "/docs/": '<html><head><title>Docs</title></head><body><a href="live.html">Live</a> '
                  '<a href="gone.html">Gone</a></body></html>',
        "/docs/live.html": "<html><head><title>Live</title></head><body><p>here</p></body></html>",
    }

    async def handler(request):
        if request.path == "/limited":
            await asyncio.sleep(0.3)  # the last answer of a check
            response = aioweb.Response(status=429, text="slow down", headers={"Retry-After": "3"})
        elif request.path in pages:
            response = aioweb.Response(text=pages[request.path], content_type="text/html")
        else:
            response = aioweb.Response(status=404, text="<title>Not found</title>", content_type="text/html")
        seen.append((time.monotonic(), request.path, response.status))
        return response

    simweb.add_site(HOST, catalogue=False).mount(handler)
    simweb.seen = seen
    return simweb


def config(tmp_path, **overrides) -> Config:
    return Config(**{"allow_private": True, "cache_dir": str(tmp_path / "cache"), "max_retries": 0, "timeout": 5.0,
                     "archive": [], **overrides})


async def test_a_check_with_recovery_builds_one_cache_and_one_client(site, tmp_path, made):
    (tmp_path / "a.md").write_text(f"[gone]({site.url(HOST, '/docs/gone.html')}) [live]({site.url(HOST, '/docs/live.html')})\n")
    report = await run_check([str(tmp_path / "a.md")], config(tmp_path, suggest=True), resolver=site.resolver)
    assert {r.result.status for r in report.results} == {Status.OK, Status.BROKEN}
    assert any(path != "/docs/gone.html" and path != "/docs/live.html" for _, path, _ in site.seen)  # recovery asked the host too
    assert made == {"caches": 1, "clients": 1}


async def test_an_offline_check_builds_no_client(tmp_path, made):
    (tmp_path / "a.md").write_text("[out](https://example.com/) [in](a.md)\n")
    await run_check([str(tmp_path / "a.md")], config(tmp_path, suggest=True, offline=True))
    assert made["clients"] == 0 and made["caches"] <= 1


async def test_a_crawl_builds_one_cache_and_one_client(site, tmp_path, made):
    report = await crawl_check(site.url(HOST, "/docs/"), config(tmp_path, suggest=True), CrawlLimits(), resolver=site.resolver)
    assert {r.result.status for r in report.results} >= {Status.OK, Status.BROKEN}
    assert made == {"caches": 1, "clients": 1}


async def test_fix_builds_one_cache_and_one_client(site, tmp_path, made, monkeypatch):
    """`fix` with its check, recovery and the links' broken history (confirm_runs 2) to read."""
    from linkfix.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.md").write_text(f"[gone]({site.url(HOST, '/docs/gone.html')})\n")
    (tmp_path / "cache").mkdir()
    client_init = HttpChecker.__init__  # counted (`made`)

    def on_the_simulated_web(self, config, cache, **kwargs):
        client_init(self, config, cache, **{**kwargs, "resolver": site.resolver})

    monkeypatch.setattr(HttpChecker, "__init__", on_the_simulated_web)
    # The command runs its own event loop: in a thread, while this one serves the simulated web.
    code = await asyncio.to_thread(main, ["fix", "--allow-private", "--max-retries", "0", "--archive", "[]", "--cache-dir", "cache",
                                          "--confirm-runs", "2", "a.md"])
    assert code == 0  # nothing to rewrite (the dead page has no successor), and the run went through
    assert any(path != "/docs/gone.html" for _, path, _ in site.seen)  # recovery asked the host too
    assert made == {"caches": 1, "clients": 1}


async def test_recovery_keeps_to_the_pause_a_host_asked_for_while_checking(site, tmp_path):
    """The last answer of the checks is a 429 asking for a 3 s pause (the dead page's
    answers came before it); recovery then asks the same host about the dead page: not before
    that pause is over. (With a client of its own, recovery sent its first request at once.)"""
    (tmp_path / "a.md").write_text(f"[gone]({site.url(HOST, '/docs/gone.html')})\n")
    (tmp_path / "b.md").write_text(f"[limited]({site.url(HOST, '/limited')})\n")
    cfg = config(tmp_path, suggest=True, cache=False, host_concurrency=2)
    report = await run_check([str(tmp_path / "a.md"), str(tmp_path / "b.md")], cfg, resolver=site.resolver)
    assert {r.result.status for r in report.results} == {Status.BROKEN, Status.BLOCKED}
    paused_at = next(at for at, path, status in site.seen if status == 429)
    assert all(path == "/docs/gone.html" for at, path, _ in site.seen if at < paused_at)  # the checks' requests
    later = [(at - paused_at, path) for at, path, _ in site.seen if at > paused_at]
    assert later, "recovery asked the host nothing: the test shows nothing"
    assert all(wait >= 2.9 for wait, _ in later), later
