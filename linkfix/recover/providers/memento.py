"""Any Memento (RFC 7089) TimeMap endpoint, e.g. a MemGator aggregator or an archive's own.

Settings: linkfix.config.providers.MementoSettings; `url` is the TimeMap base the dead URL is
appended to, e.g. `http://127.0.0.1:1208/timemap/link/` (MemGator) or the web archive's (default).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from ...config.providers import MementoSettings
from .base import ArchiveProvider, Capture, register_archive
from .limits import FAILED, RETRY_AFTER, Budget, Deferred, RateLimiter
from .remote import TTL_ARCHIVE, Exchange, Remote, retry_after
from .wayback import timestamp

_ENTRY = re.compile(r"<([^>]*)>\s*((?:;\s*[\w-]+\s*=\s*(?:\"[^\"]*\"|[^;,\s]+)\s*)*)")
_PARAM = re.compile(r";\s*([\w-]+)\s*=\s*(\"[^\"]*\"|[^;,\s]+)")


def _parse_link_format(text: str) -> list[tuple[str, dict[str, str]]]:
    """RFC 6690 link-format (what TimeMaps use): [(uri, {param: value})]."""
    entries = []
    for match in _ENTRY.finditer(text):
        params = {k.lower(): v.strip('"') for k, v in _PARAM.findall(match.group(2))}
        entries.append((match.group(1), params))
    return entries


def mementos(text: str) -> list[tuple[datetime, str]]:
    """(datetime, memento URI) of every entry whose rel includes 'memento', oldest first."""
    found = []
    for uri, params in _parse_link_format(text):
        if "memento" not in params.get("rel", "").split():
            continue
        try:
            when = parsedate_to_datetime(params.get("datetime", ""))
        except (TypeError, ValueError, IndexError):
            continue
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        found.append((when, uri))
    return sorted(found)


@register_archive
class Memento(ArchiveProvider):
    name = "memento"

    def __init__(self, settings: MementoSettings, remote: Remote) -> None:
        super().__init__(settings, remote)
        self.base = settings.url
        self.limiter = RateLimiter(settings.requests_per_minute)

    async def _get(self, url: str, budget: Budget) -> Exchange:
        """The archive's answer (cached); Deferred when it could not be asked or did not answer."""
        exchange = await self.remote.request(url, limiter=self.limiter, deadline=budget.deadline,
                                             namespace="memento", ttl=TTL_ARCHIVE)
        if exchange.status == 429:
            wait = retry_after(exchange.headers)
            self.limiter.pause(wait if wait is not None else 60.0)  # nothing more is sent meanwhile
            raise Deferred(RETRY_AFTER, "the archive answered 429 (too many requests)")
        if exchange.status == 0 or exchange.status >= 500:
            raise Deferred(FAILED, f"the archive did not answer ({exchange.error or exchange.status})")
        return exchange

    async def last_capture(self, url: str, before: datetime, budget: Budget) -> Capture | None:
        exchange = await self._get(self.base + url, budget)
        if exchange.status != 200:
            return None  # a TimeMap of no mementos is a 404
        limit = before if before.tzinfo else before.replace(tzinfo=UTC)
        earlier = [(when, uri) for when, uri in mementos(exchange.text) if when <= limit]
        if not earlier:
            return None
        when, uri = earlier[-1]
        return Capture(original=url, timestamp=timestamp(when), url=uri, raw_url=_raw(uri), provider=self.name)

    async def capture_text(self, capture: Capture, budget: Budget) -> str:
        exchange = await self._get(capture.raw_url, budget)
        return exchange.text if exchange.status == 200 else ""


_WAYBACK_STYLE = re.compile(r"^(.*/)(\d{14})(/.*)$")


def _raw(uri: str) -> str:
    """Wayback-style archives (most of them) serve the unmodified page under `<ts>id_/`."""
    match = _WAYBACK_STYLE.match(uri)
    return f"{match.group(1)}{match.group(2)}id_{match.group(3)}" if match else uri
