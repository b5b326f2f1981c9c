"""External URL checking, the front: each unique URL checked once per run, its result cached.

Every occurrence of a URL awaits one future per normalised URL; a fresh cached result (or a
refusal) costs no request and no task. The rest is the other modules' job: `url_check` (which
requests one URL needs and what they mean), `redirects` (chains and their cookies), `hosts`
(politeness and retries), `transport` (the session and the connection guard), `network`
(network down is not link rot).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Protocol

from aiohttp.abc import AbstractResolver

from ...config import Config
from ...errors import NetworkDownError
from ...model import CheckResult, Reason, Status
from ...store.cache import Cache
from ...store.shared import SharedStore
from ...urls import hostname, normalise_url
from .. import policy
from ..netsafety import SocketFactory
from .budget import RequestBudget
from .fragments import IDS_NAMESPACE, decode_record, fragment_always_ok, ids_for, judge_fragment
from .global_hosts import GlobalHosts
from .hosts import CONTINUE, RETRY_BACKOFF, HostScheduler
from .network import NETWORK_FAILURES, NetworkWatch
from .redirects import Redirects
from .shared_results import SharedResults
from .transport import Answer, Fetched, Transport
from .url_check import Outcome, UrlCheck

log = logging.getLogger(__name__)


class Progress(Protocol):
    """Where the checker reports its progress (the CLI's progress bar: cli/progress.py)."""

    def update(self, done: int, total: int, paused_hosts: Callable[[], int]) -> None:
        """`done` of `total` unique URLs are known; `paused_hosts()` counts hosts in backoff."""

    def finish(self) -> None:
        """The checker is closing."""


class HttpChecker:
    """Checks external URLs; also the HTTP client recovery uses (`fetch`)."""

    def __init__(
        self,
        config: Config,
        cache: Cache,
        *,
        resolver: AbstractResolver | None = None,
        socket_factory: SocketFactory | None = None,
        progress: Progress | None = None,
        backoff: float = RETRY_BACKOFF,
        max_retry_after: float = policy.MAX_RETRY_AFTER,
        budget: RequestBudget | None = None,
        shared: SharedStore | None = None,
    ) -> None:
        """`max_retry_after` caps each wait for a Retry-After (tests shorten it); a Retry-After
        over policy.MAX_RETRY_AFTER is not waited for at all. `budget`: the requests the run may
        send at most, shared with its other clients (a crawl's). `shared`: the store this run
        shares results, claims and per-host limits with (`cache_url`); the checker closes it."""
        self.config = config
        self.cache = cache
        self.shared = shared
        self.transport = Transport(config, resolver=resolver, socket_factory=socket_factory)
        self.network = NetworkWatch(config.network_probe, self.transport.resolves)
        self.global_hosts = None if shared is None else GlobalHosts(shared, timeout=config.timeout)
        self.shared_results = None if shared is None else SharedResults(config, cache, shared)
        self.hosts = HostScheduler(config, cache, self.transport, self.network, backoff=backoff, max_retry_after=max_retry_after,
                                   budget=budget, shared=self.global_hosts)
        self.redirects = Redirects(config, self.hosts, self.transport)
        # normalised URL -> the #fragments asked of its page: what a run keeps of a page's ids
        # is the answer to these (fragments.py), whatever the page holds.
        self._wanted: dict[str, set[str]] = {}
        self._ids_read: set[str] = set()  # normalised URLs whose page this run read for its ids
        self.urls = UrlCheck(config, cache, self.transport, self.redirects, self.network, want_ids=self._wanted, ids_read=self._ids_read)
        self._outcomes: dict[str, asyncio.Future[Outcome]] = {}
        self._id_outcomes: dict[str, asyncio.Future[Outcome]] = {}
        self._progress = progress
        self._done = 0

    @property
    def requests_sent(self) -> int:
        return self.hosts.requests_sent

    # -- lifecycle ----------------------------------------------------------------------------
    async def __aenter__(self) -> HttpChecker:
        self.open()
        return self

    def open(self) -> None:
        """Create the session (inside a running event loop); `__aexit__` closes it."""
        self.transport.open()
        self.hosts.open()

    async def __aexit__(self, *exc_info: object) -> None:
        self.hosts.close()
        self.end_progress()
        if self._outcomes or self.requests_sent:
            log.info(
                "external links: %d unique URLs, %d requests to %d hosts, %d soft-404 probes (%d directories answer 200 for anything)",
                len(self._outcomes), self.requests_sent, len(self.hosts.hosts), len(self.urls.probes), len(self.urls.probes.lenient),
            )
        for future in (*self._outcomes.values(), *self._id_outcomes.values()):
            if not future.done():
                future.cancel()
        self.urls.probes.cancel()
        await self.transport.close()
        self.cache.flush()
        if self.shared is not None:
            await self._close_shared(self.shared)

    async def _close_shared(self, shared: SharedStore) -> None:
        if shared.up and self.shared_results is not None and self.global_hosts is not None:
            log.info("shared cache %s: %d URLs answered by another run's check, %d requests waited for another run's lease",
                     shared.url, self.shared_results.waited, self.global_hosts.waits)
        await shared.close()

    def end_progress(self) -> None:
        """Report no more progress (the checks are in; what is asked later is recovery's)."""
        if self._progress is not None:
            self._progress.finish()
            self._progress = None

    # -- public API ---------------------------------------------------------------------------
    async def check(self, url: str, *, fragment: str = "") -> CheckResult:
        """The status of `url` (and of `#fragment` on it). Raises NetworkDownError only."""
        base, fragment = _split(url, fragment)
        self._want(base, fragment)
        # shield: one caller's cancellation must not cancel the check every occurrence shares
        outcome = await asyncio.shield(self._outcome_future(base, fragment))
        if self._needs_ids(fragment) and not outcome.answers(fragment):
            outcome = await asyncio.shield(self._ids_again(base, outcome))
        if self.network.down:
            raise self.network.down
        if outcome.result.reason in NETWORK_FAILURES:
            await self.network.confirm_failures({hostname(base): outcome.result.reason})
        return self._result_for(base, fragment, outcome)

    def submit(self, url: str, fragment: str = "") -> None:
        """Start checking `url` (for `#fragment`) in the background; `results` collects it.

        One task per URL, not per target. Whether a URL's page is read for its ids is decided
        when its first request gets a slot, so a fragment target submitted after the URL
        itself but before its turn costs no second request."""
        base, fragment = _split(url, fragment)
        self._want(base, fragment)
        self._outcome_future(base, fragment)

    async def results(self, targets: Iterable[tuple[str, str]]) -> dict[tuple[str, str], CheckResult]:
        """The results of submitted (url, fragment) targets, once all are known. Raises
        NetworkDownError (and cancels what is left) when the network turned out to be down."""
        split = {target: _split(*target) for target in dict.fromkeys(targets)}
        for base, fragment in split.values():
            self._want(base, fragment)
        futures = {target: self._outcome_future(base, fragment) for target, (base, fragment) in split.items()}
        try:
            await asyncio.gather(*set(futures.values()))
            outcomes = {target: futures[target].result() for target in split}
            # Fragments asked after their page's ids were looked up: looked up once more, per page.
            late = {base: outcomes[target] for target, (base, fragment) in split.items()
                    if self._needs_ids(fragment) and not outcomes[target].answers(fragment)}
            if late:
                again = dict(zip(late, await asyncio.gather(*(self._ids_again(base, outcome) for base, outcome in late.items()))))
                outcomes.update({target: again[base] for target, (base, fragment) in split.items() if base in again})
        except NetworkDownError:
            for future in futures.values():
                future.cancel()
            await asyncio.gather(*futures.values(), return_exceptions=True)
            raise
        if self.network.down:
            raise self.network.down
        # A name not found, a resolver or a route failing, with nothing answering, may be a
        # dead network however few hosts there were: the network watch decides.
        reasons = {target: outcomes[target].result.reason for target in split}
        await self.network.confirm_failures(
            {hostname(base): reasons[target] for target, (base, _) in split.items() if reasons[target] in NETWORK_FAILURES})
        return {target: self._result_for(base, fragment, outcomes[target]) for target, (base, fragment) in split.items()}

    def known_result(self, url: str, fragment: str = "") -> CheckResult | None:
        """The result of `url` (for `#fragment`) that needs no request: refused, or fresh in
        the cache; None otherwise. What a run can still say when the network is down."""
        base, fragment = _split(url, fragment)
        self._want(base, fragment)
        try:
            known = self._known_outcome(base, want_ids=self._needs_ids(fragment), known=None)
        except Exception:  # a damaged cache record: as good as none
            return None
        return None if known is None else self._result_for(base, fragment, known)

    def _result_for(self, base: str, fragment: str, outcome: Outcome) -> CheckResult:
        result = outcome.result
        if result.url != base:  # another spelling of the same URL was checked: report this one
            result = replace(result, url=base)
        if not fragment:
            return result
        ids = outcome.ids if self._needs_ids(fragment) else None
        return judge_fragment(replace(result, url=f"{base}#{fragment}"), fragment, ids)

    async def fetch(self, url: str, *, max_bytes: int = 2_000_000, headers: Mapping[str, str] | None = None) -> Fetched:
        """GET `url` with the checker's politeness, safety and redirect handling. Never raises
        for network trouble: `status == 0` and `error` say what happened. `headers` mark a
        request that carries the runner's key (in them, or in `url`): it goes to `url` itself,
        never where a `remap` rule (which a repository's config may set) would send it, and
        the headers go to `url`'s host only, never to a host a redirect leads to."""
        refusal = self.urls.refusal(url)
        if refusal is not None:
            return Fetched(url=url, final_url=url, status=0, headers={}, text="", error=refusal.reason)
        try:
            await self.network.ensure_up(self._send_probe)
        except NetworkDownError as exc:
            return Fetched(url=url, final_url=url, status=0, headers={}, text="", error=f"network-down: {exc}")
        target = url if headers else self.transport.remap(url)
        extra = (hostname(target), dict(headers)) if headers else None
        answer, chain, stop = await self.redirects.follow(target, "GET", max_bytes, extra=extra)
        return Fetched(
            url=url,
            final_url=answer.url,
            status=0 if stop else answer.status,
            headers=dict(answer.header_map),
            text=answer.text() if not stop else "",
            error=stop.reason if stop else answer.error,
            redirects=chain,
        )

    # -- one URL, once ------------------------------------------------------------------------------
    def _needs_ids(self, fragment: str) -> bool:
        return bool(fragment) and self.config.include_fragments and not fragment_always_ok(fragment)

    def _want(self, base: str, fragment: str) -> None:
        """Note that a target asks `#fragment` of `base`'s page (before its check is looked up)."""
        if self._needs_ids(fragment):
            self._wanted.setdefault(normalise_url(base), set()).add(fragment)

    def _outcome_future(self, base: str, fragment: str) -> asyncio.Future[Outcome]:
        """The outcome of `base`'s check, one per URL; for a `fragment` its page's ids are
        needed for, one that answers it if one can be had early (see `_ids_after`)."""
        want_ids = self._needs_ids(fragment)
        key = normalise_url(base)
        future = self._outcomes.get(key)
        if future is None:
            try:
                known = self._known_outcome(base, want_ids=want_ids, known=None)
            except Exception:
                known, looked_up = None, False
            else:
                looked_up = True
            if known is None and self.shared_results is not None:  # another run may have it, or be checking it
                future = asyncio.ensure_future(self.shared_results.outcome(
                    base, want_ids=want_ids, known=lambda: self._known_outcome(base, want_ids=want_ids, known=None),
                    check=lambda: self._queued(base, want_ids=want_ids)))
            elif known is None:
                future = self.hosts.queue(base, lambda: self._guarded_check(base, want_ids=want_ids, looked_up=looked_up))
            else:  # answered without a request: no task to schedule (most URLs of a warm run)
                future = asyncio.get_running_loop().create_future()
                future.set_result(known)
            self._outcomes[key] = future
            if self._progress is not None:
                future.add_done_callback(self._advance)
            return future
        if not want_ids:
            return future
        # Checked (or being checked) without its ids, or for other fragments: this one's answer
        # is sought at once (a look at the cache, or a GET while the rest is still extracted).
        # One at a time per URL; a fragment none answers is asked again by `results`.
        ids_future = self._id_outcomes.get(key)
        if ids_future is None or (ids_future.done() and not ids_future.cancelled() and ids_future.exception() is None
                                  and not ids_future.result().answers(fragment)):
            ids_future = asyncio.ensure_future(self._ids_after(ids_future or future, base, fragment))
            self._id_outcomes[key] = ids_future
        return ids_future

    async def _queued(self, base: str, *, want_ids: bool) -> Outcome:
        """`base` checked by this run, queued at its host (its record may have come in meanwhile)."""
        return await self.hosts.queue(base, lambda: self._guarded_check(base, want_ids=want_ids))

    def _advance(self, _: object) -> None:
        self._done += 1
        if self._progress is not None:
            self._progress.update(self._done, len(self._outcomes), self.hosts.paused_hosts)

    async def _ids_after(self, first: asyncio.Future[Outcome], base: str, fragment: str) -> Outcome:
        outcome = await first
        return outcome if outcome.answers(fragment) else await self._ids_again(base, outcome)

    async def _ids_again(self, base: str, outcome: Outcome) -> Outcome:
        """`outcome` with the page's ids looked up again for every fragment asked of it by now:
        in the cache, else (not read yet this run) by reading the page."""
        return await self._guarded_check(base, want_ids=True, known=outcome.result)

    async def _guarded_check(self, base: str, *, want_ids: bool, known: CheckResult | None = None, looked_up: bool = False) -> Outcome:
        """`_check_url` that turns any unexpected failure into an ERROR result, not a crash."""
        try:
            return await self._check_url(base, want_ids=want_ids, known=known, looked_up=looked_up)
        except (NetworkDownError, asyncio.CancelledError):
            raise
        except Exception as exc:
            log.warning("checking %s failed unexpectedly: %r", base, exc, exc_info=log.isEnabledFor(logging.DEBUG))
            return Outcome(
                result=CheckResult(url=base, status=Status.ERROR, reason=Reason.INTERNAL, detail=f"{type(exc).__name__}: {exc}", checked_at=time.time())
            )

    def _known_outcome(self, url: str, *, want_ids: bool, known: CheckResult | None) -> Outcome | None:
        """The outcome when no request is needed: refused, or fresh in the cache (with the
        page's ids when they are wanted and kept there)."""
        refusal = self.urls.refusal(url)
        if refusal is not None:
            return Outcome(result=refusal)
        cached = known or self.cache.get_result(url)
        if cached is not None:
            if not want_ids or cached.status not in (Status.OK, Status.REDIRECTED):
                return Outcome(result=cached)
            key = normalise_url(url)
            record = decode_record(self.cache.get(IDS_NAMESPACE, key))
            if record is None:  # not an HTML page
                return Outcome(result=cached, read_ids=True)
            if record is not False:
                kept, total = record
                asked = self._wanted.get(key, set())
                partial = total is not None and not all(ids_for((fragment,), kept).found for fragment in asked)
                # Ids kept in part answer a later run's fragments only when all of them are
                # there: else the page is read again. In this run, once read, they are what there is.
                if not partial or key in self._ids_read:
                    return Outcome(result=cached, ids=ids_for(asked, kept, kept=len(kept) if total else None, total=total or len(kept)),
                                   read_ids=True)
        return None

    async def _check_url(self, url: str, *, want_ids: bool, known: CheckResult | None, looked_up: bool = False) -> Outcome:
        if not looked_up or known is not None:
            found = self._known_outcome(url, want_ids=want_ids, known=known)
            if found is not None:
                return found
        await self.network.ensure_up(self._send_probe)
        target = self.transport.remap(url)
        return await self.urls.request(url, normalise_url(url), target, self.hosts.host_for(target), want_ids=want_ids)

    async def _send_probe(self, url: str) -> Answer:
        """The network probe: one HEAD, no retry, no redirect followed."""
        return await self.hosts.exchange(self.hosts.host_for(url), "HEAD", url, 0, CONTINUE)


def _split(url: str, fragment: str = "") -> tuple[str, str]:
    """(URL without fragment, fragment): an explicit fragment wins over one written in the URL."""
    base, _, written = url.partition("#")
    return base, fragment or written
