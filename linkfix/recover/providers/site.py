"""Same-site candidates, keyless: everything the dead link's own site says about its pages.

Sources, for the dead URL's host and each of its parent directories (a project's docs often live
under /project/): robots.txt `Sitemap:` lines, `sitemap.xml` and sitemap indexes, the MkDocs
search index (`search/search_index.json`), the Sphinx search index (`searchindex.js`), links on
the parent directory pages, and the archive's list of URLs it saw on the host. Gathered once per
host and directory and kept for the run; queries are then answered locally with BM25 over each
page's title, text (when an index gives it) and URL words, so a query costs no request.

Words are compared normalised (stems, `terms.normal_terms`): a Sphinx index holds stems already
(Snowball English, the same stemmer), kept as they are. A Sphinx index names documents, not
URLs: `name.html` on an `html` build, `name/` on a `dirhtml` build (Read the Docs' common
choice); which one is decided by the site's other sources (sitemap, listings), else by the
dead URL's own form.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections import Counter
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import replace
from functools import cached_property
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from lxml import etree

from ...config.providers import SiteSettings
from ...urls import page_identity, same_site
from ..pages import parse_page
from ..rank import SitePages, path_tokens
from ..terms import normal_terms
from .base import ArchiveProvider, Hit, SearchProvider, register_search
from .limits import Budget
from .remote import TTL_SITE, Remote

MAX_SITEMAPS = 10  # sitemap files followed per host (indexes can fan out a lot)
MAX_PAGES = 5000  # pages kept per host
MAX_DIRS = 4  # parent directories probed, deepest first

_XML_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=True)
_SPHINX = re.compile(r"^\s*Search\.setIndex\((.*)\)\s*;?\s*$", re.S)
SPHINX_PROVIDER = "site:sphinx"  # hits of a Sphinx index, whose URLs depend on the build
ARCHIVE_PROVIDER = "site:archive"  # URLs the archive saw on the host: the site's pages, past and present


def parent_dirs(url: str) -> list[str]:
    """The site root and each directory above the page, root first (at most MAX_DIRS)."""
    parts = urlsplit(url)
    root = f"{parts.scheme}://{parts.netloc}/"
    segments = [s for s in parts.path.split("/") if s]
    if segments and not parts.path.endswith("/"):
        segments = segments[:-1]  # the page itself is not a directory
    dirs = [root]
    for i in range(1, len(segments) + 1):
        dirs.append(root + "/".join(segments[:i]) + "/")
    if len(dirs) > MAX_DIRS:
        dirs = [root, *dirs[-(MAX_DIRS - 1):]]
    return dirs


def parse_robots_sitemaps(text: str) -> list[str]:
    found = []
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == "sitemap" and value.strip():
            found.append(value.strip())
    return found


def parse_sitemap(text: str) -> tuple[list[str], list[str]]:
    """(page URLs, child sitemap URLs) of a sitemap or a sitemap index; ([], []) if not XML."""
    if not text.strip():
        return [], []
    try:
        root = etree.fromstring(text.encode("utf-8"), parser=_XML_PARSER)
    except (etree.XMLSyntaxError, ValueError):
        return [], []
    if root is None:
        return [], []
    locs = [(el.text or "").strip() for el in root.iter() if isinstance(el.tag, str) and etree.QName(el).localname == "loc"]
    locs = [loc for loc in locs if loc.startswith(("http://", "https://"))]
    if etree.QName(root).localname == "sitemapindex":
        return [], locs
    return locs, []


def parse_mkdocs_index(text: str, base: str) -> list[Hit]:
    """MkDocs `search_index.json`: {"docs": [{"location", "title", "text"}]}, one entry per
    page and per section (location with '#'); sections are merged into their page."""
    try:
        docs = json.loads(text).get("docs", [])
    except (json.JSONDecodeError, AttributeError):
        return []
    pages: dict[str, dict[str, str]] = {}
    headings: dict[str, list[str]] = {}
    for doc in docs if isinstance(docs, list) else []:
        if not isinstance(doc, dict) or not isinstance(doc.get("location"), str):
            continue
        location, fragment = urldefrag(doc["location"])[0], "#" in doc["location"]
        url = urljoin(base, location)
        entry = pages.setdefault(url, {"title": "", "text": ""})
        if (not fragment and doc.get("title")) or (not entry["title"] and doc.get("title")):
            entry["title"] = str(doc["title"])
        if fragment and doc.get("title"):
            headings.setdefault(url, []).append(_strip_tags(str(doc["title"])))
        entry["text"] += " " + _strip_tags(str(doc.get("text") or ""))
    return [Hit(url=u, title=v["title"], text=v["text"].strip(), provider="site", headings=tuple(headings.get(u, ())))
            for u, v in pages.items()]


def parse_sphinx_index(text: str, base: str, *, dirhtml: bool = False) -> list[Hit]:
    """Sphinx `searchindex.js`: Search.setIndex({docnames, titles, terms: {term: doc|[docs]}});
    each document's (stemmed) terms in `Hit.stems`; URLs as an `html` build (or a `dirhtml`
    one) names them."""
    match = _SPHINX.match(text)
    if not match:
        return []
    try:
        data = json.loads(match.group(1))
    except json.JSONDecodeError:
        return []
    if not isinstance(data, dict):
        return []
    docnames: list[Any] = data["docnames"] if isinstance(data.get("docnames"), list) else []
    titles: list[Any] = data["titles"] if isinstance(data.get("titles"), list) else []
    words: list[list[str]] = [[] for _ in docnames]
    for field in ("titleterms", "terms"):
        table = data.get(field)
        for term, docs in (table.items() if isinstance(table, dict) else ()):
            for d in docs if isinstance(docs, list) else [docs]:
                if isinstance(d, int) and 0 <= d < len(words):
                    words[d].append(str(term))
    # `alltitles`: {section title: [[document, anchor or null for the page's own title], ...]}
    headings: list[list[str]] = [[] for _ in docnames]
    alltitles = data.get("alltitles")
    for heading, places in (alltitles.items() if isinstance(alltitles, dict) else ()):
        for place in places if isinstance(places, list) else ():
            if isinstance(place, list) and len(place) == 2 and isinstance(place[0], int) and 0 <= place[0] < len(headings) and place[1]:
                headings[place[0]].append(_strip_tags(str(heading)))
    hits = []
    for i, name in enumerate(docnames):
        if not isinstance(name, str):
            continue
        title = titles[i] if i < len(titles) and isinstance(titles[i], str) else ""
        url = urljoin(base, name + ".html")
        hits.append(Hit(url=as_dirhtml(url) if dirhtml else url, title=_strip_tags(title), stems=" ".join(words[i]),
                        provider=SPHINX_PROVIDER, headings=tuple(headings[i])))
    return hits


def as_dirhtml(url: str) -> str:
    """The `dirhtml` build's URL of a document an `html` build serves at `url`."""
    if url.endswith("/index.html"):
        return url.removesuffix("index.html")
    return url.removesuffix(".html") + "/"


def sphinx_is_dirhtml(sphinx: Sequence[Hit], others: Sequence[Hit], near: str) -> bool:
    """Is a Sphinx index's site a `dirhtml` build? Whichever URL form the site's other sources
    know more of; with no such evidence, the form of the dead URL (a directory URL, or not)."""
    known = {page_identity(h.url) for h in others}
    as_html = sum(1 for h in sphinx if page_identity(h.url) in known)
    as_dirs = sum(1 for h in sphinx if page_identity(as_dirhtml(h.url)) in known)
    if as_html or as_dirs:
        return as_dirs > as_html
    path = urlsplit(near).path
    return path.endswith("/") and path != "/"


_TAG = re.compile(r"<[^>]+>")


def _strip_tags(text: str) -> str:
    return " ".join(_TAG.sub(" ", text).split())


def merge_hits(hits: Iterable[Hit]) -> dict[str, Hit]:
    """One hit per URL, keeping the longest title, text and headings any source gave; a URL the site
    lists itself is the site's, even if the archive saw it too."""
    merged: dict[str, Hit] = {}
    for hit in hits:
        url = urldefrag(hit.url)[0]
        old = merged.get(url)
        if old is None:
            merged[url] = replace(hit, url=url)
        else:
            merged[url] = replace(
                old,
                provider=hit.provider if old.provider == ARCHIVE_PROVIDER else old.provider,
                title=hit.title if len(hit.title) > len(old.title) else old.title,
                text=hit.text if len(hit.text) > len(old.text) else old.text,
                stems=hit.stems if len(hit.stems) > len(old.stems) else old.stems,
                headings=hit.headings if len(hit.headings) > len(old.headings) else old.headings,
            )
    return merged


class SiteIndex:
    """BM25 over a site's known pages (title counted twice, text, URL path words)."""

    K1 = 1.2
    B = 0.75

    def __init__(self, hits: Sequence[Hit], *, root: str = "") -> None:
        self.hits = list(hits)
        #: The dead URL's docs site: the deepest directory above it with a sitemap or a search
        #: index of its own ('' when none was found). A host may serve several projects' docs
        #: (`org.github.io/project/`, `org.github.io/project-js/`): a page outside it is another site's.
        self.root = root
        self.docs = [
            Counter(normal_terms(h.title) * 2 + normal_terms(h.text) + h.stems.split() + path_tokens(h.url)) for h in self.hits
        ]
        self.df: Counter[str] = Counter()
        for doc in self.docs:
            self.df.update(doc.keys())
        lengths = [sum(d.values()) for d in self.docs]
        self.avg = (sum(lengths) / len(lengths)) if lengths else 0.0
        self.lengths = lengths

    @cached_property
    def today(self) -> SitePages:
        """The pages the site lists today (page-name uniqueness, section pages)."""
        return SitePages.of(Site.current(self.hits))

    @cached_property
    def ever(self) -> SitePages:
        """Its pages today and those only the archive saw: was a dead URL a section?"""
        return SitePages.of(h.url for h in self.hits)

    def search(self, query: str, limit: int) -> list[tuple[float, Hit]]:
        terms = set(normal_terms(query))
        n = len(self.docs)
        scored = []
        for doc, length, hit in zip(self.docs, self.lengths, self.hits):
            score = 0.0
            for t in terms:
                tf = doc.get(t, 0)
                if not tf:
                    continue
                idf = math.log(1 + (n - self.df[t] + 0.5) / (self.df[t] + 0.5))
                score += idf * tf * (self.K1 + 1) / (tf + self.K1 * (1 - self.B + self.B * length / (self.avg or 1)))
            if score > 0:
                scored.append((score, hit))
        scored.sort(key=lambda pair: (-pair[0], pair[1].url))
        return scored[:limit]


@register_search
class Site(SearchProvider):
    name = "site"
    same_site = True

    def __init__(self, settings: SiteSettings, remote: Remote) -> None:
        super().__init__(settings, remote)
        #: Archives whose URL lists of the host are used (set by the recoverer).
        self.archives: list[ArchiveProvider] = []
        # Each host and directory is gathered once per run; concurrent links share the task.
        self._dirs_done: dict[str, asyncio.Future[list[Hit]]] = {}  # directory URL -> its pages
        self._hosts_done: dict[str, asyncio.Future[list[Hit]]] = {}  # host root -> robots + archive listing
        self._sitemaps_done: set[str] = set()
        self._listed: set[str] = set()  # directories whose own sitemap or search index listed pages
        self._sitemap_count: Counter[str] = Counter()
        self._index: dict[tuple[str, ...], SiteIndex] = {}

    async def _text(self, url: str, budget: Budget) -> tuple[int | None, str, str]:
        return await self.remote.get(url, namespace="site", ttl=TTL_SITE, budget=budget, provider=self.name)

    async def _sitemap_pages(self, urls: list[str], budget: Budget) -> list[Hit]:
        """Pages of these sitemaps, following sitemap indexes (at most MAX_SITEMAPS per host)."""
        hits: list[Hit] = []
        queue = list(urls)
        while queue:
            sitemap = queue.pop(0)
            host = urlsplit(sitemap).netloc
            if sitemap in self._sitemaps_done or self._sitemap_count[host] >= MAX_SITEMAPS:
                continue
            self._sitemaps_done.add(sitemap)
            self._sitemap_count[host] += 1
            status, _, text = await self._text(sitemap, budget)
            if status != 200:
                continue
            pages, children = parse_sitemap(text)
            if pages or children:
                self._listed.add(sitemap.rpartition("/")[0] + "/")
            hits.extend(Hit(url=p, provider="site") for p in pages[:MAX_PAGES])
            queue.extend(children)
        return hits

    async def _robots(self, root: str, budget: Budget) -> list[Hit]:
        status, _, text = await self._text(root + "robots.txt", budget)
        return await self._sitemap_pages(parse_robots_sitemaps(text), budget) if status == 200 else []

    async def _archived_urls(self, archive: ArchiveProvider, near: str, budget: Budget) -> list[Hit]:
        return [Hit(url=u, provider=ARCHIVE_PROVIDER) for u in await archive.host_urls(near, budget)]

    async def _host(self, root: str, near: str, budget: Budget) -> list[Hit]:
        if root not in self._hosts_done:
            self._hosts_done[root] = asyncio.ensure_future(self._gather(
                self._robots(root, budget), *(self._archived_urls(a, near, budget) for a in self.archives)
            ))
        # Shared by every link of the host: one link's recovery running out of time must not
        # cancel the fetch the others wait on (awaiting a future cancels it with the waiter).
        return await asyncio.shield(self._hosts_done[root])

    async def _mkdocs(self, directory: str, budget: Budget) -> list[Hit]:
        status, _, text = await self._text(directory + "search/search_index.json", budget)
        return self._index_of(directory, parse_mkdocs_index(text, directory) if status == 200 else [])

    async def _sphinx(self, directory: str, budget: Budget) -> list[Hit]:
        status, _, text = await self._text(directory + "searchindex.js", budget)
        return self._index_of(directory, parse_sphinx_index(text, directory) if status == 200 else [])

    def _index_of(self, directory: str, hits: list[Hit]) -> list[Hit]:
        if hits:
            self._listed.add(directory)
        return hits

    def docs_root(self, near: str) -> str:
        """The deepest directory above `near` whose own sitemap or search index listed pages
        ('' when none did: then nothing says where the dead URL's site ends)."""
        dead = urldefrag(near)[0]
        return next((d for d in reversed(parent_dirs(near)) if d != dead and d in self._listed), "")

    async def _listing(self, directory: str, budget: Budget) -> list[Hit]:
        status, final_url, text = await self._text(directory, budget)
        if status != 200:
            return []
        page = parse_page(final_url, status, text, keep_furniture=True)
        return [Hit(url=href, title=label, provider="site") for href, label in page.links]

    async def _directory(self, directory: str, near: str, budget: Budget) -> list[Hit]:
        if directory not in self._dirs_done:
            sources = [
                self._sitemap_pages([directory + "sitemap.xml"], budget),
                self._mkdocs(directory, budget),
                self._sphinx(directory, budget),
            ]
            if urldefrag(near)[0] != directory:
                sources.append(self._listing(directory, budget))
            self._dirs_done[directory] = asyncio.ensure_future(self._gather(*sources))
        return await asyncio.shield(self._dirs_done[directory])

    @staticmethod
    async def _gather(*sources: Awaitable[list[Hit]]) -> list[Hit]:
        hits: list[Hit] = []
        for found in await asyncio.gather(*sources):
            hits.extend(found)
        return hits

    async def pages(self, near: str, budget: Budget) -> list[Hit]:
        """Every page the site tells about, on the dead URL's host (sources fetched at once)."""
        dirs = parent_dirs(near)
        found = await asyncio.gather(self._host(dirs[0], near, budget), *(self._directory(d, near, budget) for d in dirs))
        hits = [h for answer in found for h in answer if same_site(h.url, near)]
        sphinx = [h for h in hits if h.provider == SPHINX_PROVIDER]
        if sphinx:
            others = [h for h in hits if h.provider != SPHINX_PROVIDER]
            if sphinx_is_dirhtml(sphinx, others, near):
                hits = others + [replace(h, url=as_dirhtml(h.url)) for h in sphinx]
        dead = urldefrag(near)[0]
        merged = merge_hits(h for h in hits if urldefrag(h.url)[0] != dead)
        return list(merged.values())[:MAX_PAGES]

    @staticmethod
    def current(hits: Iterable[Hit]) -> list[str]:
        """The URLs of the pages the site lists today (its sitemaps, search indexes, directory
        pages), without those only the archive knows (old pages, moved ones among them); all of
        them when the site lists none itself."""
        hits = list(hits)
        listed = [h.url for h in hits if h.provider != ARCHIVE_PROVIDER]
        return listed or [h.url for h in hits]

    async def index(self, near: str, budget: Budget) -> SiteIndex:
        key = tuple(parent_dirs(near))
        if key not in self._index:
            hits = await self.pages(near, budget)
            self._index[key] = SiteIndex(hits, root=self.docs_root(near))
        return self._index[key]

    async def search(self, query: str, *, near: str, limit: int, budget: Budget) -> list[Hit]:
        index = await self.index(near, budget)
        return [replace(hit, query=query, rank=i) for i, (_, hit) in enumerate(index.search(query, limit))]
