"""The small interfaces every recovery provider implements (`ArchiveProvider`, `SearchProvider`,
and what they answer: `Capture`, `Hit`), and the registry of providers. Providers reach the
network through `remote.Remote` and run within `limits`.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from ...config.providers import ProviderSettings
from .limits import Budget, Deferred
from .remote import Remote


@dataclass(frozen=True, slots=True, kw_only=True)
class Capture:
    """One archived copy of a URL."""

    original: str  # the URL as the archive knows it
    timestamp: str  # YYYYMMDDhhmmss, UTC
    url: str  # the capture's address for people (with the archive's banner)
    raw_url: str  # the capture's address for machines (the page as it was served)
    provider: str = ""

    @property
    def iso_datetime(self) -> str:
        ts = (self.timestamp + "00000000000000")[:14]
        return f"{ts[0:4]}-{ts[4:6]}-{ts[6:8]}T{ts[8:10]}:{ts[10:12]}:{ts[12:14]}Z"


@dataclass(frozen=True, slots=True, kw_only=True)
class Hit:
    """One search result or one page known to a site."""

    url: str
    title: str = ""
    snippet: str = ""
    text: str = ""  # the whole text when the provider has it (a site search index)
    stems: str = ""  # index terms already normalised (a Sphinx search index holds stems)
    headings: tuple[str, ...] = ()  # its section titles, when a site search index lists them
    provider: str = ""
    query: str = ""
    rank: int = 0  # position in the provider's answer, 0-based


def hits_from_json(text: str, query: str, limit: int, *, provider: str, results: tuple[str, ...],
                   snippet: str) -> list[Hit]:
    """Search hits from a JSON answer whose results list sits at `results` (a key path) and
    whose items carry `url`, `title` and a `snippet` field. Malformed answers give no hits."""
    try:
        data: Any = json.loads(text)
        for key in results:
            data = data.get(key, {})
    except (json.JSONDecodeError, AttributeError):
        return []
    hits: list[Hit] = []
    for item in data if isinstance(data, list) else []:
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            hits.append(Hit(url=item["url"], title=str(item.get("title") or ""),
                            snippet=str(item.get(snippet) or ""), provider=provider,
                            query=query, rank=len(hits)))
        if len(hits) >= limit:
            break
    return hits


class ArchiveProvider(ABC):
    """A web archive: the last good capture of a URL, its raw text, and the URLs seen on a host."""

    name: ClassVar[str]

    def __init__(self, settings: ProviderSettings, remote: Remote) -> None:
        """`settings`: the provider's own typed settings (config.providers), read by each
        provider's constructor."""
        self.remote = remote

    @abstractmethod
    async def last_capture(self, url: str, before: datetime, budget: Budget) -> Capture | None:
        """The last capture at or before `before` with status 200 and an HTML type; None when
        the archive answered that it has none. Raises Deferred when it was not asked or did not
        answer (rate limit, 429, block, failure): that is not "no capture"."""

    @abstractmethod
    async def capture_text(self, capture: Capture, budget: Budget) -> str:
        """The captured page's HTML, as it was served ('' when the archive answered without
        it). Raises Deferred when it was not asked or did not answer."""

    def batches(self, urls: Sequence[str]) -> list[list[str]]:
        """The URLs in groups, each answered by one lookup (`lookup`); by default one URL each."""
        return [[url] for url in urls]

    async def lookup(self, group: Mapping[str, datetime], deadline: float) -> tuple[dict[str, Capture | None], Deferred | None]:
        """The last good capture of each URL of a group at or before its time (None: none),
        for the URLs looked up, and why the others were not (None when all were)."""
        found: dict[str, Capture | None] = {}
        for url, before in group.items():
            try:
                found[url] = await self.last_capture(url, before, Budget(deadline=deadline, queries=0, fetches=0))
            except Deferred as exc:
                return found, exc
        return found, None

    def counts(self) -> dict[str, int]:
        """Requests sent per endpoint group, 429s and failures met, for the run's statistics."""
        return {}

    async def host_urls(self, url: str, budget: Budget) -> list[str]:
        """URLs the archive saw under the host of `url` (for same-site candidates)."""
        return []


class SearchProvider(ABC):
    """Something that answers a text query with ranked hits."""

    name: ClassVar[str]
    #: True when the provider only knows the dead link's own site (keyless, cheap per query).
    same_site: ClassVar[bool] = False

    def __init__(self, settings: ProviderSettings, remote: Remote) -> None:
        """`settings`: the provider's own typed settings (config.providers), read by each
        provider's constructor."""
        self.remote = remote

    @abstractmethod
    async def search(self, query: str, *, near: str, limit: int, budget: Budget) -> list[Hit]:
        """Hits for `query`; `near` is the dead URL (site providers search its site)."""


ARCHIVES: dict[str, type[ArchiveProvider]] = {}
SEARCHES: dict[str, type[SearchProvider]] = {}


def register_archive(cls: type[ArchiveProvider]) -> type[ArchiveProvider]:
    ARCHIVES[cls.name] = cls
    return cls


def register_search(cls: type[SearchProvider]) -> type[SearchProvider]:
    SEARCHES[cls.name] = cls
    return cls
