"""Extraction in worker processes gives what extraction in this process gives: the online
check's one worker (extract_in_worker) and the offline check's workers (extract_in_workers)."""

from __future__ import annotations

import asyncio

import pytest

from linkfix.config import Config
from linkfix.extract import worker as extract_worker
from linkfix.extract.documents import iter_documents
from linkfix.inputs.sources import collect
from linkfix.pipeline import run_check
from linkfix.store.cache import Cache


@pytest.fixture
def site(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(extract_worker.MIN_FILES + 5):
        (docs / f"page-{i:03d}.md").write_text(
            f"# Page {i}\n\nSee [next](page-{i + 1:03d}.md#page-{i + 1}), [out](https://example.com/{i}) "
            f"and <https://example.org/a?b={i}>.\n\n```\nhttps://not-a-link.example/{i}\n```\n",
            encoding="utf-8",
        )
        # HTML pages cross from an offline check's workers as their scan, not as Documents.
        (docs / f"built-{i:03d}.html").write_text(
            f'<html><head><title>Built {i}</title></head><body><h1 id="top">Built {i}</h1>\n'
            f'<p>To <a href="built-{i + 1:03d}.html#top">next</a> and <a href="https://example.com/b/{i}">out</a>'
            f'<!-- linkfix-disable-next-line -->\n<a href="gone-{i}.html">ignored</a> <img src="i{i}.png"></p></body></html>\n',
            encoding="utf-8",
        )
    (docs / "binary.md").write_bytes(b"\0\1\2 not text")
    (docs / "latin1.md").write_bytes(b"# Caf\xe9\n\n[x](https://example.com/cafe)\n")
    return docs


WORKERS = ("online", "offline")  # extract_in_worker (async, one worker), extract_in_workers (sync)


def _all(project, *, cache=None, worker: str = "", want_text: bool = False):
    errors: list[str] = []

    async def collect_all():
        if worker == "online":
            return [item async for item in extract_worker.extract_in_worker(project, want_text=want_text, cache=cache, errors=errors)]
        if worker == "offline":
            return list(extract_worker.extract_in_workers(project, want_text=want_text, cache=cache, errors=errors))
        return list(iter_documents(project, want_text=want_text, cache=cache, errors=errors))

    return asyncio.run(collect_all()), errors


@pytest.mark.parametrize("worker", WORKERS)
@pytest.mark.parametrize("want_text", [False, True])
def test_the_workers_give_the_same_documents_in_the_same_order(site, worker, want_text):
    project = collect([str(site)], Config())
    assert extract_worker.worth_a_worker(project)
    here, here_errors = _all(project, want_text=want_text)
    there, there_errors = _all(project, worker=worker, want_text=want_text)
    assert [rel for rel, _ in there] == [rel for rel, _ in here]
    assert [doc for _, doc in there] == [doc for _, doc in here]
    built = dict(there)["built-003.html"]
    assert [link.url for link in built.links] == ["built-004.html#top", "https://example.com/b/3", "gone-3.html", "i3.png"]
    assert built.silenced and built.page.ids == frozenset({"top"}) and built.page.title == "Built 3"
    assert there_errors == here_errors and any("binary" in e for e in there_errors) and any("UTF-8" in e for e in there_errors)


def test_an_offline_check_of_many_files_reads_them_in_workers(site):
    assert extract_worker.extraction_for(collect([str(site)], Config()), Config(offline=True)) is extract_worker.extract_in_workers
    assert extract_worker.extraction_for(collect([str(site)], Config()), Config()) is extract_worker.extract_in_worker
    few = collect([str(site / "page-001.md"), str(site / "built-001.html")], Config())
    assert extract_worker.extraction_for(few, Config(offline=True)) is iter_documents


@pytest.mark.parametrize("worker", WORKERS)
def test_a_warm_extraction_cache_needs_no_worker(site, tmp_path, monkeypatch, worker):
    project = collect([str(site)], Config())
    with Cache(tmp_path / "cache") as cache:
        first, _ = _all(project, cache=cache, worker=worker)
    import concurrent.futures  # the worker module imports the pool from here when it starts one

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", None)  # would fail if called
    with Cache(tmp_path / "cache") as cache:
        second, _ = _all(project, cache=cache, worker=worker)
    assert second == first


@pytest.mark.parametrize("offline", [False, True])
def test_a_check_reports_the_same_with_and_without_the_worker(site, monkeypatch, offline):
    config = Config(offline=offline, cache=False, exclude=["^https?://"])  # external links excluded: no network (".*" now excludes internal links too)
    with_worker = asyncio.run(run_check([str(site)], config))
    monkeypatch.setattr(extract_worker, "MIN_FILES", 10**9)
    without = asyncio.run(run_check([str(site)], config))
    assert [(r.link, r.result.status, r.result.reason) for r in with_worker.results] == [
        (r.link, r.result.status, r.result.reason) for r in without.results
    ]
    assert with_worker.errors == without.errors and with_worker.files == without.files


@pytest.mark.parametrize("worker", WORKERS)
def test_the_worker_renders_a_mkdocs_project_as_this_process_does(site, worker):
    (site.parent / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - admonition\n")
    (site / "note.md").write_text("# Note\n\n!!! note\n\n    [in a note](page-001.md#page-1)\n")
    project = collect([str(site.parent / "mkdocs.yml")], Config())
    here, _ = _all(project)
    there, _ = _all(project, worker=worker)
    assert [doc for _, doc in there] == [doc for _, doc in here]
    note = dict(there)["note.md"]
    assert [link.url for link in note.links] == ["page-001.md#page-1"]


@pytest.mark.parametrize("worker", WORKERS)
def test_stopping_early_leaves_no_pool_thread_or_worker_running(site, worker):
    """Nothing of the pool outlives the extraction: a pool still winding down when the program
    exits races the interpreter's exit hook (a traceback on SIGTERM)."""
    import multiprocessing
    import threading
    from concurrent.futures.process import _ExecutorManagerThread

    project = collect([str(site)], Config())
    wanted = extract_worker.MIN_MISSES + 3  # past the worker's start

    async def first_few():
        documents = extract_worker.extract_in_worker(project, want_text=False, cache=None, errors=[])
        taken = [await anext(documents) for _ in range(wanted)]
        await documents.aclose()  # what a cancelled check does to it
        return taken

    def first_few_offline():
        documents = extract_worker.extract_in_workers(project, want_text=False, cache=None, errors=[])
        taken = [next(documents) for _ in range(wanted)]
        documents.close()  # what an interrupted check does to it
        return taken

    assert len(asyncio.run(first_few()) if worker == "online" else first_few_offline()) == wanted
    assert not [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread) and t.is_alive()]
    assert not multiprocessing.active_children()


def test_one_usable_cpu_means_no_worker_however_many_the_machine_has(site, monkeypatch):
    # A container or `taskset` may allow one CPU of many: workers would only take turns with this process.
    import os

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert extract_worker.usable_cpus() == 1
    assert extract_worker.extraction_for(collect([str(site)], Config()), Config(offline=True)) is iter_documents


@pytest.mark.parametrize("worker", WORKERS)
def test_a_partly_warm_cache_mixes_kept_and_parsed_files_in_order(site, tmp_path, worker):
    # Every third file changed since the cache was written: the workers' batches hold files
    # read from the cache and files parsed, and the documents still come out in file order.
    project = collect([str(site)], Config())
    with Cache(tmp_path / "cache") as cache:
        _all(project, cache=cache)
    for index, path in enumerate(sorted(site.glob("*.html"))[::3] + sorted(site.glob("page-*.md"))[::3]):
        path.write_text(path.read_text(encoding="utf-8").replace("Page", f"Changed {index}"), encoding="utf-8")
    here, here_errors = _all(project)
    with Cache(tmp_path / "cache") as cache:
        there, there_errors = _all(project, cache=cache, worker=worker)
    assert [rel for rel, _ in there] == [rel for rel, _ in here] and [doc for _, doc in there] == [doc for _, doc in here]
    assert there_errors == here_errors and any("Changed" in doc.page.title for _, doc in there)


def test_small_files_go_to_the_workers_many_to_a_task_and_large_ones_a_few(tmp_path):
    """A task holds at least BATCH files, more while they are small (each task costs the checking
    process a hand-over); every file once, in order."""
    small = [tmp_path / f"s{i:03d}.md" for i in range(150)]
    large = [tmp_path / f"l{i}.md" for i in range(12)]
    for path in small:
        path.write_text("# s\n", encoding="utf-8")
    for path in large:
        path.write_bytes(b"x" * extract_worker.BATCH_BYTES)
    missing = tmp_path / "gone.md"
    files = [*small, *large, missing]
    sizes: dict = {}
    cut = list(extract_worker.batches(files, sizes))
    assert [path for batch in cut for path in batch] == files
    # 150 small: two full tasks, then 22 small and a large one (over BATCH_BYTES); 8 large; the rest.
    assert [len(batch) for batch in cut] == [extract_worker.BATCH_MOST, extract_worker.BATCH_MOST, 23, extract_worker.BATCH, 4]
    assert sizes[missing] == 0 and sizes[large[0]] == extract_worker.BATCH_BYTES
