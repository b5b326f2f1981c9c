"""Brave Search API (`/res/v1/web/search`). Settings: `api_key_env` (the environment variable
holding the subscription token, default BRAVE_API_KEY; unset, the provider is skipped), `url`
(default https://api.search.brave.com), `requests_per_minute` (default 60)."""

from __future__ import annotations

import os
from urllib.parse import quote_plus

from .base import TTL_SEARCH, Budget, Hit, RateLimiter, Remote, SearchProvider, hits_from_json, register_search


def parse_brave(text: str, query: str, limit: int) -> list[Hit]:
    return hits_from_json(text, query, limit, provider="brave", results=("web", "results"), snippet="description")


@register_search
class Brave(SearchProvider):
    name = "brave"

    def __init__(self, settings, remote: Remote) -> None:
        super().__init__(settings, remote)
        self.base = str(self.settings.get("url") or "https://api.search.brave.com").rstrip("/")
        env = str(self.settings.get("api_key_env") or "BRAVE_API_KEY")
        self.key = os.environ.get(env, "")
        self.env = env
        self.limiter = RateLimiter(float(self.settings.get("requests_per_minute", 60)))

    async def search(self, query: str, *, near: str, limit: int, budget: Budget) -> list[Hit]:
        if not self.key:
            self.remote.warn_once("brave:key", "brave: environment variable %s is not set; provider skipped", self.env)
            return []
        status, _, text = await self.remote.get(
            f"{self.base}/res/v1/web/search?q={quote_plus(query)}&count={min(limit, 20)}",
            namespace="brave", ttl=TTL_SEARCH, budget=budget, limiter=self.limiter, provider=self.name,
            headers={"Accept": "application/json", "X-Subscription-Token": self.key},
        )
        return parse_brave(text, query, limit) if status == 200 else []
