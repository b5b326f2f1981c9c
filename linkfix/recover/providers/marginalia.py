"""Marginalia Search's API (`https://api.marginalia.nu/{key}/search/{query}`).

Settings: `url` (default https://api.marginalia.nu), `api_key_env` (environment variable holding
a key; the shared key 'public' is used when unset — it is heavily rate-limited).
"""

from __future__ import annotations

import os
from urllib.parse import quote

from .base import TTL_SEARCH, Budget, Hit, RateLimiter, Remote, SearchProvider, hits_from_json, register_search


def parse_marginalia(text: str, query: str, limit: int) -> list[Hit]:
    return hits_from_json(text, query, limit, provider="marginalia", results=("results",), snippet="description")


@register_search
class Marginalia(SearchProvider):
    name = "marginalia"

    def __init__(self, settings, remote: Remote) -> None:
        super().__init__(settings, remote)
        self.base = str(self.settings.get("url") or "https://api.marginalia.nu").rstrip("/")
        env = self.settings.get("api_key_env")
        self.key = (os.environ.get(str(env), "") if env else "") or "public"
        self.limiter = RateLimiter(float(self.settings.get("requests_per_minute", 30)))

    async def search(self, query: str, *, near: str, limit: int, budget: Budget) -> list[Hit]:
        status, _, text = await self.remote.get(
            f"{self.base}/{quote(self.key, safe='')}/search/{quote(query, safe='')}?count={limit}",
            namespace="marginalia", ttl=TTL_SEARCH, budget=budget, limiter=self.limiter, provider=self.name,
            headers={"Accept": "application/json"},  # with headers, a request that carries a key: never remapped
        )
        return parse_marginalia(text, query, limit) if status == 200 else []
