"""Extraction in worker processes, so that this process goes on checking meanwhile.

A check that has external links to verify is CPU-bound in its event loop; parsing a few hundred
markdown files in that same loop delays every answer it reads (on a 10,000-URL site, 1.5 s of
parsing while the hosts' first rounds wait). A second core parses instead (`extract_in_worker`:
one worker, started in the background; files are parsed here until it is ready).

An offline check of many files (`extract_in_workers`) is CPU-bound too: reading, scanning and
building each page's Documents, then resolving and checking its links. The workers read and
scan; this process builds the Documents and checks them. An HTML page crosses as its scan
(plain tuples, html.scan_page): pickling whole Documents cost what the second core saved
(python3.11-doc, 530 pages).

Documents come out in file order either way, and through the same extraction cache.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections import deque
from collections.abc import AsyncGenerator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..config import Config
from ..files.read import Unreadable, display_path, read_text
from ..formats.silence import silenced_in
from ..inputs.sources import Project
from ..inputs.walk import MARKDOWN_SUFFIXES
from ..model import Document, Silenced
from ..store.cache import Cache
from .documents import (
    Documents,
    Outcome,
    accept_outcome,
    cached_outcome,
    extract_file,
    extraction_key,
    iter_documents,
    markdown_setup,
    remember_outcome,
    with_silenced,
)

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from ..formats.html import Scanned
    from ..mkdocs.pages.extract import MarkdownSetup

# Files in reading order: (path, its outcome or the worker's future of it, cache key).
_Queue = deque[tuple[Path, "Future[Sent] | Outcome", str]]

log = logging.getLogger(__name__)

MIN_FILES = 40  # below this, parsing takes less than starting a worker
MIN_MISSES = 8  # files to parse (not in the extraction cache) before a worker is started
MAX_WORKERS = 4  # an offline check's: past this, building and checking the Documents here is what waits
# Bytes of source an offline check's workers may be ahead of it: what waits for it is held in
# memory (64 of python3.11-doc's pages, 126 kB each on average).
AHEAD_BYTES = 8 << 20
# Files an offline check hands a worker at once: at least BATCH, more while they hold under
# BATCH_BYTES (at most BATCH_MOST). Each task costs this process a wake-up of the pool's threads,
# and the GIL passed back and forth with them: 3,000 pages of 1 kB in tasks of 8 spent more of
# this process in handing them over than in checking them.
BATCH, BATCH_BYTES, BATCH_MOST = 8, 256 << 10, 64
STOP_GRACE = 2.0  # seconds a stopped check waits for the pages its workers are parsing
# fork on Linux: the worker is ready in milliseconds with the parsers already imported (spawn
# needs ~0.4 s, during which this process parses anyway). The pool starts before the first
# request, so there are no threads yet to copy in a broken state. Elsewhere, spawn.
_START_METHOD = "fork" if sys.platform == "linux" else "spawn"


def usable_cpus() -> int:
    """The CPUs this process may run on (a container or `taskset` may allow fewer than the
    machine has: os.cpu_count() counts the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def worth_a_worker(project: Project) -> bool:
    return len(project.files) >= MIN_FILES and usable_cpus() >= 2


def extraction_for(project: Project, config: Config) -> Callable[..., Documents]:
    """How the check reads `project`'s files: `iter_documents`, `extract_in_worker` (online)
    or `extract_in_workers` (offline), all called with (project, want_text=, cache=, errors=)."""
    if not worth_a_worker(project):
        return iter_documents
    return extract_in_workers if config.offline else extract_in_worker


# -- what a worker sends back --------------------------------------------------------------------
class HtmlScan(NamedTuple):
    """An HTML page's extraction as it crosses from a worker: its scan, the lines its ignore
    comments cover and the reading's warning. The Document is built on this side."""

    scanned: Scanned
    silenced: tuple[Silenced, ...]
    warning: str


Sent = Outcome | HtmlScan


def extract_to_send(path: Path, want_text: bool, markdown: MarkdownSetup | None) -> Sent:
    """Runs in a worker: `documents.extract_file`, an HTML page as its scan."""
    if path.suffix.lower() in MARKDOWN_SUFFIXES:
        return extract_file(path, want_text, markdown)
    from ..formats.html import scan_page

    try:
        text, warning = read_text(path)
    except Unreadable as exc:
        return str(exc)
    return HtmlScan(scan_page(text, want_text), silenced_in(text), warning)


def received(path: Path, sent: Sent) -> Outcome:
    """The outcome `extract_file` gives for `path`, from what a worker sent."""
    if not isinstance(sent, HtmlScan):
        return sent
    from ..formats.html import document_of_scan

    return with_silenced(document_of_scan(display_path(path), sent.scanned, links_on_demand=True), sent.silenced), sent.warning


async def extract_in_worker(project: Project, *, want_text: bool, cache: Cache | None, errors: list[str]) -> AsyncGenerator[tuple[str, Document], None]:
    """`documents.iter_documents`, with the parsing done by a worker process once it is up."""
    # Imported here, as the pool is started: multiprocessing and what it brings are a tenth of
    # the start-up of a check that never starts one (offline, or few files); asyncio too, which
    # an offline check runs without (cli.commands.check).
    import asyncio
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    errors.extend(project.errors)
    pool: ProcessPoolExecutor | None = None
    ready: Future[None] | None = None
    queue: _Queue = deque()
    misses = 0  # files not in the extraction cache so far
    broken = False  # the worker died: said once
    markdown = markdown_setup(project)  # plain data: the worker builds its own renderer from it
    try:
        for path in project.files:
            key = extraction_key(path, want_text, markdown) if cache is not None else ""
            outcome: Future[Sent] | Outcome | None = cached_outcome(cache, key)
            if outcome is not None:
                key = ""  # already in the cache
            else:
                misses += 1
                if pool is None and misses >= MIN_MISSES:  # a warm cache with a few changed files: no worker
                    pool = _start_pool(1)
                    ready = pool.submit(_ready)
                if pool is not None and ready is not None and ready.done() and not ready.exception():
                    outcome = pool.submit(extract_to_send, path, want_text, markdown)
                else:  # the worker is still starting: parse this one here
                    outcome = extract_file(path, want_text, markdown)
            queue.append((path, outcome, key))
            while queue and not isinstance(queue[0][1], Future):
                found = _take(queue, cache, errors, project)
                if found is not None:
                    yield found
        while queue:
            front_path, front, key = queue[0]
            if isinstance(front, Future):
                try:
                    outcome = received(front_path, await asyncio.wrap_future(front))
                except BrokenProcessPool:  # the worker died (killed, out of memory): carry on here
                    if not broken:
                        log.warning("extraction worker stopped; parsing the remaining files in this process")
                        broken = True
                    outcome = extract_file(front_path, want_text, markdown)
                queue[0] = (front_path, outcome, key)
            found = _take(queue, cache, errors, project)
            if found is not None:
                yield found
    finally:
        if pool is not None:
            _stop_pool(pool, [outcome for _, outcome, _ in queue if isinstance(outcome, Future)])


def extract_in_workers(project: Project, *, want_text: bool, cache: Cache | None, errors: list[str]) -> Iterator[tuple[str, Document]]:
    """`documents.iter_documents` for an offline check: files are read and scanned by worker
    processes, a batch of files a task (`batches`), at most AHEAD_BYTES of source ahead of the
    one this process takes next (no event loop: it waits)."""
    from concurrent.futures.process import BrokenProcessPool

    errors.extend(project.errors)
    markdown = markdown_setup(project)
    # A worker per core, though this process builds and checks on one of them: on 2 cores,
    # fastapi's docs (rendering heavy, checking light) took 9.0-9.4 s with one worker and
    # 6.3-7.1 s with two; python3.11-doc (the reverse) the same 6.4-6.8 s either way.
    workers = min(usable_cpus(), MAX_WORKERS)
    pool: ProcessPoolExecutor | None = None
    queue: deque[tuple[Path, _Part | Outcome, str]] = deque()
    misses = 0

    broken = False  # a worker died: said once

    def take() -> tuple[str, Document] | None:
        nonlocal broken
        path, outcome, key = queue[0]  # taken off once its outcome is there: the batch awaited is one the stop ends
        if isinstance(outcome, _Part):
            try:
                outcome = received(path, outcome.batch.result()[outcome.place])
            except BrokenProcessPool:  # a worker died (killed, out of memory): the files it had are parsed here
                if not broken:
                    log.warning("extraction worker stopped; parsing the remaining files in this process")
                    broken = True
                outcome = extract_file(path, want_text, markdown)
        queue.popleft()
        remember_outcome(cache, key, outcome)
        return accept_outcome(project, path, outcome, errors)

    sizes: dict[Path, int] = {}
    queued = 0  # bytes of source in `queue`

    try:
        for files in batches(project.files, sizes):
            entries: list[tuple[Path, Outcome | None, str]] = []  # None: the file goes to a worker
            for path in files:
                key = extraction_key(path, want_text, markdown) if cache is not None else ""
                outcome = cached_outcome(cache, key)
                if outcome is not None:
                    entries.append((path, outcome, ""))  # already in the cache
                    continue
                misses += 1
                if pool is None and misses >= MIN_MISSES:  # a warm cache with a few changed files: no workers
                    pool = _start_pool(workers)
                to_worker = pool is not None and not getattr(pool, "_broken", False)
                entries.append((path, None if to_worker else extract_file(path, want_text, markdown), key))
            sent = [path for path, outcome, _ in entries if outcome is None]
            if sent:
                assert pool is not None
                batch = pool.submit(extract_all_to_send, sent, want_text, markdown)
                places = iter(range(len(sent)))
                queue.extend((path, _Part(batch, next(places)) if outcome is None else outcome, key) for path, outcome, key in entries)
            else:
                queue.extend((path, outcome, key) for path, outcome, key in entries if outcome is not None)
            queued += sum(sizes[path] for path in files)
            while queue and (queued > AHEAD_BYTES or not isinstance(queue[0][1], _Part)):
                queued -= sizes[queue[0][0]]
                found = take()
                if found is not None:
                    yield found
        while queue:
            found = take()
            if found is not None:
                yield found
    finally:
        if pool is not None:
            waiting = {outcome.batch for _, outcome, _ in queue if isinstance(outcome, _Part)}
            _stop_pool(pool, list(waiting))


def batches(files: list[Path], sizes: dict[Path, int]) -> Iterator[list[Path]]:
    """`files` in order, cut into the tasks of `extract_in_workers` (see BATCH); each file's size
    is noted in `sizes` (0 when it cannot be read: its reading says why)."""
    batch: list[Path] = []
    held = 0
    for path in files:
        try:
            size = sizes[path] = os.stat(path).st_size
        except OSError:
            size = sizes[path] = 0
        batch.append(path)
        held += size
        if len(batch) >= BATCH_MOST or (len(batch) >= BATCH and held >= BATCH_BYTES):
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def _start_pool(workers: int) -> ProcessPoolExecutor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(_START_METHOD), initializer=_ignore_interrupts)


class _Part(NamedTuple):
    """A file's place in the answer of the worker task that extracts its batch."""

    batch: Future[list[Sent]]
    place: int


def extract_all_to_send(paths: list[Path], want_text: bool, markdown: MarkdownSetup | None) -> list[Sent]:
    """Runs in a worker: `extract_to_send` for each of `paths` (one task, one answer: a task per
    file cost this process a wake-up of the pool's threads each, 7% of python3.11-doc's check)."""
    return [extract_to_send(path, want_text, markdown) for path in paths]


def _take(queue: _Queue, cache: Cache | None, errors: list[str], project: Project) -> tuple[str, Document] | None:
    from concurrent.futures import Future  # loaded already: the worker runs

    path, outcome, key = queue.popleft()
    assert not isinstance(outcome, Future), "a file is taken only once its outcome is there"
    remember_outcome(cache, key, outcome)
    return accept_outcome(project, path, outcome, errors)


def _stop_pool(pool: ProcessPoolExecutor, waiting: list[Future[Any]]) -> None:
    """Stop `pool`, whose `waiting` files were not taken, and wait for it to end. Files not
    started are dropped; while any is being parsed, the workers are killed at once: its outcome
    is not wanted any more, and a page can take a parser hours (SIGTERM while a worker rendered
    a hostile page waited for its 15 s bound). The pool's own thread cancels the files not
    started (`cancel_futures`): one cancelled here, in the moment the pool's thread sees a
    killed worker, made that thread fail with InvalidStateError and print its traceback
    (CPython 3.11). Waited for: a pool left to wind down on its own races the interpreter's exit
    hook, which then writes to the pool's closed wake-up pipe and prints a traceback (CPython
    3.11, seen on SIGTERM)."""
    if any(future.running() for future in waiting):
        _end_workers(pool)
    pool.shutdown(wait=True, cancel_futures=True)


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """Kill `pool`'s workers. One killed while it sends a page back leaves half a message in the
    answers' pipe, and the pool's own thread, reading it, would wait for the rest for ever
    (SIGTERM on an offline check of python3.11-doc hung so): this process's end for writing to
    that pipe is closed too, so that once the workers' ends are gone with them the reader sees
    the pipe's end. The executor has no public way to do either."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.kill()
    answers = getattr(pool, "_result_queue", None)
    writer = getattr(answers, "_writer", None)
    if writer is not None:
        writer.close()


def _ready() -> None:
    """Runs in the worker: its first task, done once the worker has imported this module."""


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group; the parent stops the worker itself. A forked
    # worker would otherwise also run the parent's SIGTERM handler (cli._Terminated).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
