"""`linkfix check URL --crawl`: audit a published site when there are no sources at hand.

The crawl stays on the start URL's host (same scheme-less host:port) and under a path prefix
(default: the start URL's directory, like `wget --no-parent`; `--crawl-prefix /` widens it to the
whole host). It is seeded with the start URL and the in-scope pages of the site's sitemaps
(robots.txt `Sitemap:` lines, else /sitemap.xml; sitemap indexes followed), obeys robots.txt for
the pages it fetches (protego, user-agent token "linkfix", `Crawl-delay` raising the host's
request interval), and stops at `max_depth` links from a seed or after `max_pages` pages.

The site decides how many links its pages hold, so the runner's limits bound what it costs:
the first `max_links` links of a page are followed and checked (`--crawl-links`), and the run
sends at most `max_requests` requests, crawl, checks and recovery together (`--crawl-requests`,
a `RequestBudget`). Both are said in the report's errors when they bite.

Every request goes through HttpChecker.fetch, so politeness, remap, safety rules and the cache
are the same as for any check. Every link of every crawled page is then checked like any other
external link, and reported in the usual formats. A page the crawl already fetched with a plain
200 is not requested again: it is ok, and its #fragments are judged against the ids read then.
Robots rules govern the crawl only: a link to a disallowed page is still checked (one request),
as a browser following it would.
"""

from __future__ import annotations

import asyncio
import logging
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

from lxml import etree
from protego import Protego

from ..config import Config
from ..errors import InputError
from ..formats import extract_html
from ..formats.silence import silenced_in
from ..model import CheckResult, Document, Reason, Report, Status
from ..urls import authority, hostname, page_key

if TYPE_CHECKING:
    from .http import Fetched, HttpChecker, RequestBudget

log = logging.getLogger(__name__)

ROBOTS_AGENT = "linkfix"
MAX_SITEMAPS = 20  # sitemap files read per crawl (an index may list thousands)
MAX_PAGE_BYTES = 5_000_000
MAX_SITEMAP_BYTES = 20_000_000
# Followed links that name these are files, not pages: checked, never crawled.
_NOT_PAGES = frozenset(
    [".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".ico", ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".tar", ".whl", ".exe", ".dmg", ".mp4", ".webm", ".mp3", ".ogg", ".wav", ".css", ".js", ".json", ".xml", ".txt", ".csv", ".woff", ".woff2", ".ttf", ".eot", ".map"]
)
_FOLLOWED_TAGS = frozenset({"a[href]", "area[href]"})
_IMPLICIT_FRAGMENTS = frozenset({"", "top"})


@dataclass(frozen=True, slots=True, kw_only=True)
class CrawlLimits:
    max_depth: int = 5
    max_pages: int = 1000
    prefix: str = ""  # path prefix the crawl stays under; "" = the start URL's directory
    max_links: int = 2000  # links of one page followed and checked (a real page's index has a few thousand)
    max_requests: int = 20_000  # requests of the whole run


@dataclass(frozen=True, slots=True, kw_only=True)
class CrawledPage:
    url: str  # as requested (no fragment)
    document: Document
    depth: int
    clean: bool  # answered 200 without a redirect: its status needs no second request


@dataclass(frozen=True, slots=True, kw_only=True)
class Crawl:
    pages: tuple[CrawledPage, ...]
    errors: tuple[str, ...] = ()
    start_problem: str = ""  # why the start page gave nothing to crawl ("" when it did)


class CrawlScope:
    """Which URLs the crawl may fetch: same host:port, under the prefix (scheme-insensitive,
    so an http start that redirects to https stays in scope)."""

    def __init__(self, start: str, prefix: str) -> None:
        parts = urlsplit(start)
        self.netloc = authority(start)
        directory = parts.path if parts.path.endswith("/") else posixpath.dirname(parts.path) + "/"
        self.prefix = prefix or directory or "/"
        if not self.prefix.startswith("/"):
            self.prefix = "/" + self.prefix

    def __contains__(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or authority(url) != self.netloc:
            return False
        return (parts.path or "/").startswith(self.prefix) or (parts.path or "/") + "/" == self.prefix


def validate_start(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"--crawl needs one http(s) URL to start from, got {url!r}")
    return url


# -- robots.txt and sitemaps ----------------------------------------------------------------


async def read_robots(client: HttpChecker, start: str) -> Protego | None:
    """The site's robots rules; None when there is no robots.txt (everything allowed).

    RFC 9309: a 4xx means no rules; a server error (5xx) means "disallow all", represented here
    by rules that disallow everything.
    """
    parts = urlsplit(start)
    url = urlunsplit((parts.scheme, parts.netloc, "/robots.txt", "", ""))
    fetched = await client.fetch(url, max_bytes=500_000)
    if 200 <= fetched.status < 300:
        return Protego.parse(fetched.text)
    if 400 <= fetched.status < 500 or fetched.status == 0:
        # No answer at all: the start page's own fetch will say why (DNS, refused, private ...).
        return None
    log.warning("robots.txt of %s unreachable (%s): not crawling, per RFC 9309", parts.netloc,
                fetched.status or fetched.error)
    return Protego.parse("User-agent: *\nDisallow: /\n")


def parse_sitemap(text: str) -> tuple[list[str], list[str]]:
    """(page URLs, nested sitemap URLs) of a sitemap or sitemap index; ([], []) when unreadable."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=True, huge_tree=False)
    try:
        root = etree.fromstring(text.strip().encode("utf-8"), parser=parser)
    except (etree.XMLSyntaxError, ValueError):
        return [], []
    if root is None:
        return [], []
    locs = [el.text.strip() for el in root.iter("{*}loc", "loc") if el.text and el.text.strip()]
    if etree.QName(root).localname == "sitemapindex":
        return [], locs
    return locs, []


async def _sitemap_pages(client: HttpChecker, start: str, robots: Protego | None) -> list[str]:
    parts = urlsplit(start)
    queue = list(robots.sitemaps) if robots is not None else []
    if not queue:
        queue = [urlunsplit((parts.scheme, parts.netloc, "/sitemap.xml", "", ""))]
    pages: list[str] = []
    seen: set[str] = set()
    while queue and len(seen) < MAX_SITEMAPS:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        if urlsplit(url).path.endswith(".gz"):
            log.info("skipping compressed sitemap %s", url)
            continue
        fetched = await client.fetch(url, max_bytes=MAX_SITEMAP_BYTES)
        if fetched.status != 200:
            log.debug("sitemap %s: %s", url, fetched.status or fetched.error)
            continue
        found, nested = parse_sitemap(fetched.text)
        pages.extend(found)
        queue.extend(nested)
    return pages


# -- the crawl ------------------------------------------------------------------------------


def _is_html(fetched: Fetched) -> bool:
    headers = {k.lower(): v for k, v in fetched.headers.items()}
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    return kind in ("", "text/html", "application/xhtml+xml")


def _not_crawlable(fetched: Fetched) -> str:
    """Why a fetched page yields no links to follow ('' when it does)."""
    if fetched.status == 0:
        return fetched.error or "no answer"
    if fetched.status != 200:
        return f"HTTP {fetched.status}"
    return "" if _is_html(fetched) else "not an HTML page"


def _looks_like_page(url: str) -> bool:
    suffix = posixpath.splitext(unquote(urlsplit(url).path))[1].lower()
    return suffix not in _NOT_PAGES


def _fetched_document(text: str, url: str, final: str, *, want_text: bool, max_links: int) -> Document:
    """The fetched page's document, its page's own URL set to where it was served from (`final`),
    so relative links resolve against it, and what its ignore comments and attributes
    (`data-proofer-ignore`, `data-linkfix-ignore`) silence, as for a page read from disk."""
    document = extract_html(text, url, want_text=want_text, max_links=max_links)
    page = replace(document.page, url=final)
    return replace(document, page=page, links=tuple(replace(link, page=page) for link in document.links), silenced=silenced_in(text))


async def crawl(client: HttpChecker, start: str, limits: CrawlLimits, *, robots: Protego | None,
                want_text: bool = False, budget: RequestBudget | None = None) -> Crawl:
    """Breadth-first walk of the site under `start`, one level at a time (each level's pages
    fetched concurrently; the client enforces the per-host limits). `robots`: from read_robots;
    `budget`: the run's requests (the client's), the crawl stops when it is spent."""
    scope = CrawlScope(start, limits.prefix)
    seeds = [start] + [u for u in await _sitemap_pages(client, start, robots) if u in scope]
    seen: set[str] = set()
    level: list[str] = []
    for url in seeds:
        key = page_key(url)
        if key not in seen:
            seen.add(key)
            level.append(key)
    pages: list[CrawledPage] = []
    errors: list[str] = []
    start_problem = ""
    skipped = requested = 0
    truncated = False
    depth = 0
    while level and depth <= limits.max_depth:
        if budget is not None and budget.spent:  # said in the report (pipeline.crawl_check: budget_errors)
            log.warning("crawl stopped: the run's request budget (--crawl-requests %d) is spent", budget.limit)
            break
        allowed = []
        for url in level:
            if robots is None or robots.can_fetch(url, ROBOTS_AGENT):
                allowed.append(url)
                continue
            skipped += 1
            log.debug("robots.txt disallows %s", url)
            if depth == 0 and url == level[0]:
                start_problem = "robots.txt disallows it"
        room = limits.max_pages - requested
        if len(allowed) > room:
            allowed, truncated = allowed[:room], True
        requested += len(allowed)
        fetched_all = await asyncio.gather(*(client.fetch(url, max_bytes=MAX_PAGE_BYTES) for url in allowed))
        next_level: list[str] = []
        for url, fetched in zip(allowed, fetched_all):
            problem = _not_crawlable(fetched)
            if problem:
                if depth == 0 and url == level[0]:
                    start_problem = problem
                if fetched.status == 0:
                    errors.append(f"{url}: {problem}")
                continue  # a dead page's own status is reported where it is linked
            final = fetched.final_url or url
            if fetched.redirects and final not in scope:
                continue  # redirected off the site: not ours to crawl
            document = _fetched_document(fetched.text, url, final, want_text=want_text, max_links=limits.max_links)
            if document.warnings:  # the only one a page gets: its links over max_links left out
                errors.append(f"{url}: only its first {limits.max_links} links are followed and checked (--crawl-links)")
            pages.append(CrawledPage(url=url, document=document, depth=depth, clean=not fetched.redirects))
            if depth == limits.max_depth:
                continue
            for link in document.links:
                if link.tag not in _FOLLOWED_TAGS:
                    continue
                target = page_key(urljoin(document.page.base or final, link.url.strip()))
                if target in scope and target not in seen and _looks_like_page(target):
                    seen.add(target)
                    next_level.append(target)
        if truncated:
            break
        level = next_level
        depth += 1
    if truncated:
        log.warning("crawl stopped at %d pages (--crawl-pages)", limits.max_pages)
    log.info("crawled %d page(s)", len(pages))
    if skipped:  # their own links go unchecked: the user asked for the whole site
        log.warning("%d page(s) not crawled: robots.txt disallows them (their links are not checked)", skipped)
    # Pages robots.txt kept out and the page limit are told in the log above, not carried on.
    return Crawl(pages=tuple(pages), errors=tuple(errors), start_problem=start_problem)


def known_results(crawled: Crawl, targets: Iterable[str], config: Config) -> dict[str, CheckResult]:
    """Results for resolved targets that are pages the crawl fetched cleanly (no new request)."""
    clean = {page_key(p.url): p.document.page.ids for p in crawled.pages if p.clean}
    known: dict[str, CheckResult] = {}
    for target in targets:
        base, _, fragment = target.partition("#")
        ids = clean.get(page_key(base))
        if ids is None:
            continue
        ok = CheckResult(url=target, status=Status.OK, http_status=200, detail="fetched by the crawl")
        if (fragment and config.include_fragments and fragment not in _IMPLICIT_FRAGMENTS
                and not fragment.startswith(":~:") and fragment not in ids and unquote(fragment) not in ids):
            ok = replace(ok, status=Status.BROKEN, reason=Reason.MISSING_FRAGMENT, detail=f"no id '{unquote(fragment)}' on the page")
        known[target] = ok
    return known


def obey_crawl_delay(client: HttpChecker, start: str, robots: Protego | None) -> None:
    """robots.txt's Crawl-delay as the start host's request interval (when larger), on the
    run's own client: the checks and recovery that follow the crawl keep to it too."""
    delay = robots.crawl_delay(ROBOTS_AGENT) if robots is not None else None
    host = hostname(start)
    if delay and client.hosts.space_requests(host, float(delay)):
        log.info("robots.txt of %s asks for %.1f s between requests", host, float(delay))


def budget_errors(report: Report, budget: RequestBudget) -> list[str]:
    """The report's word on a request budget that bit: how many links it left unchecked."""
    if not budget.refused:
        return []
    unchecked = sum(1 for r in report.results if r.result.reason == Reason.REQUEST_BUDGET)
    return [f"the run's request budget (--crawl-requests {budget.limit}) was spent: {budget.refused} request(s) not sent, "
            f"{unchecked} link(s) not checked (reported as excluded)"]
