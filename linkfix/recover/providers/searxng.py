"""A SearXNG instance's JSON API (`/search?q=...&format=json`). Settings: `url` (required)."""

from __future__ import annotations

import json
from urllib.parse import quote_plus

from .base import TTL_SEARCH, Budget, Hit, RateLimiter, Remote, SearchProvider, register_search


def parse_searxng(text: str, query: str, limit: int) -> list[Hit]:
    try:
        results = json.loads(text).get("results", [])
    except (json.JSONDecodeError, AttributeError):
        return []
    hits = []
    for item in results if isinstance(results, list) else []:
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            hits.append(Hit(url=item["url"], title=str(item.get("title") or ""),
                            snippet=str(item.get("content") or ""), provider="searxng",
                            query=query, rank=len(hits)))
        if len(hits) >= limit:
            break
    return hits


@register_search
class SearXNG(SearchProvider):
    name = "searxng"

    def __init__(self, settings, remote: Remote) -> None:
        super().__init__(settings, remote)
        self.base = str(self.settings.get("url") or "").rstrip("/")
        self.limiter = RateLimiter(float(self.settings.get("requests_per_minute", 0)))

    async def search(self, query: str, *, near: str, limit: int, budget: Budget) -> list[Hit]:
        if not self.base:
            self.remote.warn_once("searxng:url", "searxng: no 'url' configured; provider skipped")
            return []
        status, _, text = await self.remote.get(
            f"{self.base}/search?q={quote_plus(query)}&format=json", namespace="searxng",
            ttl=TTL_SEARCH, budget=budget, limiter=self.limiter, provider=self.name,
        )
        return parse_searxng(text, query, limit) if status == 200 else []
