"""A SearXNG instance's JSON API (`/search?q=...&format=json`). Settings:
linkfix.config.providers.SearxngSettings (without `url`, the provider is skipped)."""

from __future__ import annotations

from urllib.parse import quote_plus

from msgspec import UNSET

from ...config.providers import SearxngSettings
from .base import Hit, SearchProvider, hits_from_json, register_search
from .limits import Budget, RateLimiter
from .remote import TTL_SEARCH, Remote


def parse_searxng(text: str, query: str, limit: int) -> list[Hit]:
    return hits_from_json(text, query, limit, provider="searxng", results=("results",), snippet="content")


@register_search
class SearXNG(SearchProvider):
    name = "searxng"

    def __init__(self, settings: SearxngSettings, remote: Remote) -> None:
        super().__init__(settings, remote)
        self.base = settings.url.rstrip("/") if settings.url is not UNSET else ""
        self.limiter = RateLimiter(settings.requests_per_minute)

    async def search(self, query: str, *, near: str, limit: int, budget: Budget) -> list[Hit]:
        if not self.base:
            self.remote.warn_once("searxng:url", "searxng: no 'url' configured; provider skipped")
            return []
        status, _, text = await self.remote.get(
            f"{self.base}/search?q={quote_plus(query)}&format=json", namespace="searxng",
            ttl=TTL_SEARCH, budget=budget, limiter=self.limiter, provider=self.name,
        )
        return parse_searxng(text, query, limit) if status == 200 else []
