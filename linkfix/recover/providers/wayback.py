"""The Internet Archive's Wayback Machine (or anything speaking its APIs), within its limits.

- CDX API (`/cdx/search/cdx?output=json`): the last capture with status 200 and an HTML type at
  or before the link's time; for many dead URLs of one host at once, a prefix query restricted
  to those URLs (`batches`, `lookup`); the host's URL list (`matchType=prefix`).
- Availability API (`/wayback/available`): fallback when the CDX server does not answer.
- Raw captures through the `id_` modifier: the page as it was served, without the banner.

The archive limits each client address: CDX, the TimeMap and the availability API share one
limit (about 30 a minute; the maintainers' own client sends 24), playback has its own, higher
one; a client that ignores its 429s for a minute is blocked at the firewall for an hour. So
every request waits for its endpoint group's turn (limits.RateLimiter.turn: spaced, one in
flight), a 429 pauses the group for its Retry-After (nothing is sent meanwhile), and
connections refused or reset twice in a row are taken for a block: no more requests this run.
A lookup that did not happen raises Deferred; it is never "no capture".

Settings: linkfix.config.providers.WaybackSettings (`requests_per_minute` 0: no limit, for a
local stand-in).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from urllib.parse import quote, urlsplit

from ...config.providers import WaybackSettings
from .base import ArchiveProvider, Capture, register_archive
from .limits import BLOCKED, FAILED, Budget, Deferred, RateLimiter
from .remote import TTL_ARCHIVE, Exchange, Remote, retry_after

log = logging.getLogger(__name__)

BATCH_ROWS = 5000  # rows one batch answer may hold (~600 kB); more are asked for in a next round
BATCH_PATTERN = 3000  # characters of the URL pattern of one batch query, at most
BACKOFF_429 = 60.0  # a 429 without Retry-After: wait this long (doubled for each one in a row)
ATTEMPTS_429 = 4  # answers 429 (or no answer) in a row for one request before its lookup is deferred
BLOCK_FAILURES = 2  # connection failures in a row taken for a firewall block
# Words of the errors of a request that got no answer at all (as the checker and aiohttp say them).
_CONNECTION_FAILURES = ("reset", "connection", "timeout", "refused", "disconnected", "oserror")
_WWW = re.compile(r"^www\d*\.")


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


def _match_key(url: str) -> str:
    """What the archive files a URL under, as far as matching its answers goes: no scheme, no
    `www.`, no default port, lower case (the index key folds the same differences)."""
    parts = urlsplit(url if "://" in url else "http://" + url)
    host = _WWW.sub("", (parts.hostname or "").lower().rstrip("."))
    try:
        port = parts.port
    except ValueError:
        port = None
    if port and port not in (80, 443):
        host += f":{port}"
    return (host + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")).lower()


def _group_key(url: str) -> tuple[str, str]:
    """(host, top directory): dead URLs of one host and first path segment share a batch; pages
    right under the root share the root's."""
    key = _match_key(url)
    host, _, rest = key.partition("/")
    segments = [s for s in rest.split("?")[0].split("/") if s]
    return host, (segments[0] + "/" if len(segments) > 1 else "")


def _common_directory(urls: Sequence[str]) -> str:
    """The deepest directory (ending in '/') holding every URL's path, as `host/dir/`."""
    keys = [_match_key(u).split("?")[0] for u in urls]
    dirs = [k[: k.rfind("/") + 1] for k in keys]
    prefix = dirs[0]
    for d in dirs[1:]:
        while not d.startswith(prefix):
            prefix = prefix[: prefix.rstrip("/").rfind("/") + 1]
    return prefix


@register_archive
class Wayback(ArchiveProvider):
    name = "wayback"

    def __init__(self, settings: WaybackSettings, remote: Remote) -> None:
        super().__init__(settings, remote)
        self.base = settings.url.rstrip("/")
        self.limiter = RateLimiter(settings.requests_per_minute)
        self.playback = RateLimiter(settings.playback_per_minute)
        self.host_limit = settings.host_urls
        self.blocked = False
        self._failures = 0  # connection failures in a row
        self._counts = {"search": 0, "playback": 0, "429": 0, "failed": 0, "cached": 0}

    def _capture(self, original: str, ts: str) -> Capture:
        return Capture(
            original=original,
            timestamp=ts,
            url=f"{self.base}/web/{ts}/{original}",
            raw_url=f"{self.base}/web/{ts}id_/{original}",
            provider=self.name,
        )

    def counts(self) -> dict[str, int]:
        return dict(self._counts)

    # -- requests, within the archive's limits ---------------------------------------------

    async def _ask(self, url: str, limiter: RateLimiter, deadline: float, *, cache: bool = False) -> Exchange:
        """The archive's answer to one request: 200, or another status it gave (404, 5xx).
        Raises Deferred when it could not be asked in time, was blocked, or did not answer."""
        group = "playback" if limiter is self.playback else "search"
        for attempt in range(ATTEMPTS_429):
            if self.blocked:
                raise Deferred(BLOCKED, "the archive refuses connections from this address (a firewall block?)")
            exchange = await self.remote.request(url, limiter=limiter, deadline=deadline,
                                                 namespace="wayback" if cache else "", ttl=TTL_ARCHIVE)
            if exchange.cached:
                self._counts["cached"] += 1
                return exchange
            self._counts[group] += 1
            if exchange.status == 429:
                # Told to slow down: the whole group waits as long as asked (nothing is sent
                # meanwhile, whichever link asks); without a Retry-After, a minute, doubling.
                self._counts["429"] += 1
                wait = retry_after(exchange.headers)
                limiter.pause(wait if wait is not None else BACKOFF_429 * 2**attempt)
                self.remote.warn_once(f"429:{self.name}", "%s: rate-limited (429); waiting as the archive asks", self.name)
                continue
            if exchange.status == 0:
                self._counts["failed"] += 1
                if any(word in exchange.error.lower() for word in _CONNECTION_FAILURES):
                    self._failures += 1
                    if self._failures >= BLOCK_FAILURES:
                        self.blocked = True
                        self.remote.warn_once(f"blocked:{self.name}", "%s: connections refused or reset %d times in a row: "
                                              "taken for a firewall block; no more archive lookups in this run", self.name, self._failures)
                        raise Deferred(BLOCKED, "the archive refuses connections from this address (a firewall block?)")
                    continue  # once more: a passing failure goes away, a firewall does not
                raise Deferred(FAILED, f"the archive did not answer ({exchange.error or 'no answer'})")
            self._failures = 0
            return exchange
        raise Deferred(FAILED, f"the archive answered 429 or failed {ATTEMPTS_429} times in a row")

    # -- one URL --------------------------------------------------------------------------

    async def last_capture(self, url: str, before: datetime, budget: Budget) -> Capture | None:
        ts = timestamp(before)
        query = (
            f"{self.base}/cdx/search/cdx?url={quote(url, safe='')}&output=json&fl=timestamp,original"
            f"&filter=statuscode:200&filter=mimetype:text/html&to={ts}&limit=-1"
        )
        exchange = await self._ask(query, self.limiter, budget.deadline)
        if exchange.status == 200:
            rows = [r for r in parse_cdx_json(exchange.text) if r.get("timestamp", "").isdigit()]
            if not rows:
                return None  # the archive answered: it has no good copy
            last = max(rows, key=lambda r: r["timestamp"])
            return self._capture(last.get("original") or url, last["timestamp"])
        # CDX unavailable: the availability API gives the closest capture (maybe a later one).
        exchange = await self._ask(f"{self.base}/wayback/available?url={quote(url, safe='')}&timestamp={ts}", self.limiter, budget.deadline)
        if exchange.status != 200:
            raise Deferred(FAILED, f"the archive's CDX and availability APIs failed ({exchange.status})")
        closest = parse_availability(exchange.text)
        if closest is None or closest.get("status", "200") != "200" or closest.get("timestamp", "") > ts:
            return None
        return self._capture(url, closest["timestamp"])

    async def capture_text(self, capture: Capture, budget: Budget) -> str:
        exchange = await self._ask(capture.raw_url, self.playback, budget.deadline, cache=True)
        return exchange.text if exchange.status == 200 else ""

    # -- many URLs at once ------------------------------------------------------------------

    def batches(self, urls: Sequence[str]) -> list[list[str]]:
        """Dead URLs grouped by host and top directory (pages at the root together), each group
        cut where its URL pattern would grow past BATCH_PATTERN characters."""
        groups: dict[tuple[str, str], list[str]] = {}
        for url in urls:
            groups.setdefault(_group_key(url), []).append(url)
        out: list[list[str]] = []
        for members in groups.values():
            chunk: list[str] = []
            for url in members:
                if chunk and len(self._pattern([*chunk, url])) > BATCH_PATTERN:
                    out.append(chunk)
                    chunk = []
                chunk.append(url)
            out.append(chunk)
        return out

    def _pattern(self, urls: Sequence[str]) -> str:
        """A regex matching the `original` of every capture of `urls` (and of nothing else under
        their directory): scheme, `www.`, port and case as the archive may have seen them."""
        prefix = _common_directory(urls)
        host, _, directory = prefix.partition("/")
        tails = sorted({re.escape(_match_key(u)[len(prefix):]) for u in urls})
        return (f"(?i)https?://(?:www\\d*\\.)?{re.escape(host)}(?::(?:80|443))?/{re.escape(directory)}"
                f"(?:{'|'.join(tails)})")

    async def lookup(self, group: Mapping[str, datetime], deadline: float) -> tuple[dict[str, Capture | None], Deferred | None]:
        """One prefix query for the whole group (more rounds if its answer was cut at
        BATCH_ROWS), each URL given its last good capture at or before its own time."""
        if len(group) < 2:
            return await super().lookup(group, deadline)
        found: dict[str, Capture | None] = {}
        pending = dict(group)
        try:
            while len(pending) >= 2:
                resolved = await self._batch_round(pending, deadline)
                if resolved is None:  # the CDX server failed: one by one (availability as fallback)
                    break
                found.update(resolved)
                for url in resolved:
                    pending.pop(url)
        except Deferred as exc:
            return found, exc
        rest, deferred = await super().lookup(pending, deadline)
        return found | rest, deferred

    async def _batch_round(self, group: Mapping[str, datetime], deadline: float) -> dict[str, Capture | None] | None:
        urls = list(group)
        prefix = _common_directory(urls)
        latest = max(timestamp(when) for when in group.values())
        query = (
            f"{self.base}/cdx/search/cdx?url={quote(prefix, safe='')}&matchType=prefix&output=json"
            f"&fl=urlkey,timestamp,original&filter=statuscode:200&filter=mimetype:text/html"
            f"&filter={quote('original:' + self._pattern(urls), safe='')}&to={latest}&limit={BATCH_ROWS}"
        )
        exchange = await self._ask(query, self.limiter, deadline)
        if exchange.status != 200:
            return None
        rows = [r for r in parse_cdx_json(exchange.text) if r.get("timestamp", "").isdigit()]
        cut = len(rows) >= BATCH_ROWS
        by_key: dict[str, list[dict[str, str]]] = {}
        for row in rows:
            by_key.setdefault(_match_key(row.get("original", "")), []).append(row)
        last_key = rows[-1].get("urlkey", "") if cut else ""
        resolved: dict[str, Capture | None] = {}
        for url, before in group.items():
            mine = by_key.get(_match_key(url), [])
            if cut and (not mine or any(r.get("urlkey") == last_key for r in mine)):
                continue  # may have more rows past the cut: next round
            ts = timestamp(before)
            earlier = [r for r in mine if r["timestamp"] <= ts]
            last = max(earlier, key=lambda r: r["timestamp"]) if earlier else None
            resolved[url] = self._capture(last.get("original") or url, last["timestamp"]) if last else None
        if cut and not resolved:
            # One URL's captures alone fill the answer: it gets its own query (limit=-1).
            first = next((url for url in urls if any(r.get("urlkey") == last_key for r in by_key.get(_match_key(url), []))), None)
            if first is None:
                return None  # rows we cannot place: one by one instead
            resolved[first] = await self.last_capture(first, group[first], Budget(deadline=deadline, queries=0, fetches=0))
        return resolved

    async def host_urls(self, url: str, budget: Budget) -> list[str]:
        host = urlsplit(url).hostname or ""
        if not host:
            return []
        query = (
            f"{self.base}/cdx/search/cdx?url={quote(host + '/', safe='')}&matchType=prefix&output=json"
            f"&fl=original,statuscode,mimetype&filter=statuscode:200&filter=mimetype:text/html"
            f"&collapse=urlkey&limit={self.host_limit}"
        )
        try:
            exchange = await self._ask(query, self.limiter, budget.deadline, cache=True)
        except Deferred:
            return []  # same-site candidates from elsewhere; the listing is a bonus
        if exchange.status != 200:
            return []
        seen: dict[str, None] = {}
        for row in parse_cdx_json(exchange.text):
            original = row.get("original", "")
            if original.startswith(("http://", "https://")):
                seen.setdefault(original)
        return list(seen)
