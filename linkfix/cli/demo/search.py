"""A SearXNG instance, as far as the demo needs it: `/search?q=...&format=json` in SearXNG's JSON
format, ranking the demo's live pages with BM25 (linkfix's own site index, so no second copy).

The answer: `{"query", "number_of_results", "results": [{"url", "title", "content", "engine",
"engines", "score", "category", "parsed_url", "positions", "template", ...}], "answers": [],
"corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []}`, 10 results.
A missing `q` answers 400; a format other than JSON answers 403, as an instance whose settings
enable only JSON does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from ...recover.providers.base import Hit
from ...recover.providers.site import SiteIndex

PAGE_SIZE = 10
ENGINE = "demo"


class SearXNG:
    def __init__(self, pages: Iterable[Hit]) -> None:
        self.index = SiteIndex(list(pages))

    def results(self, query: str) -> dict[str, Any]:
        hits = self.index.search(query, limit=PAGE_SIZE)
        return {
            "query": query, "number_of_results": len(hits),
            "results": [_result(hit, score, position) for position, (score, hit) in enumerate(hits, start=1)],
            "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": [],
        }

    async def __call__(self, request: web.Request) -> web.StreamResponse:
        if request.path != "/search":
            return web.Response(status=404, text="Not Found\n")
        query = request.query.get("q", "").strip()
        if request.query.get("format") != "json":
            return web.Response(status=403, text="Forbidden\n")
        if not query:
            return web.Response(status=400, text="Bad Request: no query\n")
        return web.json_response(self.results(query))


def _result(hit: Hit, score: float, position: int) -> dict[str, Any]:
    parts = urlsplit(hit.url)
    return {
        "url": hit.url, "title": hit.title, "content": hit.text[:240], "engine": ENGINE, "engines": [ENGINE],
        "score": round(score, 6), "category": "general", "template": "default.html", "positions": [position],
        "parsed_url": [parts.scheme, parts.netloc, parts.path, "", parts.query, parts.fragment],
        "publishedDate": None, "thumbnail": None, "img_src": "", "priority": "",
    }
