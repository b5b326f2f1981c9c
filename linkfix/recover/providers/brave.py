"""Brave Search API (`/res/v1/web/search`). Settings: linkfix.config.providers.BraveSettings; the
subscription token is read from the environment variable `api_key_env` names (unset there, the
provider is skipped)."""

from __future__ import annotations

import os
from urllib.parse import quote_plus

from ...config.providers import BraveSettings
from .base import Hit, SearchProvider, hits_from_json, register_search
from .limits import Budget, RateLimiter
from .remote import TTL_SEARCH, Remote


def parse_brave(text: str, query: str, limit: int) -> list[Hit]:
    return hits_from_json(text, query, limit, provider="brave", results=("web", "results"), snippet="description")


@register_search
class Brave(SearchProvider):
    name = "brave"

    def __init__(self, settings: BraveSettings, remote: Remote) -> None:
        super().__init__(settings, remote)
        self.base = settings.url.rstrip("/")
        self.env = settings.api_key_env
        self.key = os.environ.get(self.env, "")
        self.limiter = RateLimiter(settings.requests_per_minute)

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
