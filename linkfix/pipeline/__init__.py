"""The check pipeline: sources -> extract -> resolve -> check (local, then external) -> recover.

`run_check` is the one entry point the CLI, the demo and the public API (`check_links`) share;
`check_documents` checks documents extracted elsewhere (a crawl, a build's rendered pages).
The steps it runs live beside it: `resolve` (a document's links as they will be checked),
`external` (the run's URLs handed to its client, recovery), `crawl` (--crawl), `collection`
(when the garbage collector runs).
"""

from __future__ import annotations

__all__ = ["check_documents", "check_links", "check_links_async", "keep_rare_collection", "rare_collection", "run_check"]

import logging
import posixpath
import time
import types
from collections.abc import AsyncGenerator, Callable, Generator, Iterable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..check.filter import LinkFilter
from ..check.gather import Gathered
from ..check.local import LocalChecker
from ..check.session import RunSession
from ..check.stylesheets import Stylesheets
from ..config import Config
from ..errors import InputError
from ..extract.documents import Documents, iter_documents, stdin_document
from ..extract.pages import SitePages
from ..files.read import display_path
from ..inputs.changed import Changes
from ..inputs.sources import Project, collect, text_project
from ..model import CheckResult, Document, Report, Scope
from .collection import keep_rare_collection, rare_collection
from .external import ExternalChecks, recover_broken
from .resolve import Keep, keep_for, resolve_links

if TYPE_CHECKING:
    from aiohttp.abc import AbstractResolver

    from ..check.http import Progress
    from ..recover.run import RunStats

    class RunProgress(Progress, Protocol):
        """Where a run reports its progress: the files read too (extraction is most of a
        large offline run), besides the checker's URLs."""

        def files(self, done: int, total: int) -> None:
            """`done` of the `total` input files are read."""

log = logging.getLogger(__name__)


_HAND_OVER_SECONDS = 0.005  # extraction yields to the checker at least this often


async def run_check(
    inputs: Sequence[str],
    config: Config,
    *,
    resolver: AbstractResolver | None = None,
    progress: RunProgress | None = None,
    project: Project | None = None,
    changed: Changes | None = None,
    link_times: Mapping[str, datetime] | None = None,
    on_recovery: Callable[[RunStats], None] | None = None,
    stdin_text: str | None = None,
    session: RunSession | None = None,
    keep_all: bool = True,
) -> Report:
    """Check every link of `inputs`; attach suggestions for broken links on request.

    With `changed` (--changed-since), only links on changed lines of changed files are checked.
    `link_times` (URL as written -> when it was written) overrides git blame for recovery's
    archive lookups; `on_recovery` receives recovery's counters (recover.run.RunStats).
    `stdin_text`: a document read from stdin, checked first (`-` in reports). `session`: the
    cache and HTTP client of a run that goes on after the check (`fix`), else the check's own
    (with `resolver` and `progress`), closed at its end. `keep_all`: see `check_documents`.
    """
    started = time.time()
    if project is None:
        project = collect(list(inputs), config) if inputs or stdin_text is None else text_project(config)
    keep: Keep | None = None
    if changed is not None and changed.deleted:
        # Links to a deleted page live in files the change did not touch: every file is read,
        # and a link is kept when it is on a changed line or leads to a deleted file.
        keep = keep_for(changed, project)
    elif changed is not None:
        project = replace(project, files=changed.select_files(project.files))
    own = session is None
    session = session or RunSession(config, resolver=resolver, progress=progress)
    with rare_collection():
        cache = session.stored_cache
        try:
            errors: list[str] = []
            documents: Documents
            if changed is not None and keep is None:
                documents = changed.filter_documents(iter_documents(project, want_text=config.suggest, cache=cache, errors=errors), project.root)
            else:
                from ..extract.worker import extraction_for

                documents = extraction_for(project, config)(project, want_text=config.suggest, cache=cache, errors=errors)
            if stdin_text is not None:
                documents = _after(stdin_document(stdin_text, want_text=config.suggest), documents)
            # The config's nav is checked when the config itself is the input (not per changed file).
            given_config = project.mkdocs is not None and [Path(i).resolve() for i in inputs] == [project.mkdocs.config_file.resolve()]
            nav = project.mkdocs is not None and (keep is not None or (changed is None and given_config))
            if nav:
                from ..check.mkdocs_nav import nav_documents  # the nav's entries: read after the pages they name

                documents = _then(documents, nav_documents(project))
            report = await check_documents(documents, project, config, session=session, progress=progress, errors=errors, started=started,
                                           link_times=link_times, on_recovery=on_recovery, keep_all=keep_all, keep=keep,
                                           stylesheets=changed is None and not project.markdown and project.mkdocs is None)
            if not report.files and project.files and changed is None:
                # Nothing read is not "no broken links" (--changed-since with no change is).
                raise InputError(f"none of the {len(project.files)} files could be read"
                                 + (f": {'; '.join(errors[:3])}" if errors else ""))
            return report
        finally:
            if own:
                await session.close()


async def check_links_async(inputs: Sequence[str], config: Config | None = None) -> Report:
    """Check every link of `inputs` (directories, files, a mkdocs.yml), as `linkfix check` does."""
    return await run_check(list(inputs), config or Config())


def check_links(inputs: Sequence[str], config: Config | None = None) -> Report:
    """`check_links_async` for a caller without an event loop."""
    import asyncio

    return asyncio.run(check_links_async(inputs, config))


async def check_documents(
    documents: Documents,
    project: Project,
    config: Config,
    *,
    session: RunSession | None = None,
    progress: RunProgress | None = None,
    errors: Sequence[str] = (),
    started: float | None = None,
    known: Mapping[str, CheckResult] | None = None,
    link_times: Mapping[str, datetime] | None = None,
    on_recovery: Callable[[RunStats], None] | None = None,
    keep_all: bool = True,
    keep: Keep | None = None,
    stylesheets: bool = False,
) -> Report:
    """Check extracted documents (keyed by root-relative path) against `project`.

    `documents` may be lazy (`iter_documents`, `extract_in_workers`, or asynchronous:
    `extract_in_worker`): each
    document's external URLs are handed to the checker as soon as it is extracted, so that the
    hosts are busy while the rest is extracted. `errors` may still grow meanwhile: it is read at the end. `known` holds results
    already established for some external URLs (pages a crawl fetched), so that they are not
    requested twice. `session` holds the run's cache and HTTP client (with its request budget),
    shared by the checks and recovery; without one, they get their own. `progress` hears of the
    files read (the session's, of the URLs checked). `keep_all=False`: a working internal link's result, and a
    link not checked, are only counted (`Report.counted`: what no report but JSON and JUnit lists).
    `keep`: which resolved links are checked at all (--changed-since with deleted files).
    `stylesheets`: the site's `.css` files the documents link to are checked after them (check/stylesheets.py).
    """
    if session is None:
        async with RunSession(config, progress=progress) as own:
            return await check_documents(documents, project, config, session=own, progress=progress, errors=errors, started=started,
                                         known=known, link_times=link_times, on_recovery=on_recovery, keep_all=keep_all, keep=keep,
                                         stylesheets=stylesheets)
    started = time.time() if started is None else started
    pages = SitePages(project)  # those read here, and any other a #fragment or a suggestion names
    pages_read = 0
    local = LocalChecker(project, config, pages, LinkFilter.for_run(config))
    known = dict(known or {})
    gathered = Gathered(local, offline=config.offline, known=known, keep_all=keep_all or config.suggest)
    page_rels: dict[str, str] = {}  # a page's path as links name it -> its root-relative path
    external = ExternalChecks(config, session, skip=known)
    handed_over = time.perf_counter()
    files_read, files_total = 0, len(project.files)
    styles = Stylesheets(local, read=stylesheets)
    async with aclosing(styles.after(_each(documents))) as stream:
        async for rel, doc in stream:
            if progress is not None and files_read < files_total:
                files_read += 1
                progress.files(files_read, files_total)
            if doc.is_nav:
                # Nav entries read as written on the index page of their directory: what suggestions
                # for them are relative to. The config is no page of the site.
                page_rels[doc.page.path] = posixpath.join("" if Path(rel).is_absolute() else posixpath.dirname(rel), "index.md")
            else:
                pages[rel] = doc.page
                pages_read += 1
                page_rels[doc.page.path] = rel
            links, targets = resolve_links(rel, doc, local)
            if keep is not None:
                page = Path(rel) if Path(rel).is_absolute() else project.root / rel
                kept = [i for i, (link, target) in enumerate(zip(links, targets, strict=True)) if keep(page, link, target)]
                links, targets = [links[i] for i in kept], [targets[i] for i in kept]
            styles.note(targets)
            gathered.page_read(rel)
            gathered.add(links, targets)
            external.add_many(target.resolved for target in targets if target.scope is Scope.EXTERNAL and target.result is None)
            if time.perf_counter() - handed_over > _HAND_OVER_SECONDS:
                await _pass_turn()  # let the checker send requests and read answers
                handed_over = time.perf_counter()
    external_results = known | await external.results()
    session.checks_done()

    results = gathered.finish(external_results)

    if config.suggest:
        # Internal links: from the project itself (its git history, redirect_maps, names), offline too.
        from ..recover.internal_links.suggest import suggest_all

        results = suggest_all(results, local, page_rels)
    if config.suggest and not config.offline:
        results = await recover_broken(results, config, session, link_times=link_times, on_recovery=on_recovery)

    return Report(
        results=tuple(results),
        counted=dict(gathered.counted),
        excluded_reasons=dict(gathered.excluded_reasons),
        root=display_path(project.root),
        started=datetime.fromtimestamp(started, UTC).isoformat(timespec="seconds"),
        duration=round(time.time() - started, 3),
        files=pages_read,
        errors=(*errors, *styles.errors),
        rules=_rules(project),
    )


def _rules(project: Project) -> str:
    """"Zensical's rules (zensical.toml)": whose rules resolved a family project's links."""
    mk = project.mkdocs
    if mk is None:
        return ""
    name = mk.dialect.name
    return f"{name}{chr(39) if name.endswith('s') else chr(39) + 's'} rules ({mk.generator_why or mk.config_file.name})"


@types.coroutine
def _pass_turn() -> Generator[None, None, None]:
    """What `asyncio.sleep(0)` is (a bare yield: the loop runs the other tasks once), without
    importing asyncio: an offline check runs with no event loop at all (cli.commands.check)."""
    yield


async def _then(documents: Documents, last: Iterable[tuple[str, Document]]) -> AsyncGenerator[tuple[str, Document], None]:
    """`documents`, then `last`."""
    async with aclosing(_each(documents)) as first:
        async for item in first:
            yield item
    for item in last:
        yield item


async def _after(first: tuple[str, Document], documents: Documents) -> AsyncGenerator[tuple[str, Document], None]:
    """`first`, then `documents`."""
    yield first
    async with aclosing(_each(documents)) as rest:
        async for item in rest:
            yield item


async def _each(documents: Documents) -> AsyncGenerator[tuple[str, Document], None]:
    """Documents from a plain or an asynchronous source, alike."""
    if isinstance(documents, AsyncGenerator):
        async with aclosing(documents):
            async for item in documents:
                yield item
    else:
        for item in documents:
            yield item


