"""The check pipeline: sources -> extract -> resolve -> check (local, then external) -> recover.

`run_check` is the one entry point the CLI, the mkdocs plugin and the demo share.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import os
import time
from contextlib import aclosing
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, AsyncIterator, Iterable, Iterator, Mapping, Sequence

from markdown_it.common.utils import unescapeAll

from . import gc_policy
from .cache import Cache
from .changed import Changes
from .check.local import LocalChecker, Target
from .config import Config, parse_duration
from .extract import extract_html, extract_markdown
from .gittime import link_times
from .model import CheckResult, Document, LinkResult, Page, Report, Scope, Status
from .sources import MARKDOWN_SUFFIXES, Project, collect

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 64 * 1024 * 1024  # larger "documentation" is almost surely not documentation
_HAND_OVER_SECONDS = 0.005  # extraction yields to the checker at least this often
_SNIFF_BYTES = 8192


class Unreadable(Exception):
    """A source that cannot be extracted; the message says why in a few words."""


def read_source(path: Path) -> tuple[str, str]:
    """Text of a source file and a warning ('' when clean). Raises Unreadable."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise Unreadable(f"file too large ({size // (1024 * 1024)} MB > {MAX_FILE_BYTES // (1024 * 1024)} MB)")
        data = path.read_bytes()
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from exc
    if b"\0" in data[:_SNIFF_BYTES]:
        raise Unreadable("binary file (NUL bytes), not a text document")
    try:
        return data.decode("utf-8-sig"), ""
    except UnicodeDecodeError as exc:
        # Still check it (links are usually ASCII) but say so; the fixer refuses to edit it.
        warning = f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); read with replacement characters"
        return data.decode("utf-8-sig", errors="replace"), warning


def extract_document(path: Path, text: str, *, want_text: bool) -> Document:
    display = _display_path(path)
    if path.suffix.lower() in MARKDOWN_SUFFIXES:
        return extract_markdown(text, display)
    return extract_html(text, display, want_text=want_text)


def _as_is(url: str) -> str:
    return url


def _display_path(path: Path) -> str:
    """Paths in reports are relative to the working directory when they are under it."""
    try:
        return os.path.relpath(path) if Path(os.path.relpath(path)).parts[:1] != ("..",) else str(path)
    except ValueError:
        return str(path)


def extract_project(project: Project, *, want_text: bool, cache: Cache | None = None) -> tuple[list[tuple[str, Document]], list[str]]:
    """Every input file extracted, keyed by its root-relative path; and the read errors."""
    errors: list[str] = []
    documents = list(iter_documents(project, want_text=want_text, cache=cache, errors=errors))
    return documents, errors


def iter_documents(project: Project, *, want_text: bool, cache: Cache | None, errors: list[str]) -> Iterator[tuple[str, Document]]:
    """Extract the input files one by one (lazily: `check_documents` starts checking a file's
    external links while the next ones are extracted), appending read errors to `errors`.
    `extract_worker` does the same with the parsing in a second process."""
    errors.extend(project.errors)
    for path in project.files:
        key = extraction_key(path, want_text) if cache is not None else ""
        outcome = cached_outcome(cache, key)
        if outcome is None:
            outcome = extract_file(path, want_text)
            remember_outcome(cache, key, outcome)
        document = accept_outcome(project, path, outcome, errors)
        if document is not None:
            yield document


Outcome = tuple[Document, str] | str  # (document, warning) for one file, or why it could not be read


def accept_outcome(project: Project, path: Path, outcome: Outcome, errors: list[str]) -> tuple[str, Document] | None:
    """(root-relative key, document) for a file's extraction; problems go to `errors`."""
    if isinstance(outcome, str):
        errors.append(f"{_display_path(path)}: {outcome}")
        log.warning("skipping %s: %s", path, outcome)
        return None
    document, warning = outcome
    if warning:
        errors.append(f"{_display_path(path)}: {warning}")
        log.warning("%s: %s", path, warning)
    return project.relative(path) or path.resolve().as_posix(), document


def cached_outcome(cache: Cache | None, key: str) -> Outcome | None:
    """A file's extraction from an earlier run: the file's bytes (and display path, and the
    extractor's own code) are unchanged. On a warm run over an unchanged site, extraction was
    most of the time left. Only successful extractions are kept."""
    if cache is None or not key:
        return None
    outcome = cache.get(EXTRACT_NAMESPACE, key)
    return outcome if isinstance(outcome, tuple) and outcome and isinstance(outcome[0], Document) else None


def remember_outcome(cache: Cache | None, key: str, outcome: Outcome) -> None:
    """Keep a successful extraction for `cached_outcome` in later runs."""
    if cache is not None and key and not isinstance(outcome, str):
        cache.set(EXTRACT_NAMESPACE, key, outcome, cache.max_age)


EXTRACT_NAMESPACE = "extract"


def extraction_key(path: Path, want_text: bool) -> str:
    """Digest of what the extraction depends on, or "" when the file cannot be read."""
    try:
        data = path.read_bytes() if path.stat().st_size <= MAX_FILE_BYTES else b""
    except OSError:
        return ""
    if not data:
        return ""
    digest = hashlib.blake2b(data, digest_size=20)
    digest.update(f"\0{_display_path(path)}\0{want_text}\0{_extractor_fingerprint()}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def _extractor_fingerprint() -> str:
    """Changes whenever the code that turns a file into a Document changes (no stale parses
    after an upgrade or a local edit)."""
    here = Path(__file__).resolve().parent
    digest = hashlib.blake2b(digest_size=16)
    for source in sorted([here / "runner.py", here / "model.py", *(here / "extract").glob("*.py")]):
        try:
            digest.update(source.read_bytes())
        except OSError:
            digest.update(source.name.encode())
    return digest.hexdigest()


def extract_file(path: Path, want_text: bool) -> Outcome:
    """(document, warning) for one file, or why it could not be read."""
    try:
        text, warning = read_source(path)
    except Unreadable as exc:
        return str(exc)
    return extract_document(path, text, want_text=want_text), warning


def _page_loader(project: Project):
    """Extracts a target page on demand (a fragment check into a file not among the inputs)."""

    def load(rel: str) -> Page | None:
        path = project.root / rel
        try:
            text, _ = read_source(path)
        except Unreadable:
            return None
        return extract_document(path, text, want_text=False).page

    return load


def open_cache(config: Config) -> Cache:
    directory = config.path(config.cache_dir) if config.cache and not config.offline else None
    return Cache(directory, max_age=parse_duration(config.max_cache_age, "max_cache_age"))


async def run_check(
    inputs: Sequence[str],
    config: Config,
    *,
    resolver: Any = None,
    progress: bool = False,
    project: Project | None = None,
    changed: Changes | None = None,
) -> Report:
    """Check every link of `inputs`; attach suggestions for broken external links on request.

    With `changed` (--changed-since), only links on changed lines of changed files are checked.
    """
    started = time.time()
    project = project or collect(list(inputs), config)
    if changed is not None:
        project = replace(project, files=changed.select_files(project.files))
    with gc_policy.rare_collection():
        cache = open_cache(config) if config.cache and not config.offline else None
        try:
            errors: list[str] = []
            documents: Iterable[tuple[str, Document]] | AsyncIterator[tuple[str, Document]]
            if changed is not None:
                documents = changed.filter_documents(iter_documents(project, want_text=config.suggest, cache=cache, errors=errors), project.root)
            else:
                from .extract_worker import extract_in_worker, worth_a_worker

                extract = extract_in_worker if worth_a_worker(project, config) else iter_documents
                documents = extract(project, want_text=config.suggest, cache=cache, errors=errors)
            return await check_documents(documents, project, config, resolver=resolver, progress=progress,
                                         errors=errors, started=started, cache=cache)
        finally:
            if cache is not None:
                cache.close()


async def check_documents(
    documents: Iterable[tuple[str, Document]] | AsyncIterator[tuple[str, Document]],
    project: Project,
    config: Config,
    *,
    resolver: Any = None,
    progress: bool = False,
    errors: Sequence[str] = (),
    started: float | None = None,
    known: Mapping[str, CheckResult] | None = None,
    cache: Cache | None = None,
) -> Report:
    """Check extracted documents (keyed by root-relative path) against `project`.

    `documents` may be lazy (`iter_documents`, or asynchronous: `extract_in_worker`): each
    document's external URLs are handed to the checker as soon as it is extracted, so that the
    hosts are busy while the rest is extracted. `errors` may still grow meanwhile: it is read at the end. `known` holds results
    already established for some external URLs (pages a crawl fetched), so that they are not
    requested twice. `cache` is the run's open cache, else one is opened for the checks.
    """
    started = time.time() if started is None else started
    pages: dict[str, Page] = {}
    local = LocalChecker(project, config, pages, _page_loader(project))
    known = dict(known or {})
    placed: list[tuple[Any, Target]] = []
    async with _ExternalChecks(config, resolver=resolver, progress=progress, skip=known, cache=cache) as external:
        handed_over = time.perf_counter()
        async with aclosing(_each(documents)) as stream:
            async for rel, doc in stream:
                pages[rel] = doc.page
                # Markdown keeps targets as written (`a\)b`, `&amp;`); what is checked is what renders.
                decode = unescapeAll if Path(rel).suffix.lower() in MARKDOWN_SUFFIXES else _as_is
                resolve = local.resolver_for(doc.page, rel)
                found = [(link, resolve(decode(link.url))) for link in doc.links]
                placed.extend(found)
                external.add_many(target.resolved for _, target in found if target.scope is Scope.EXTERNAL)
                if time.perf_counter() - handed_over > _HAND_OVER_SECONDS:
                    await asyncio.sleep(0)  # let the checker send requests and read answers
                    handed_over = time.perf_counter()
        external_results = known | await external.results()

    results: list[LinkResult] = []
    offline = CheckResult(url="", status=Status.EXCLUDED, reason="offline", detail="external link not checked (--offline)")
    for link, target in placed:
        if target.scope is Scope.EXTERNAL:
            result = external_results.get(target.resolved) or replace(offline, url=target.resolved)
        else:
            result = local.check(target)
        results.append(LinkResult(link=link, resolved=target.resolved, scope=target.scope, result=result))

    if config.suggest and not config.offline:
        results = await _recover(results, config, resolver=resolver)

    return Report(
        results=tuple(results),
        root=_display_path(project.root),
        started=datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
        duration=round(time.time() - started, 3),
        files=len(pages),
        errors=tuple(errors),
    )


class _ExternalChecks:
    """The external URLs of a run, each handed to the HTTP checker (once) as it turns up."""

    def __init__(self, config: Config, *, resolver: Any, progress: bool, skip: Mapping[str, CheckResult], cache: Cache | None) -> None:
        self.config = config
        self._resolver = resolver
        self._progress = progress
        self._skip = skip
        self._cache = cache
        self._own_cache: Cache | None = None
        self._checker: Any = None  # HttpChecker, started with the first URL
        self._targets: dict[str, tuple[str, str]] = {}

    async def __aenter__(self) -> "_ExternalChecks":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            if self._checker is not None:
                await self._checker.__aexit__(*exc_info)
        finally:
            if self._own_cache is not None:
                self._own_cache.close()

    def add_many(self, urls: Iterable[str]) -> None:
        """Hand new URLs to the checker (their cache records read in one go)."""
        if self.config.offline:
            return
        new = [url for url in dict.fromkeys(urls) if url not in self._targets and url not in self._skip]
        if not new:
            return
        if self._checker is None:
            self._start()
        targets = [_split_fragment(url, self.config) for url in new]
        self._checker.cache.preload(base for base, _ in targets)
        for url, target in zip(new, targets):
            self._targets[url] = target
            self._checker.submit(*target)

    def _start(self) -> None:
        from .check.http import HttpChecker  # aiohttp loads only when there is a URL to check

        cache = self._cache
        if cache is None:
            cache = self._own_cache = open_cache(self.config)
        self._checker = HttpChecker(self.config, cache, resolver=self._resolver, progress=self._progress)
        self._checker.open()

    async def results(self) -> dict[str, CheckResult]:
        if self._checker is None:
            return {}
        outcome = await self._checker.results(self._targets.values())
        return {url: outcome[target] for url, target in self._targets.items()}


async def _each(documents: Iterable[tuple[str, Document]] | AsyncIterator[tuple[str, Document]]) -> AsyncIterator[tuple[str, Document]]:
    """Documents from a plain or an asynchronous source, alike."""
    if hasattr(documents, "__aiter__"):
        async with aclosing(documents):  # type: ignore[type-var]
            async for item in documents:  # type: ignore[union-attr]
                yield item
    else:
        for item in documents:  # type: ignore[union-attr]
            yield item


def _split_fragment(url: str, config: Config) -> tuple[str, str]:
    base, _, fragment = url.partition("#")
    return (base, fragment if config.include_fragments else "")


async def _recover(results: list[LinkResult], config: Config, *, resolver) -> list[LinkResult]:
    from .check.http import HttpChecker
    from .recover.pipeline import recover_all

    if not any(r.failing and r.scope is Scope.EXTERNAL for r in results):
        return results
    cache = open_cache(config)
    try:
        async with HttpChecker(config, cache, resolver=resolver) as client:
            broken = [r for r in results if r.failing and r.scope is Scope.EXTERNAL]
            return list(await recover_all(results, config=config, client=client, cache=cache,
                                          link_times=link_times(broken)))
    finally:
        cache.close()
