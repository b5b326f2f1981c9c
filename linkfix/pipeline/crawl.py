"""`--crawl`: a published site's pages fetched, then every link of them checked as a run does."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..check.local import LocalChecker
from ..check.session import RunSession
from ..config import Config
from ..errors import InputError
from ..inputs.sources import Project
from ..model import Report, Scope

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from aiohttp.abc import AbstractResolver

    from ..check.crawl import Crawl, CrawlLimits
    from . import RunProgress


async def crawl_check(start: str, config: Config, limits: CrawlLimits, *, resolver: AbstractResolver | None = None,
                      progress: RunProgress | None = None) -> Report:
    """Crawl the site under `start`, then check every link found, like `run_check` does. The
    pages a stranger serves decide how many links there are: `limits` caps the links taken
    from one page and the requests of the whole run (crawl, checks and recovery together)."""
    from ..check.crawl import budget_errors, crawl, obey_crawl_delay, read_robots, validate_start
    from ..check.http import RequestBudget

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
    from ..check.crawl import known_results

    if not crawled.pages:
        # Nothing read is not "no broken links": say why instead of reporting a clean site.
        raise InputError(f"--crawl: nothing to crawl at {start}: {crawled.start_problem or 'no HTML page in scope'}")
    documents = [(page.url, page.document) for page in crawled.pages]
    # Pages are URLs, not files: an empty project makes every link resolve as an external URL.
    project = Project(files=[], root=Path.cwd(), markdown=False)
    local = LocalChecker(project, config)
    targets = {
        t.resolved for rel, doc in documents for link in doc.links
        if (t := local.resolve(link.url, doc.page, rel)).scope is Scope.EXTERNAL
    }
    errors = list(crawled.errors) + ([f"{start}: start page not crawled: {crawled.start_problem}"] if crawled.start_problem else [])
    from . import check_documents  # the run's own checks, which this module's package holds

    return await check_documents(documents, project, config, session=session, progress=progress,
                                 errors=errors, known=known_results(crawled, targets, config))
