"""The external URLs of a run, handed to its HTTP client as they turn up, and recovery of the
broken ones through the same client."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from ..check.remap import Remap
from ..check.session import RunSession
from ..config import Config
from ..config.durations import say_duration
from ..errors import NetworkDownError
from ..model import CheckResult, LinkResult, Reason, Scope, Status
from ..recover.gittime import link_times as git_link_times

if TYPE_CHECKING:
    from ..recover.run import RunStats

log = logging.getLogger(__name__)


class ExternalChecks:
    """The external URLs of a run, each handed to the run's HTTP client (once) as it turns up."""

    def __init__(self, config: Config, session: RunSession, *, skip: Mapping[str, CheckResult]) -> None:
        self.config = config
        self._session = session
        self._skip = skip
        self._targets: dict[str, tuple[str, str]] = {}
        # Redirect targets come back in the space of `remap`'s rewritten requests; results
        # leave in the space of the documents (see check.remap).
        self._remap = Remap(config.remap)

    def add_many(self, urls: Iterable[str]) -> None:
        """Hand new URLs to the checker (their cache records read in one go)."""
        if self.config.offline:
            return
        new = [url for url in dict.fromkeys(urls) if url not in self._targets and url not in self._skip]
        if not new:
            return
        checker = self._session.client  # started with the first URL (aiohttp loads only then)
        targets = [split_fragment(url, self.config) for url in new]
        if self._remap:
            self._remap.learn(base for base, _ in targets)
        checker.cache.preload(base for base, _ in targets)
        for url, target in zip(new, targets):
            self._targets[url] = target
            checker.submit(*target)

    async def results(self) -> dict[str, CheckResult]:
        """Every URL's result. A network found down stops the run (NetworkDownError, exit 2)
        unless `network_down: warn`: then the external links without a result from before (a
        fresh one in the cache, or a refusal) are reported not checked (an error, which fails
        no run), and the internal ones still decide."""
        if not self._targets:
            return {}
        try:
            outcome = await self._session.client.results(self._targets.values())
        except NetworkDownError as exc:
            if self.config.network_down != "warn":
                raise
            return self._without_network(exc)
        return {url: self._remap.result(outcome[target]) for url, target in self._targets.items()}

    def _without_network(self, down: NetworkDownError) -> dict[str, CheckResult]:
        results: dict[str, CheckResult] = {}
        cached: list[float] = []
        unchecked = 0
        for url, target in self._targets.items():
            known = self._session.client.known_result(*target)
            if known is not None:
                results[url] = self._remap.result(known)
                if known.from_cache:
                    cached.append(known.checked_at)
            else:
                unchecked += 1
                results[url] = CheckResult(url=url, status=Status.ERROR, reason=Reason.NETWORK_DOWN, checked_at=time.time(),
                                           detail=f"not checked: {down}")
        kept = f"; {len(cached)} from the cache, the oldest checked {say_duration(time.time() - min(cached))} ago" if cached else ""
        log.warning("%s; %d external link target%s reported as not checked%s (network_down: warn)",
                    down, unchecked, "" if unchecked == 1 else "s", kept)
        return results



def split_fragment(url: str, config: Config) -> tuple[str, str]:
    base, _, fragment = url.partition("#")
    return (base, fragment if config.include_fragments else "")



async def recover_broken(results: list[LinkResult], config: Config, session: RunSession, *, link_times: Mapping[str, datetime] | None = None,
                   on_recovery: Callable[[RunStats], None] | None = None) -> list[LinkResult]:
    """Recovery through the run's client (what it learned of each host holds) and cache."""
    from ..recover.run import recover_all

    broken = [r for r in results if r.failing and r.scope is Scope.EXTERNAL]
    if not broken:
        return results
    times = {**git_link_times(broken), **(link_times or {})}
    return list(await recover_all(results, config=config, client=session.client, cache=session.cache,
                                  link_times=times, on_recovery=on_recovery))
