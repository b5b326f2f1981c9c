"""Marginalia Search's API (`https://api.marginalia.nu/{key}/search/{query}`).

Settings: linkfix.config.providers.MarginaliaSettings; without `api_key_env` (or with it unset in
the environment), the shared key 'public', which is heavily rate-limited.
"""

from __future__ import annotations

import os
from urllib.parse import quote

from msgspec import UNSET

from ...config.providers import MarginaliaSettings
from .base import Hit, SearchProvider, hits_from_json, register_search
from .limits import Budget, RateLimiter
from .remote import TTL_SEARCH, Remote


def parse_marginalia(text: str, query: str, limit: int) -> list[Hit]:
    return hits_from_json(text, query, limit, provider="marginalia", results=("results",), snippet="description")


@register_search
class Marginalia(SearchProvider):
    name = "marginalia"

    def __init__(self, settings: MarginaliaSettings, remote: Remote) -> None:
        super().__init__(settings, remote)
        self.base = settings.url.rstrip("/")
        env = settings.api_key_env
        self.key = (os.environ.get(env, "") if env is not UNSET else "") or "public"
        self.limiter = RateLimiter(settings.requests_per_minute)

    async def search(self, query: str, *, near: str, limit: int, budget: Budget) -> list[Hit]:
        status, _, text = await self.remote.get(
            f"{self.base}/{quote(self.key, safe='')}/search/{quote(query, safe='')}?count={limit}",
            namespace="marginalia", ttl=TTL_SEARCH, budget=budget, limiter=self.limiter, provider=self.name,
            headers={"Accept": "application/json"},  # with headers, a request that carries a key: never remapped
        )
        return parse_marginalia(text, query, limit) if status == 200 else []
