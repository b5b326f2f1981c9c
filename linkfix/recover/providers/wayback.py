"""The Internet Archive's Wayback Machine (or anything speaking its APIs).

- CDX API (`/cdx/search/cdx?output=json`): the last capture with status 200 and an HTML type at
  or before the link's time (`to=`, `limit=-1`), and the host's URL list (`matchType=prefix`).
- Availability API (`/wayback/available`): fallback when the CDX server does not answer.
- Raw captures through the `id_` modifier: the page as it was served, without the banner.

Settings: `url` (base, default https://web.archive.org), `requests_per_minute` (default 15,
the archive's published limit; 0 = no limit, for a local stand-in), `host_urls` (how many
URLs of a host to list, default 1000).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from urllib.parse import quote, urlsplit

from .base import TTL_ARCHIVE, ArchiveProvider, Budget, Capture, RateLimiter, Remote, register_archive

DEFAULT_BASE = "https://web.archive.org"


def timestamp(moment: datetime) -> str:
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y%m%d%H%M%S")


def parse_cdx_json(text: str) -> list[dict[str, str]]:
    """CDX `output=json`: a header row of field names, then one row per capture."""
    try:
        rows = json.loads(text) if text.strip() else []
    except json.JSONDecodeError:
        return []
    if not isinstance(rows, list) or not rows or not isinstance(rows[0], list):
        return []
    header = [str(h) for h in rows[0]]
    return [
        dict(zip(header, (str(v) for v in row)))
        for row in rows[1:]
        if isinstance(row, list) and len(row) == len(header)
    ]


def parse_availability(text: str) -> dict[str, str] | None:
    """Availability API: archived_snapshots.closest {available, url, timestamp, status}."""
    try:
        data = json.loads(text)
        closest = data["archived_snapshots"]["closest"]
    except (json.JSONDecodeError, KeyError, TypeError):
        return None
    if not isinstance(closest, dict) or not closest.get("available"):
        return None
    return {k: str(v) for k, v in closest.items()}


@register_archive
class Wayback(ArchiveProvider):
    name = "wayback"

    def __init__(self, settings, remote: Remote) -> None:
        super().__init__(settings, remote)
        self.base = str(self.settings.get("url") or DEFAULT_BASE).rstrip("/")
        self.limiter = RateLimiter(float(self.settings.get("requests_per_minute", 15)))
        self.host_limit = int(self.settings.get("host_urls", 1000))

    def _capture(self, original: str, ts: str) -> Capture:
        return Capture(
            original=original,
            timestamp=ts,
            url=f"{self.base}/web/{ts}/{original}",
            raw_url=f"{self.base}/web/{ts}id_/{original}",
            provider=self.name,
        )

    async def _get(self, url: str, budget: Budget) -> tuple[int | None, str]:
        status, _, text = await self.remote.get(
            url, namespace="wayback", ttl=TTL_ARCHIVE, budget=budget, limiter=self.limiter, provider=self.name
        )
        return status, text

    async def last_capture(self, url: str, before: datetime, budget: Budget) -> Capture | None:
        ts = timestamp(before)
        query = (
            f"{self.base}/cdx/search/cdx?url={quote(url, safe='')}&output=json"
            f"&filter=statuscode:200&filter=mimetype:text/html&to={ts}&limit=-1"
        )
        status, text = await self._get(query, budget)
        if status == 200:
            rows = [r for r in parse_cdx_json(text) if r.get("timestamp", "").isdigit()]
            if not rows:
                return None  # the archive answered: it has no good copy
            last = max(rows, key=lambda r: r["timestamp"])
            return self._capture(last.get("original") or url, last["timestamp"])
        # CDX unavailable: the availability API gives the closest capture (maybe a later one).
        status, text = await self._get(
            f"{self.base}/wayback/available?url={quote(url, safe='')}&timestamp={ts}", budget
        )
        closest = parse_availability(text) if status == 200 else None
        if closest is None or closest.get("status", "200") != "200" or closest.get("timestamp", "") > ts:
            return None
        return self._capture(url, closest["timestamp"])

    async def capture_text(self, capture: Capture, budget: Budget) -> str:
        status, text = await self._get(capture.raw_url, budget)
        return text if status == 200 else ""

    async def host_urls(self, url: str, budget: Budget) -> list[str]:
        host = urlsplit(url).hostname or ""
        if not host:
            return []
        query = (
            f"{self.base}/cdx/search/cdx?url={quote(host + '/', safe='')}&matchType=prefix&output=json"
            f"&fl=original,statuscode,mimetype&filter=statuscode:200&filter=mimetype:text/html"
            f"&collapse=urlkey&limit={self.host_limit}"
        )
        status, text = await self._get(query, budget)
        if status != 200:
            return []
        seen: dict[str, None] = {}
        for row in parse_cdx_json(text):
            original = row.get("original", "")
            if original.startswith(("http://", "https://")):
                seen.setdefault(original)
        return list(seen)
