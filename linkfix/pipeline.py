"""The check pipeline: sources -> extract -> resolve -> check (local, then external) -> recover.

`run_check` is the one entry point the CLI, the demo and the public API (`check_links`) share;
`check_documents` checks documents extracted elsewhere (a crawl, a build's rendered pages).
"""

from __future__ import annotations

import gc
import logging
import time
import types
from collections.abc import AsyncGenerator, Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import aclosing, contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .check.gather import Gathered
from .check.ignore import Ignores
from .check.local import LocalChecker
from .check.remap import Remap
from .check.session import RunSession
from .check.targets import Target
from .config import Config
from .config.durations import say_duration
from .errors import InputError, NetworkDownError
from .extract.documents import Documents, iter_documents, page_loader, stdin_document
from .files.read import display_path
from .formats.html.scanned import ScannedLinks
from .formats.markdown.gfm import is_gfm_www
from .formats.markdown.targets import markdown_target
from .inputs.changed import Changes
from .inputs.sources import MARKDOWN_SUFFIXES, Project, collect, text_project
from .model import CheckResult, Document, Link, LinkKind, LinkResult, Page, Reason, Report, Scope, Status
from .recover.gittime import link_times as git_link_times

if TYPE_CHECKING:
    from aiohttp.abc import AbstractResolver

    from .check.crawl import Crawl, CrawlLimits
    from .check.http import Progress
    from .recover.run import RunStats

    class RunProgress(Progress, Protocol):
        """Where a run reports its progress: the files read too (extraction is most of a
        large offline run), besides the checker's URLs."""

        def files(self, done: int, total: int) -> None:
            """`done` of the `total` input files are read."""

log = logging.getLogger(__name__)


_HAND_OVER_SECONDS = 0.005  # extraction yields to the checker at least this often

# When Python's cyclic garbage collector runs during a check. Extraction and checking allocate a
# million small acyclic objects; the collector, run every 700 allocations by default, would scan
# them again and again (a fifth of an offline check). During a run, instead: the young
# generation every 50,000 allocations (each pause scans only those, ~30 ms, while answers wait in
# the event loop), the older generations not at all (hundreds of thousands of live objects:
# pauses of ~0.5 s). Cycles that outlive a young collection wait for the end of the run.
GC_THRESHOLDS = (50_000, 1000, 1000)


@contextmanager
def rare_collection() -> Iterator[None]:
    """GC_THRESHOLDS for the duration; the previous ones after (for a library caller: a mkdocs
    build or serve process)."""
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def keep_rare_collection() -> None:
    """A command-line run lives only for its command: keep GC_THRESHOLDS to its end. Setting
    the defaults back after the check made the next allocations (the report's) pay for a
    collection of everything the check left alive: 0.15-0.3 s on 10k links, for nothing, as
    the process exits right after."""
    gc.set_threshold(*GC_THRESHOLDS)


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
    keep: _Keep | None = None
    if changed is not None and changed.deleted:
        # Links to a deleted page live in files the change did not touch: every file is read,
        # and a link is kept when it is on a changed line or leads to a deleted file.
        keep = _keep_for(changed, project)
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
                from .extract.worker import extraction_for

                documents = extraction_for(project, config)(project, want_text=config.suggest, cache=cache, errors=errors)
            if stdin_text is not None:
                documents = _after(stdin_document(stdin_text, want_text=config.suggest), documents)
            # The config's nav is checked when the config itself is the input (not per changed file).
            given_config = project.mkdocs is not None and [Path(i).resolve() for i in inputs] == [project.mkdocs.config_file.resolve()]
            nav = project.mkdocs is not None and (keep is not None or (changed is None and given_config))
            report = await check_documents(documents, project, config, session=session, progress=progress, errors=errors, started=started,
                                           link_times=link_times, on_recovery=on_recovery, nav=nav, keep_all=keep_all, keep=keep)
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
    nav: bool = False,
    keep_all: bool = True,
    keep: _Keep | None = None,
) -> Report:
    """Check extracted documents (keyed by root-relative path) against `project`.

    `documents` may be lazy (`iter_documents`, `extract_in_workers`, or asynchronous:
    `extract_in_worker`): each
    document's external URLs are handed to the checker as soon as it is extracted, so that the
    hosts are busy while the rest is extracted. `errors` may still grow meanwhile: it is read at the end. `known` holds results
    already established for some external URLs (pages a crawl fetched), so that they are not
    requested twice. `session` holds the run's cache and HTTP client (with its request budget),
    shared by the checks and recovery; without one, they get their own. `progress` hears of the
    files read (the session's, of the URLs checked). `nav`: the MkDocs config's nav entries are
    checked too (check/mkdocs_nav.py). `keep_all=False`: a working internal link's result, and a
    link not checked, are only counted (`Report.counted`: what no report but JSON and JUnit lists).
    `keep`: which resolved links are checked at all (--changed-since with deleted files).
    """
    if session is None:
        async with RunSession(config, progress=progress) as own:
            return await check_documents(documents, project, config, session=own, progress=progress, errors=errors, started=started,
                                         known=known, link_times=link_times, on_recovery=on_recovery, nav=nav, keep_all=keep_all, keep=keep)
    started = time.time() if started is None else started
    pages: dict[str, Page] = {}
    local = LocalChecker(project, config, pages, page_loader(project))
    known = dict(known or {})
    gathered = Gathered(local, offline=config.offline, known=known, keep_all=keep_all or config.suggest)
    page_rels: dict[str, str] = {}  # a page's path as links name it -> its root-relative path
    ignores = Ignores.load(config)
    external = _ExternalChecks(config, session, skip=known)
    handed_over = time.perf_counter()
    files_read, files_total = 0, len(project.files)
    async with aclosing(_each(documents)) as stream:
        async for rel, doc in stream:
            if progress is not None and files_total:
                files_read += 1
                progress.files(files_read, files_total)
            pages[rel] = doc.page
            page_rels[doc.page.path] = rel
            links, targets = resolve_links(rel, doc, local, ignores)
            if keep is not None:
                page = Path(rel) if Path(rel).is_absolute() else project.root / rel
                kept = [i for i, (link, target) in enumerate(zip(links, targets, strict=True)) if keep(page, link, target)]
                links, targets = [links[i] for i in kept], [targets[i] for i in kept]
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
        from .recover.internal_links.suggest import suggest_all

        results = suggest_all(results, local, page_rels)
    if config.suggest and not config.offline:
        results = await _recover(results, config, session, link_times=link_times, on_recovery=on_recovery)
    if nav:
        from .check.mkdocs_nav import nav_results

        results.extend(r for r in nav_results(project, local)
                       if keep is None or keep(Path(r.link.span.path).resolve(), r.link, Target(r.scope, r.resolved)))

    return Report(
        results=tuple(results),
        counted=dict(gathered.counted),
        root=display_path(project.root),
        started=datetime.fromtimestamp(started, UTC).isoformat(timespec="seconds"),
        duration=round(time.time() - started, 3),
        files=len(pages),
        errors=tuple(errors),
        rules=_rules(project),
    )


class _Keep(Protocol):
    def __call__(self, page: Path, link: Link, target: Target) -> bool: ...


def _keep_for(changed: Changes, project: Project) -> _Keep:
    """--changed-since (or --staged) with deleted files: a link on a changed line of a changed
    file, or one that leads to a deleted file (as written, or at the URL a family build gave it)."""
    gone: set[str] = set()
    for path in changed.deleted:
        rel = project.relative(Path(path))
        if rel is None:
            continue
        gone.add(rel)
        if project.mkdocs_files is not None and project.mkdocs_files.is_page(rel):
            url = project.mkdocs_files.url(rel)
            gone.update({url, url.rstrip("/"), url + "index.html"} if url else {""})

    def keep(page: Path, link: Link, target: Target) -> bool:
        """`page`: the absolute path of the document the link was read from."""
        if target.scope is Scope.INTERNAL and target.resolved.partition("#")[0] in gone:
            return True
        return changed.covers(page, link.span.line)

    return keep


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


def resolve_links(rel: str, doc: Document, local: LocalChecker, ignores: Ignores) -> tuple[Sequence[Link], list[Target]]:
    """The links of `doc` (at root-relative `rel`) as they will be checked, and where each
    points: what renders (markdown keeps targets as written: `a\\)b`, `&amp;`), resolved from
    its page, or the `ignored` result an ignore comment or file gives it."""
    decode = _markdown_target if Path(rel).suffix.lower() in MARKDOWN_SUFFIXES else _link_as_is
    resolve = local.resolver_for(doc.page, rel)
    links = doc.links
    if isinstance(links, ScannedLinks) and local.templates is None and not (ignores.patterns or doc.silenced):
        # A scanned HTML page: resolved from its URLs, its Links made only for the results kept.
        return links, links.resolved(resolve)
    # Raw HTML in markdown is what MkDocs leaves as written whatever it names; a GitHub
    # `www.` autolink (only plain markdown has them: formats/markdown/gfm.py) goes to http://.
    # A link extraction says must not be checked (`Link.unverified`) is not even resolved. A link
    # the build made (no place in the source: an extension's, a hook's) is in Python-Markdown's
    # tree, where MkDocs rewrites links to docs files as it does Markdown links.
    # A macros template's target is checked as each value it renders to from the project's data.
    if local.templates is not None:
        links = local.templates.links(local.project.root / rel, doc)
    # (Zensical rewrites raw HTML links as it does Markdown ones: mkdocs.config.dialect.)
    raw_as_written = not (local.project.mkdocs is not None and local.project.mkdocs.dialect.rewrites_raw_html)
    if local.mkdocs_links is not None and rel in local.mkdocs_links.site.nav_documents:
        from .check.mkdocs_nav import nav_document_targets  # literate-nav's SUMMARY.md: its links are nav entries

        targets = nav_document_targets(local, doc.page, rel, links)
    else:
        targets = [_not_checked(link) if link.unverified else
                   resolve(f"http://{link.url}" if link.kind is LinkKind.BARE and is_gfm_www(link.url) else decode(link),
                           raw_as_written and link.kind is LinkKind.HTML and link.span.start != link.span.end) for link in links]
    if ignores.patterns or doc.silenced:
        targets = [ignores.target(link, target, doc.silenced) for link, target in zip(links, targets, strict=True)]
    return links, targets


def _markdown_target(link: Link) -> str:
    """What a markdown source's link points at: decoded as the page's renderer decodes a link
    of its kind (formats/markdown/targets.py)."""
    return markdown_target(link.url, link.kind, link.page.dialect)


def _link_as_is(link: Link) -> str:
    return link.url


class _ExternalChecks:
    """The external URLs of a run, each handed to the run's HTTP client (once) as it turns up."""

    def __init__(self, config: Config, session: RunSession, *, skip: Mapping[str, CheckResult]) -> None:
        self.config = config
        self._session = session
        self._skip = skip
        self._targets: dict[str, tuple[str, str]] = {}
        # Redirect targets come back in the space of `remap`'s rewritten requests; results
        # leave in the space of the documents (see check.remap).
        self._remap = Remap(config.remap)

    def add_many(self, urls: Iterable[str]) -> None:
        """Hand new URLs to the checker (their cache records read in one go)."""
        if self.config.offline:
            return
        new = [url for url in dict.fromkeys(urls) if url not in self._targets and url not in self._skip]
        if not new:
            return
        checker = self._session.client  # started with the first URL (aiohttp loads only then)
        targets = [_split_fragment(url, self.config) for url in new]
        if self._remap:
            self._remap.learn(base for base, _ in targets)
        checker.cache.preload(base for base, _ in targets)
        for url, target in zip(new, targets):
            self._targets[url] = target
            checker.submit(*target)

    async def results(self) -> dict[str, CheckResult]:
        """Every URL's result. A network found down stops the run (NetworkDownError, exit 2)
        unless `network_down: warn`: then the external links without a result from before (a
        fresh one in the cache, or a refusal) are reported not checked (an error, which fails
        no run), and the internal ones still decide."""
        if not self._targets:
            return {}
        try:
            outcome = await self._session.client.results(self._targets.values())
        except NetworkDownError as exc:
            if self.config.network_down != "warn":
                raise
            return self._without_network(exc)
        return {url: self._remap.result(outcome[target]) for url, target in self._targets.items()}

    def _without_network(self, down: NetworkDownError) -> dict[str, CheckResult]:
        results: dict[str, CheckResult] = {}
        cached: list[float] = []
        unchecked = 0
        for url, target in self._targets.items():
            known = self._session.client.known_result(*target)
            if known is not None:
                results[url] = self._remap.result(known)
                if known.from_cache:
                    cached.append(known.checked_at)
            else:
                unchecked += 1
                results[url] = CheckResult(url=url, status=Status.ERROR, reason=Reason.NETWORK_DOWN, checked_at=time.time(),
                                           detail=f"not checked: {down}")
        kept = f"; {len(cached)} from the cache, the oldest checked {say_duration(time.time() - min(cached))} ago" if cached else ""
        log.warning("%s; %d external link target%s reported as not checked%s (network_down: warn)",
                    down, unchecked, "" if unchecked == 1 else "s", kept)
        return results


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


def _not_checked(link: Link) -> Target:
    """A link extraction found must not be checked (`Link.unverified` says why): unverified."""
    return Target(scope=Scope.EXTERNAL, resolved=link.url, result=CheckResult(
        url=link.url, status=Status.UNVERIFIED, reason=Reason.INCLUDED_TEXT, detail=link.unverified))


def _split_fragment(url: str, config: Config) -> tuple[str, str]:
    base, _, fragment = url.partition("#")
    return (base, fragment if config.include_fragments else "")


async def _recover(results: list[LinkResult], config: Config, session: RunSession, *, link_times: Mapping[str, datetime] | None = None,
                   on_recovery: Callable[[RunStats], None] | None = None) -> list[LinkResult]:
    """Recovery through the run's client (what it learned of each host holds) and cache."""
    from .recover.run import recover_all

    broken = [r for r in results if r.failing and r.scope is Scope.EXTERNAL]
    if not broken:
        return results
    times = {**git_link_times(broken), **(link_times or {})}
    return list(await recover_all(results, config=config, client=session.client, cache=session.cache,
                                  link_times=times, on_recovery=on_recovery))


async def crawl_check(start: str, config: Config, limits: CrawlLimits, *, resolver: AbstractResolver | None = None,
                      progress: RunProgress | None = None) -> Report:
    """Crawl the site under `start`, then check every link found, like `run_check` does. The
    pages a stranger serves decide how many links there are: `limits` caps the links taken
    from one page and the requests of the whole run (crawl, checks and recovery together)."""
    from .check.crawl import budget_errors, crawl, obey_crawl_delay, read_robots, validate_start
    from .check.http import RequestBudget

    start = validate_start(start)
    if config.offline:
        raise InputError("--crawl reads a live site: it cannot run with --offline")
    if config.base_url:
        # base_url maps URLs to local files; a crawl has no local files, only the live site.
        log.info("--crawl: ignoring base_url %s", config.base_url)
        config = replace(config, base_url="")
    budget = RequestBudget(limits.max_requests, setting="--crawl-requests")
    # One client for the crawl, its checks and recovery: robots.txt first, whose Crawl-delay
    # then paces every request to the host.
    async with RunSession(config, resolver=resolver, progress=progress, budget=budget) as session:
        robots = await read_robots(session.client, start)
        obey_crawl_delay(session.client, start, robots)
        crawled = await crawl(session.client, start, limits, robots=robots, want_text=config.suggest, budget=budget)
        report = await _check_crawled(crawled, start, config, session, progress)
    return replace(report, root=start, errors=(*report.errors, *budget_errors(report, budget)))


async def _check_crawled(crawled: Crawl, start: str, config: Config, session: RunSession, progress: RunProgress | None) -> Report:
    """Every link of the crawled pages checked (the pages the crawl fetched cleanly are not asked again)."""
    from .check.crawl import known_results

    if not crawled.pages:
        # Nothing read is not "no broken links": say why instead of reporting a clean site.
        raise InputError(f"--crawl: nothing to crawl at {start}: {crawled.start_problem or 'no HTML page in scope'}")
    documents = [(page.url, page.document) for page in crawled.pages]
    # Pages are URLs, not files: an empty project makes every link resolve as an external URL.
    project = Project(files=[], root=Path.cwd(), markdown=False)
    local = LocalChecker(project, config, {}, lambda rel: None)
    targets = {
        t.resolved for rel, doc in documents for link in doc.links
        if (t := local.resolve(link.url, doc.page, rel)).scope is Scope.EXTERNAL
    }
    errors = list(crawled.errors) + ([f"{start}: start page not crawled: {crawled.start_problem}"] if crawled.start_problem else [])
    return await check_documents(documents, project, config, session=session, progress=progress,
                                 errors=errors, known=known_results(crawled, targets, config))
