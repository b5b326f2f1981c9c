"""Soft-404 probing: the requests behind soft404.py's judgement, one probe per (host,
directory) per run, cached between runs."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from ...model import CheckResult, Reason, Status
from ...store.cache import Cache
from ...urls import is_site_root, sibling_key
from .. import soft404
from .redirects import Redirects
from .transport import SNIFF_BYTES, Answer

PROBE_NAMESPACE = "soft404-probe"


class Soft404Probes:
    def __init__(self, cache: Cache, redirects: Redirects) -> None:
        self.cache = cache
        self.lenient: set[str] = set()  # sibling keys (see urls.sibling_key) that answer 200 for anything
        self._redirects = redirects
        self._probes: dict[str, asyncio.Future[soft404.Probe]] = {}

    def __len__(self) -> int:
        return len(self._probes)

    def cancel(self) -> None:
        for future in self._probes.values():
            if not future.done():
                future.cancel()

    async def judge(self, result: CheckResult, answer: Answer, *, got_body: bool) -> tuple[CheckResult, Answer]:
        """Compare a 200 page with its host's answer to a random sibling path."""
        if is_site_root(answer.url):
            return result, answer  # a catch-all host answers its home page for everything: that is no soft-404
        probe = await self._probe(answer.url)
        if not probe.lenient:
            return result, answer
        if not got_body:
            page, _, stop = await self._redirects.follow(answer.url, "GET", SNIFF_BYTES)
            if stop is not None or page.status != 200:
                return result, answer
            answer = page
        if soft404.is_soft404(soft404.sketch(answer.text(), answer.url, compact=False), probe):
            return (
                replace(result, status=Status.BROKEN, reason=Reason.SOFT_404, detail="the page looks like the site's answer for a page that does not exist"),
                answer,
            )
        return result, answer

    async def _probe(self, page_url: str) -> soft404.Probe:
        key = sibling_key(page_url)
        future = self._probes.get(key)
        if future is None:
            future = asyncio.ensure_future(self._run_probe(page_url, key))
            self._probes[key] = future
        return await asyncio.shield(future)

    async def _run_probe(self, page_url: str, key: str) -> soft404.Probe:
        cached = self.cache.get(PROBE_NAMESPACE, key)
        probe = _decode_probe(cached) if cached is not None else None
        if probe is None:
            answer, _, stop = await self._redirects.follow(soft404.probe_url(page_url), "GET", SNIFF_BYTES)
            if stop is not None or answer.status == 0:
                return soft404.Probe(status=0)  # no verdict; not cached
            record: dict[str, Any] = {"status": answer.status}
            sketch = None
            if answer.status == 200:
                title, words = soft404.read_page(answer.text(), answer.url)
                sketch = soft404.make_sketch(final_url=answer.url, title=title, words=words)
                record.update(final_url=answer.url, title=title, words=list(words))
            probe = soft404.Probe(status=answer.status, sketch=sketch)
            self.cache.set(PROBE_NAMESPACE, key, record, self.cache.max_age)
        if probe.lenient:
            self.lenient.add(key)
        return probe


def _decode_probe(data: Any) -> soft404.Probe | None:
    """A cached probe, or None for anything not in the shape this module writes (the cache's
    bytes are not ours to trust)."""
    if not isinstance(data, dict) or type(data.get("status")) is not int:
        return None
    sketch = None
    words = data.get("words")
    if isinstance(words, list):
        final_url, title = data.get("final_url", ""), data.get("title", "")
        if type(final_url) is not str or type(title) is not str or not all(type(w) is str for w in words):
            return None
        sketch = soft404.make_sketch(final_url=final_url, title=title, words=tuple(words))
    return soft404.Probe(status=data["status"], sketch=sketch)
