"""The site provider gathers a host's pages once for every link of the run; one link's recovery
running out of time must not cancel that gathering for the others (it did: awaiting the shared
future cancelled it, and the other links' recoveries ended in CancelledError out of the run)."""

from __future__ import annotations

import asyncio
import time

from linkfix.config.providers import SiteSettings
from linkfix.recover.providers import Budget
from linkfix.recover.providers.site import Site


class SlowRemote:
    """Every page of the site answers after `delay` seconds: a sitemap naming one page."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.asked: list[str] = []

    async def get(self, url: str, **_: object) -> tuple[int | None, str, str]:
        self.asked.append(url)
        await asyncio.sleep(self.delay)
        if url.endswith("sitemap.xml"):
            return 200, url, "<urlset><url><loc>https://docs.example/new/page/</loc></url></urlset>"
        return 404, url, ""


async def test_a_cancelled_link_does_not_cancel_the_shared_gathering():
    site = Site(SiteSettings(), SlowRemote(0.2))  # type: ignore[arg-type]  # the remote's get is all it asks
    budget = Budget(deadline=time.monotonic() + 30, queries=20, fetches=20)
    first = asyncio.ensure_future(site.pages("https://docs.example/old/gone/", budget))
    second = asyncio.ensure_future(site.pages("https://docs.example/old/other/", budget))
    await asyncio.sleep(0.05)
    first.cancel()  # its recovery ran out of time while the host's pages were being gathered
    pages = await second
    assert "https://docs.example/new/page/" in [hit.url for hit in pages]
