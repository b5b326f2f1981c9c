"""The Wayback Machine, as far as the demo needs it, in its real wire formats.

- CDX API `/cdx/search/cdx?url=U&output=json`: rows sorted by urlkey (SURT) then timestamp,
  fields urlkey timestamp original mimetype statuscode digest length (every value a string);
  `fl`, `filter=[!]field:regex` (full match; several AND together), `from`/`to` (1-14 digits),
  `limit=N` (first N) or `limit=-N` (last N), `matchType=exact|prefix` (or `url=...*`),
  `collapse=field`. JSON output is `[]` or a header row then one row per capture; without
  `output=json` it is space-separated text. A query the real server refuses answers 400.
- Availability API `/wayback/available?url=U[&timestamp=T]`: the closest capture with status 200.
- Captures `/web/<timestamp>id_/<url>` (the page as it was served) and `/web/<timestamp>/<url>`
  (with the archive's banner); a timestamp that is not a capture's redirects (302) to the
  closest capture; a URL never captured is a 404.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from urllib.parse import parse_qsl, urlsplit

from aiohttp import web

FIELDS = ("urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length")
_REPLAY = re.compile(r"^/web/(\d{1,14})(id_)?/(.+)$", re.DOTALL)
BANNER = '<!-- BEGIN WAYBACK TOOLBAR INSERT --><div id="wm-ipp-base"></div><!-- END WAYBACK TOOLBAR INSERT -->'
NOT_ARCHIVED = "<!DOCTYPE html><html><body><h2>Hrm.</h2><p>The Wayback Machine has not archived that URL.</p></body></html>"


def urlkey(url: str) -> str:
    """The CDX index key: 'https://www.Acme.test/A?b' -> 'test,acme)/a?b' (scheme and www. dropped)."""
    parts = urlsplit(url if "://" in url else "http://" + url)
    host = re.sub(r"^www\d*\.", "", (parts.hostname or "").lower())
    return (",".join(reversed(host.split("."))) + ")" + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")).lower()


def pad(timestamp: str, *, upper: bool = False) -> str:
    """A 1-14 digit timestamp as the first (or last) 14-digit instant it covers."""
    return (timestamp + ("99991231235959" if upper else "00000101000000")[len(timestamp):])[:14]


@dataclass(frozen=True, slots=True, kw_only=True)
class Capture:
    url: str
    timestamp: str  # 14 digits, UTC
    body: str
    status: int = 200
    mimetype: str = "text/html"

    def row(self) -> dict[str, str]:
        raw = self.body.encode()
        digest = base64.b32encode(hashlib.sha1(raw).digest()).decode()  # what the real index stores
        return {"urlkey": urlkey(self.url), "timestamp": self.timestamp, "original": self.url, "mimetype": self.mimetype,
                "statuscode": str(self.status), "digest": digest, "length": str(len(raw))}


class _BadQuery(ValueError):
    """A CDX query the real server answers with 400."""


def cdx_rows(captures: list[Capture], params: list[tuple[str, str]]) -> tuple[list[str], list[list[str]]]:
    """(field names, rows) answering a CDX query, the steps in the real server's order."""
    query = dict(params)
    url, match = query.get("url", ""), query.get("matchType", "exact")
    if url.endswith("*"):
        url, match = url[:-1], "prefix"
    names = [n for n in query.get("fl", "").split(",") if n] or list(FIELDS)
    if not url or match not in ("exact", "prefix") or not set(names) <= set(FIELDS):
        raise _BadQuery(f"unsupported query: url={url!r} matchType={match!r} fl={names}")
    key = urlkey(url)
    rows = sorted((c.row() for c in captures), key=lambda r: (r["urlkey"], r["timestamp"]))
    rows = [r for r in rows if (r["urlkey"] == key if match == "exact" else r["urlkey"].startswith(key))]
    if not all(query.get(bound, "0").isdigit() for bound in ("from", "to")):
        raise _BadQuery(f"Invalid timestamp: from={query.get('from')!r} to={query.get('to')!r}")
    low, high = pad(query.get("from", "")), pad(query.get("to", ""), upper=True)
    rows = [r for r in rows if low <= r["timestamp"] <= high]
    for value in (v for k, v in params if k == "filter"):  # every filter, then every collapse
        negate, (field, _, regex) = value.startswith("!"), value.lstrip("!").partition(":")
        if field not in FIELDS:
            raise _BadQuery(f"Invalid filter: {value!r}")
        rows = [r for r in rows if bool(re.fullmatch(regex, r[field])) != negate]
    for value in (v for k, v in params if k == "collapse"):  # of adjacent rows with one value, the first
        if value not in FIELDS:
            raise _BadQuery(f"Invalid collapse: {value!r}")
        rows = [r for i, r in enumerate(rows) if i == 0 or rows[i - 1][value] != r[value]]
    limit = int(query["limit"]) if query.get("limit", "").lstrip("-").isdigit() else len(rows)
    rows = rows[limit:] if limit < 0 else rows[:limit]
    return names, [[r[n] for n in names] for r in rows]


class Wayback:
    """Answers as web.archive.org does, over a fixed list of captures."""

    def __init__(self, host: str, captures: list[Capture]) -> None:
        self.host = host
        self.captures = captures

    def _closest(self, url: str, timestamp: str, *, ok_only: bool = False) -> Capture | None:
        """The capture of `url` (with status 200 if `ok_only`) nearest to `timestamp` (the latest
        when empty). Nearness is the difference of the 14-digit numbers: in order with time, if
        not to scale, which is enough for the demo's one capture per page."""
        mine = sorted((c for c in self.captures if urlkey(c.url) == urlkey(url) and (c.status == 200 or not ok_only)),
                      key=lambda c: c.timestamp)
        if not mine or not timestamp:
            return mine[-1] if mine else None
        return min(mine, key=lambda c: abs(int(c.timestamp) - int(pad(timestamp))))

    async def __call__(self, request: web.Request) -> web.StreamResponse:
        if request.path == "/cdx/search/cdx":
            try:
                names, rows = cdx_rows(self.captures, parse_qsl(request.query_string, keep_blank_values=True))
            except (_BadQuery, re.error) as exc:
                return web.Response(status=400, text=f"org.archive.util.io.RuntimeIOException: {exc}\n")
            if request.query.get("output") == "json":
                return web.json_response([names, *rows] if rows else [])
            return web.Response(text="".join(" ".join(r) + "\n" for r in rows))
        if request.path == "/wayback/available":
            return self._available(request.query.get("url", ""), request.query.get("timestamp", ""))
        match = _REPLAY.match(request.raw_path)
        if match:
            return self._replay(*match.groups())
        return web.Response(status=404, text="Not Found\n")

    def _available(self, url: str, timestamp: str) -> web.Response:
        answer: dict[str, object] = {"url": url, "archived_snapshots": {}}
        if timestamp:
            answer["timestamp"] = timestamp
        capture = self._closest(url, timestamp if timestamp.isdigit() else "", ok_only=True) if url else None
        if capture is not None:
            answer["archived_snapshots"] = {"closest": {
                "status": "200", "available": True, "timestamp": capture.timestamp,
                "url": f"http://{self.host}/web/{capture.timestamp}/{capture.url}"}}
        return web.json_response(answer)

    def _replay(self, timestamp: str, raw: str | None, original: str) -> web.Response:
        capture = self._closest(original, timestamp)
        if capture is None:
            return web.Response(status=404, text=NOT_ARCHIVED, content_type="text/html")
        if capture.timestamp != timestamp:
            location = f"https://{self.host}/web/{capture.timestamp}{raw or ''}/{capture.url}"
            return web.Response(status=302, headers={"Location": location})
        body = capture.body if raw else capture.body.replace("<body>", "<body>" + BANNER, 1)
        captured = datetime.strptime(capture.timestamp, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
        return web.Response(status=capture.status, text=body, content_type=capture.mimetype,
                            headers={"Memento-Datetime": format_datetime(captured, usegmt=True)})
