"""What one run reads of candidates, and what it says of each: live checks and pages (each once
per run, through the injected client), the site names their titles carry, the ids of a page,
and a candidate's evidence against what is known of the dead page."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Set as AbstractSet
from dataclasses import replace
from urllib.parse import urldefrag

from ..check.http import page_ids
from ..check.remap import Remap
from ..errors import LinkfixError
from ..model import Status
from ..urls import same_site
from .pages import WebPage, parse_page
from .pool import Contender, Reference, acceptable, hit_terms, title_set
from .providers import Hit, Remote
from .providers.remote import TTL_SEARCH, Fetcher, count_request
from .rank import (
    TitleFurniture,
    as_vector,
    cosine,
    path_tokens,
    set_dice,
    similarity_features,
    title_dice,
    token_jaccard,
    without_shared_parts,
)
from .sections import best_section, section_named_like
from .terms import normal_terms

log = logging.getLogger(__name__)


class Reader:
    """The run's reading of candidate pages (memoised: a page recurs for many dead links)."""

    def __init__(self, client: Fetcher, remote: Remote, remap: Remap) -> None:
        self.client = client
        self.remote = remote
        self.remap = remap  # requests may be rewritten; candidates are named as the docs name them
        self.furniture = TitleFurniture()  # the site names themes add to every page's title
        self._live: dict[str, str | None] = {}
        self._pages: dict[str, WebPage] = {}

    def has_read(self, url: str) -> bool:
        """Was the page read in this run (it costs nothing from a link's budget)?"""
        return url in self._pages

    async def live(self, url: str, ref: Reference, *, exact: bool = False) -> str | None:
        """The live address of url (after redirects), or None: dead, soft-404, the dead URL; for
        an exact guess (`exact`) also a landing on the home page or a directory above."""
        if url not in self._live:
            count_request()
            try:
                result = await self.client.check(url)
            except (asyncio.CancelledError, LinkfixError):
                raise  # network down: the run stops, it is not link rot
            except Exception as exc:  # a failing check is a dead candidate, not a crash
                log.warning("check of candidate %s failed: %s", url, exc)
                result = None
            final = None
            if result is not None and result.status is Status.OK:
                final = url
            elif result is not None and result.status is Status.REDIRECTED:
                self.remap.learn([url])
                final = self.remap.document(result.final_url or url)
            self._live[url] = final
        final = self._live[url]
        if final is None or urldefrag(final)[0] == ref.dead or (exact and not acceptable(final, ref)):
            return None
        return final

    async def page(self, url: str) -> WebPage:
        """A candidate page, fetched once per run and cached between runs like every remote answer."""
        if url not in self._pages:
            status, final, text = await self.remote.get(url, namespace="candidate", ttl=TTL_SEARCH, provider="candidate pages")
            page = self._pages[url] = parse_page(final, status, text if status == 200 else "")
            if page.ok and page.title:
                self.furniture.add(page.url, page.title)
        return self._pages[url]

    async def ids(self, url: str) -> AbstractSet[str] | None:
        """The ids of a live page (None when it is not one)."""
        status, final, text = await self.remote.get(url, namespace="candidate", ttl=TTL_SEARCH, provider="candidate pages")
        return page_ids(text, final) if status == 200 else None

    def features(self, ref: Reference, url: str, entry: Contender) -> dict[str, float]:
        """The evidence of a read candidate (rank.similarity_features), and how it was found; the
        section of its page that names the dead page is kept on the entry (sections.py)."""
        page = entry.page
        ok = page is not None and page.ok
        if entry.terms is None:
            entry.terms = as_vector(normal_terms(page.text)) if ok and page is not None else Counter()
        known = ref.known
        if known.copy_title:  # compared without the site's name, which every page of the site shares
            known = replace(known, copy_title=self.furniture.clean(known.copy_title, ref.dead))
        title = self.furniture.clean(page.title, url) if ok and page is not None else ""
        whole_titles = (title, known.copy_title)  # before the parts both share are left out
        if known.copy_title and title and same_site(url, ref.dead):
            copy_title, title = without_shared_parts(known.copy_title, title)
            known = replace(known, copy_title=copy_title)
        features = similarity_features(known, candidate_url=url, candidate_title=title, candidate_terms=entry.terms,
                                       candidate_headings=page.headings if ok and page is not None else ())
        found = best_section(known, page.sections) if ok and page is not None else None
        entry.section = found[0] if found is not None else None
        entry.named_section = section_named_like(ref.dead, page.sections, candidate_url=url, candidate_title=whole_titles[0],
                                                 copy_title=whole_titles[1]) if ok and page is not None else None
        features["weak_anchor"] = 1.0 if ref.anchor.weak else 0.0
        features.update(entry.flags)
        return features

    def prescore(self, ref: Reference, hit: Hit) -> float:
        """Cheap evidence from what the provider told, to choose which candidates to fetch."""
        known = ref.known
        title, text = hit_terms(hit.title, f"{hit.snippet} {hit.text}", hit.stems)
        # the copy's title may still carry the site's name: its best part counts (title_dice)
        copy_title = self.furniture.clean(known.copy_title, ref.dead)
        text_sim = cosine(known.copy_terms or known.context_terms, text)
        title_sim = max((title_dice(t, copy_title) if copy_title else set_dice(known.anchor_terms, t))
                        for t in (title, *map(title_set, hit.headings)))
        return (
            2.0 * token_jaccard(path_tokens(ref.dead), path_tokens(hit.url))
            + 2.0 * title_sim
            + 2.0 * text_sim
            + 0.5 / (1 + hit.rank)
            + (0.3 if same_site(ref.dead, hit.url) else 0.0)
        )
