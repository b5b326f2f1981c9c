"""A small fake of the HTTP client (linkfix.check.http.HttpChecker) and of the cache."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from linkfix.model import CheckResult, Status

DATA = Path(__file__).parent / "data"


def data(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


@dataclass
class FakeFetched:
    url: str
    final_url: str
    status: int | None
    headers: dict = field(default_factory=dict)
    text: str = ""
    error: str = ""
    redirects: tuple = ()


class FakeClient:
    """Answers from a route table: exact URL first, else the longest route that prefixes it.

    A route value is (status, text) or (status, text, headers); `soft404` URLs answer 200 to
    fetch but are BROKEN/soft-404 to check; `redirects` maps a URL to where it ends up.
    """

    def __init__(self, routes: dict[str, Any] | None = None) -> None:
        self.routes: dict[str, Any] = dict(routes or {})
        self.soft404: set[str] = set()
        self.redirects: dict[str, str] = {}
        self.fail: set[str] = set()  # prefixes that raise, like a dead connection
        self.sent: list[str] = []

    @property
    def requests_sent(self) -> int:
        return len(self.sent)

    def _route(self, url: str) -> tuple[int, str, dict]:
        if url in self.routes:
            value = self.routes[url]
        else:
            keys = [k for k in self.routes if url.startswith(k)]
            value = self.routes[max(keys, key=len)] if keys else (404, "<title>Not found</title>")
        status, text, *rest = value
        return status, text, (rest[0] if rest else {})

    async def fetch(self, url: str, max_bytes: int = 0, headers: dict | None = None) -> FakeFetched:
        self.sent.append(url)
        if any(url.startswith(p) for p in self.fail):
            raise ConnectionResetError("connection reset by peer")
        final = self.redirects.get(url, url)
        status, text, hdrs = self._route(final)
        hops = (final,) if final != url else ()
        return FakeFetched(url=url, final_url=final, status=status, headers=hdrs, text=text, redirects=hops)

    async def check(self, url: str, fragment: str = "") -> CheckResult:
        self.sent.append(url)
        final = self.redirects.get(url, url)
        status, _, _ = self._route(final)
        if status == 200 and final in self.soft404:
            return CheckResult(url=url, status=Status.BROKEN, reason="soft-404", http_status=200)
        if status == 200 and final != url:
            return CheckResult(url=url, status=Status.REDIRECTED, http_status=200, final_url=final, permanent=True)
        if status == 200:
            return CheckResult(url=url, status=Status.OK, http_status=200)
        return CheckResult(url=url, status=Status.BROKEN, reason=str(status), http_status=status)


class DictCache:
    """Keeps values as the real cache does: as JSON text, so they come back as JSON data (a
    tuple as a list), and a value that is not data fails here as it would there."""

    def __init__(self) -> None:
        self.store: dict[tuple[str, str], str] = {}

    def get(self, namespace: str, key: str) -> Any:
        text = self.store.get((namespace, key))
        return None if text is None else json.loads(text)

    def set(self, namespace: str, key: str, value: Any, ttl: float) -> None:
        self.store[(namespace, key)] = json.dumps(value)


@pytest.fixture
def client() -> FakeClient:
    return FakeClient()


@pytest.fixture
def cache() -> DictCache:
    return DictCache()
