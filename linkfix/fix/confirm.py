"""Redirects read from the cache, asked again before `fix --update-redirects` writes them.

A cache record is input, not an observation: the cache directory may come with the job (a CI
cache restored into it, a directory committed to the repository), and a `final_url` in it is
whatever was written there. So a permanent redirect whose result came from the cache is
written only once a live request, with the checker's safety rules and no cache, has seen it;
what that request sees replaces the cached result (a redirect to the same place, or elsewhere,
or none at all). Without an answer (--offline, network down) the cached redirect stays, and
the plan leaves it alone (`plan._plan_one`).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from ..check.remap import Remap
from ..config import Config
from ..errors import NetworkDownError
from ..model import CheckResult, LinkResult, Report, Scope, Status
from ..store.cache import Cache

if TYPE_CHECKING:
    from aiohttp.abc import AbstractResolver

log = logging.getLogger(__name__)


def _cached_redirect(item: LinkResult) -> bool:
    """An external link whose redirect the report took from the cache."""
    result = item.result
    return item.scope is Scope.EXTERNAL and result.status is Status.REDIRECTED and result.from_cache


async def confirm_cached_redirects(report: Report, config: Config, *, resolver: AbstractResolver | None = None) -> Report:
    """`report` with the results of its cached redirects replaced by what a live request
    sees now (see the module's note); unchanged where no request could be made."""
    urls = sorted({_base(item.result.url) for item in report.results if _cached_redirect(item)})
    if not urls:
        return report
    if config.offline:
        log.info("%d redirect(s) come from the cache and --offline sends no request to confirm them: not rewritten", len(urls))
        return report
    live = await _check_live(urls, config, resolver)
    if not live:
        return report
    results = tuple(replace(item, result=_as_linked(live[_base(item.result.url)], item.result))
                    if _cached_redirect(item) and _base(item.result.url) in live else item for item in report.results)
    return replace(report, results=results)


async def _check_live(urls: list[str], config: Config, resolver: AbstractResolver | None) -> dict[str, CheckResult]:
    from ..check.http import HttpChecker  # aiohttp loads only when a redirect is to be confirmed

    remap = Remap(config.remap)
    remap.learn(urls)
    try:
        async with HttpChecker(config, Cache(None), resolver=resolver) as checker:  # no cache: asked, not remembered
            for url in urls:
                checker.submit(url)
            found = await checker.results([(url, "") for url in urls])
    except NetworkDownError as exc:
        log.warning("the redirects from the cache could not be confirmed (%s): not rewritten", exc)
        return {}
    return {url: remap.result(result) for (url, _), result in found.items()}


def _as_linked(live: CheckResult, cached: CheckResult) -> CheckResult:
    """The live result, named as the link names its target (with the fragment it carried)."""
    return replace(live, url=cached.url)


def _base(url: str) -> str:
    return url.partition("#")[0]
