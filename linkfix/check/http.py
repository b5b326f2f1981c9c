"""External URL checking: one aiohttp session, polite per host, redirects by hand, cached.

The checker asks `policy` what an answer means and `soft404` whether a 200 is real; this
module does the talking. Politeness is enforced here, not hoped for:

* every request to a host is sent by one of that host's runners (`host_concurrency`, or the
  host's own `concurrency`, of them), one exchange at a time, so the number of connections busy
  with one host never exceeds it; redirect hops queue at the host they go to;
* a host's requests start at least `request_interval` apart;
* a 429/503 with Retry-After pauses the whole host, not just the URL that got it.

Each unique URL is checked once per run (a task per normalised URL that every occurrence
awaits) and its result is stored in the cache; a fresh cached result costs no request.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
import logging
import math
import os
import random
import re
import socket
import sys
import time
import urllib.request
from collections import deque
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Literal, Mapping
from urllib.parse import SplitResult, unquote, urljoin, urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver
from aiohttp.resolver import DefaultResolver

from ..store.cache import Cache, normalise_url
from ..config import Config, parse_accept
from ..errors import NetworkDownError
from ..extract.html import extract_html
from ..model import CheckResult, Redirect, Status
from . import policy, soft404
from .admission import Admission
from .cookies import ChainCookies
from .netsafety import GuardedResolver, Reach, allowed, classify_host, forbidden_in

log = logging.getLogger(__name__)

GITHUB_HOSTS = frozenset({"github.com", "api.github.com", "raw.githubusercontent.com"})
SNIFF_BYTES = 64 * 1024  # a GET without a fragment to find: enough for a title, text, bot markers
PAGE_BYTES = 8 * 1024 * 1024  # a GET that must find a fragment id
NETWORK_DOWN_HOSTS = 5  # distinct hosts failing DNS, none answering, before "network down"
IDS_NAMESPACE = "ids"
PROBE_NAMESPACE = "soft404-probe"
HOST_NAMESPACE = "host-method"  # hosts where HEAD did not pay off: GET first in later runs too
_DNS_NOT_FOUND = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}
_RETRY_ERRORS = frozenset({"timeout", "reset", "connection", "dns-error"})
# Slot priorities: requests that finish a URL already under way (redirect hops, GET after HEAD,
# soft-404 probes) go before the first request of a new URL, so URLs complete instead of all
# starting at once, and a probe's answer arrives while it can still save requests.
CONTINUE, START = 0, 1
HEAD_SAMPLE = 12  # HEADs to a host before judging whether HEAD pays off there
# A HEAD 404/410 is confirmed with a GET (some servers answer HEAD wrongly), until this many
# GETs in one directory of a host agreed and none disagreed: after that the directory's HEAD
# 404s are believed. Per directory, because a site's HEAD handling differs by route, not by page.
HEAD_GONE_SAMPLE = 3
# First retry after 0.25-0.375 s, then twice as long each time (max_retries of them). A retry
# that comes too early costs an `error` for this run, never a false `broken` (errors are asked
# again next run); waiting 0.5 s made the last failing URLs of a run its last second.
RETRY_BACKOFF = 0.25
CHECKS_PER_CONNECTION = 4  # URLs of a host checked at once, per connection (some wait for probes or backoff)
PACE_MARGIN = 2.0  # a paced host's headroom over the critical path (see _connections_for)
CRITICAL_SHARE = 0.8  # hosts with this share of the most work left pass the global limit (admission.py)
_HEAD_MISLEADS = -1
Method = str | Callable[[], str]
ReadLimit = int | Callable[[], int]  # body bytes a GET reads; a callable is asked at send time
_Extra = tuple[str, Mapping[str, str]] | None  # (host, headers) sent to that host only


@dataclass(frozen=True, slots=True, kw_only=True)
class Fetched:
    """A GET made for recovery (archive, sitemap, search API, candidate page)."""

    url: str
    final_url: str
    status: int  # 0: no HTTP answer (see `error`)
    headers: Mapping[str, str]
    text: str
    elapsed: float
    error: str = ""
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class _Answer:
    """One HTTP exchange, or the reason there was none."""

    url: str
    method: str = "GET"
    status: int = 0
    headers: Mapping[str, str] | None = None
    body: bytes = b""
    charset: str = ""
    error: str = ""  # short code when status == 0: dns, dns-error, timeout, reset, tls, ...
    detail: str = ""

    @property
    def header_map(self) -> Mapping[str, str]:
        return self.headers or {}

    def text(self) -> str:
        return _decode(self.body, self.charset)

    @property
    def is_html(self) -> bool:
        kind = self.header_map.get("Content-Type", "").split(";")[0].strip().lower()
        return kind in ("", "text/html", "application/xhtml+xml")


@dataclass(frozen=True, slots=True, kw_only=True)
class _Outcome:
    """A URL's result plus the ids of its page when they were read (for #fragment checks)."""

    result: CheckResult
    ids: frozenset[str] | None = None  # None: not an HTML page, or not read
    read_ids: bool = False  # the page was fetched for its ids (so None means "not HTML")


@dataclass(slots=True, eq=False)
class _Job:
    """One request waiting for a connection of its host."""

    method: Method
    url: str
    read: ReadLimit
    extra: _Extra
    answer: asyncio.Future[_Answer]


class _Host:
    """Per-host politeness state: queued requests and the runners that send them, spacing,
    backoff, what we learned about HEAD.

    At most `concurrency` runners exist; each sends one request at a time and, when its answer
    is in, takes the next queued one at once (in the same step of the event loop, not one
    later as a woken waiter would: on a busy loop every step costs the host a few milliseconds
    per round trip)."""

    __slots__ = ("concurrency", "queue", "runners", "rtt", "pending", "early", "troubled", "checking", "strikes", "interval", "next_start", "paused_until", "head_ok", "heads", "heads_wasted", "backlog")

    def __init__(self, concurrency: int, interval: float) -> None:
        self.concurrency = max(1, concurrency)
        self.queue: list[tuple[int, int, _Job]] = []  # heap: (priority, arrival, job)
        self.runners = 0
        self.rtt = 0.0  # moving average of its round trips (s); 0: none yet
        # URLs wait here until fewer than concurrency x CHECKS_PER_CONNECTION of the host's are
        # being checked: a task per URL up front cost a burst of CPU (and memory) at the start.
        self.pending: deque[tuple[str, bool, asyncio.Future[_Outcome]]] = deque()
        # Server trouble clusters by route: once an answer from a directory of this host needs a
        # retry (5xx, timeout, reset), the URLs waiting in that directory start before the rest,
        # so that their own retries' backoff overlaps the host's other work instead of trailing
        # after it (the last of a host's URLs to fail otherwise waits out its backoff alone).
        self.early: deque[tuple[str, bool, asyncio.Future[_Outcome]]] = deque()
        self.troubled: set[str] = set()  # directories (see _directory) with an answer retried
        self.checking = 0
        self.strikes = 0  # 429s (and 503s with Retry-After) in a row: each pauses the host longer
        self.backlog = 0  # URLs of this host being checked or waiting to be: its share of the work left
        self.interval = interval
        self.next_start = 0.0
        self.paused_until = 0.0
        self.head_ok = True
        self.heads = 0  # URLs of this host checked with HEAD first ...
        self.heads_wasted = 0  # ... and how many of them needed a GET all the same

    @property
    def prefers_get(self) -> bool:
        """HEAD saves nothing on a host where most HEADs are followed by a GET anyway (404s
        to confirm, soft-404 comparisons): one GET is then cheaper than HEAD + GET."""
        return not self.head_ok or (self.heads >= HEAD_SAMPLE and self.heads_wasted * 2 > self.heads)

    async def turn(self) -> None:
        """Wait until this host may receive the next request (interval and backoff)."""
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            start = max(self.next_start, self.paused_until)
            if start <= now:
                self.next_start = now + self.interval
                return
            await asyncio.sleep(start - now)

    def pause(self, seconds: float) -> None:
        self.paused_until = max(self.paused_until, asyncio.get_running_loop().time() + seconds)

    @property
    def paused(self) -> bool:
        return self.paused_until > asyncio.get_running_loop().time()


class HttpChecker:
    """Checks external URLs; also the HTTP client recovery uses (`fetch`)."""

    def __init__(
        self,
        config: Config,
        cache: Cache,
        *,
        resolver: AbstractResolver | None = None,
        progress: bool = False,
        backoff: float = RETRY_BACKOFF,
        max_retry_after: float = policy.MAX_RETRY_AFTER,
    ) -> None:
        self.config = config
        self.cache = cache
        self.requests_sent = 0
        self._resolver = resolver
        self._backoff = backoff
        self._max_retry_after = max_retry_after
        self._accept = parse_accept(config.accept)
        self._exclude = [re.compile(p) for p in config.exclude]
        self._include = [re.compile(p) for p in config.include]
        self._remap = [(re.compile(rule.split(maxsplit=1)[0]), rule.split(maxsplit=1)[1]) for rule in config.remap]
        self._hosts_config = {str(k).lower(): v for k, v in config.hosts.items()}
        self._github_token = os.environ.get("GITHUB_TOKEN", "")
        # HTTP(S)_PROXY / NO_PROXY, read once: aiohttp's trust_env looks them (and ~/.netrc) up
        # in a worker thread for every request, which costs more than the request on loopback.
        self._proxies = urllib.request.getproxies_environment()  # {"http": ..., "https": ..., "no": ...}
        self._proxy_for_host: dict[tuple[str, str], str | None] = {}
        self._host_headers: dict[tuple[str, str], dict[str, str]] = {}
        self._hosts: dict[str, _Host] = {}
        self._outcomes: dict[str, asyncio.Future[_Outcome]] = {}
        self._want_ids: set[str] = set()  # normalised URLs some submitted target needs the ids of
        self._id_outcomes: dict[str, asyncio.Future[_Outcome]] = {}
        self._probes: dict[str, asyncio.Future[soft404.Probe]] = {}
        self._lenient_dirs: set[str] = set()
        self._origin_refusals: dict[str, CheckResult | Literal[False]] = {}  # see _refusal
        self._head_gone: dict[str, int] = {}  # directory -> HEAD 404s a GET confirmed, or _HEAD_MISLEADS
        self._session: aiohttp.ClientSession | None = None
        self._admission: Admission | None = None
        self._runners: set[asyncio.Task[None]] = set()  # see _Host
        self._order = itertools.count()  # arrival order of queued requests (ties in priority)
        self._most_rounds = 0.0  # see _rank_hosts
        self._critical_seconds = 0.0  # see _rank_hosts
        self._network_checked: asyncio.Future[None] | None = None
        self._in_flight = 0
        self._dns_failed: set[str] = set()
        self._answered: set[str] = set()
        self._down: NetworkDownError | None = None
        self._progress = _Progress(self._hosts) if progress and _is_interactive() else None

    # -- lifecycle ----------------------------------------------------------------------------
    async def __aenter__(self) -> "HttpChecker":
        self.open()
        return self

    def open(self) -> None:
        """Create the session (inside a running event loop); `__aexit__` closes it."""
        resolver = GuardedResolver(self._resolver or DefaultResolver(), allow_private=self.config.allow_private)
        connector = aiohttp.TCPConnector(
            limit=self.config.max_concurrency,
            limit_per_host=0,  # per-host limits are ours (_Host runners): they also cover redirects
            resolver=resolver,
            ttl_dns_cache=300,
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            trust_env=False,  # proxies from the environment are applied per request (_proxy)
            timeout=aiohttp.ClientTimeout(total=self.config.timeout, sock_connect=min(self.config.timeout, 10.0)),
            headers={
                "User-Agent": self.config.user_agent,
                "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            },
            cookie_jar=aiohttp.DummyCookieJar(),  # see cookies.py: cookies live for one redirect chain
            auto_decompress=True,
        )
        busiest = max([self.config.host_concurrency, *(int(h.get("concurrency", 0) or 0) for h in self._hosts_config.values())])
        self._admission = Admission(self.config.max_concurrency, minimum=busiest, on_tick=self._rank_hosts)
        self._admission.start()

    async def __aexit__(self, *exc_info: object) -> None:
        for runner in list(self._runners):
            runner.cancel()
        if self._admission is not None:
            self._admission.stop()
            if self._admission.lowest < self._admission.maximum:
                log.info("the event loop fell behind: at most %d requests were in flight at times (max_concurrency %d)",
                         self._admission.lowest, self._admission.maximum)
        if self._progress:
            self._progress.finish()
        for key, host in self._hosts.items():
            if host.prefers_get and host.heads:  # learned this run: remember for the next ones
                self.cache.set(HOST_NAMESPACE, key, "get", self.cache.max_age)
        if self._outcomes or self.requests_sent:
            log.info(
                "external links: %d unique URLs, %d requests to %d hosts, %d soft-404 probes (%d directories answer 200 for anything)",
                len(self._outcomes), self.requests_sent, len(self._hosts), len(self._probes), len(self._lenient_dirs),
            )
        for future in (*self._outcomes.values(), *self._id_outcomes.values(), *self._probes.values()):
            if not future.done():
                future.cancel()
        if self._session is not None:
            await self._session.close()
            self._session = None
        self.cache.flush()

    # -- public API ---------------------------------------------------------------------------
    async def check(self, url: str, *, fragment: str = "") -> CheckResult:
        """The status of `url` (and of `#fragment` on it). Raises NetworkDownError only."""
        base, fragment = _split(url, fragment)
        outcome = await self._outcome(base, want_ids=self._needs_ids(fragment))
        if self._down:
            raise self._down
        return self._result_for(base, fragment, outcome)

    async def check_many(self, targets: Iterable[tuple[str, str]]) -> dict[tuple[str, str], CheckResult]:
        """Check (url, fragment) pairs concurrently; each URL is fetched once for all its fragments."""
        targets = list(dict.fromkeys(targets))
        for url, fragment in targets:
            self.submit(url, fragment)
        return await self.results(targets)

    def submit(self, url: str, fragment: str = "") -> None:
        """Start checking `url` (for `#fragment`) in the background; `results` collects it.

        One task per URL, not per target. Whether a URL's page is read for its ids is decided
        when its first request gets a slot, so a fragment target submitted after the URL
        itself but before its turn costs no second request."""
        base, fragment = _split(url, fragment)
        needs_ids = self._needs_ids(fragment)
        if needs_ids:
            self._want_ids.add(normalise_url(base))
        self._outcome_future(base, want_ids=needs_ids)

    async def results(self, targets: Iterable[tuple[str, str]]) -> dict[tuple[str, str], CheckResult]:
        """The results of submitted (url, fragment) targets, once all are known. Raises
        NetworkDownError (and cancels what is left) when the network turned out to be down."""
        split = {target: _split(*target) for target in dict.fromkeys(targets)}
        futures = {target: self._outcome_future(base, want_ids=self._needs_ids(fragment)) for target, (base, fragment) in split.items()}
        try:
            await asyncio.gather(*set(futures.values()))
        except NetworkDownError:
            for future in futures.values():
                future.cancel()
            await asyncio.gather(*futures.values(), return_exceptions=True)
            raise
        if self._down:
            raise self._down
        return {target: self._result_for(base, fragment, futures[target].result()) for target, (base, fragment) in split.items()}

    def _result_for(self, base: str, fragment: str, outcome: _Outcome) -> CheckResult:
        result = outcome.result
        if result.url != base:  # another spelling of the same URL was checked: report this one
            result = replace(result, url=base)
        if not fragment:
            return result
        ids = outcome.ids if self._needs_ids(fragment) else None
        return _judge_fragment(replace(result, url=f"{base}#{fragment}"), fragment, ids)

    async def fetch(self, url: str, *, max_bytes: int = 2_000_000, headers: Mapping[str, str] | None = None) -> Fetched:
        """GET `url` with the checker's politeness, safety and redirect handling. Never raises
        for network trouble: `status == 0` and `error` say what happened. `headers` (an API
        key, say) go to `url`'s host only, never to a host a redirect leads to."""
        started = time.monotonic()
        refusal = self._refusal(url)
        if refusal is not None:
            return Fetched(url=url, final_url=url, status=0, headers={}, text="", elapsed=0.0, error=refusal.reason)
        try:
            await self._check_network()
        except NetworkDownError as exc:
            return Fetched(url=url, final_url=url, status=0, headers={}, text="", elapsed=0.0, error=f"network-down: {exc}")
        target = self._apply_remap(url)
        extra = (_hostname(target), dict(headers)) if headers else None
        answer, chain, stop = await self._follow(target, "GET", max_bytes, extra=extra)
        elapsed = time.monotonic() - started
        error = stop.reason if stop else answer.error
        return Fetched(
            url=url,
            final_url=answer.url,
            status=0 if stop else answer.status,
            headers=dict(answer.header_map),
            text=answer.text() if not stop else "",
            elapsed=elapsed,
            error=error,
            redirects=chain,
        )

    # -- one URL ------------------------------------------------------------------------------
    def _needs_ids(self, fragment: str) -> bool:
        return bool(fragment) and self.config.include_fragments and not _fragment_always_ok(fragment)

    def _outcome_future(self, base: str, *, want_ids: bool) -> asyncio.Future[_Outcome]:
        key = normalise_url(base)
        future = self._outcomes.get(key)
        if future is None:
            known = self._known_outcome_safely(base, want_ids=want_ids)
            if known is None:
                future = self._queue_check(base, want_ids=want_ids)
            else:  # answered without a request: no task to schedule (most URLs of a warm run)
                future = asyncio.get_running_loop().create_future()
                future.set_result(known)
            self._outcomes[key] = future
            if self._progress:
                self._progress.total += 1
                future.add_done_callback(lambda _: self._progress and self._progress.advance())
            return future
        if not want_ids:
            return future
        # Checked (or being checked) without its ids; a fragment target needs them once.
        ids_future = self._id_outcomes.get(key)
        if ids_future is None:
            ids_future = asyncio.ensure_future(self._ids_after(future, base))
            self._id_outcomes[key] = ids_future
        return ids_future

    def _queue_check(self, base: str, *, want_ids: bool) -> asyncio.Future[_Outcome]:
        """The outcome of checking `base`, started once its host has room (see `_Host.pending`)."""
        outcome: asyncio.Future[_Outcome] = asyncio.get_running_loop().create_future()
        try:
            host = self._host_for(self._apply_remap(base))
        except ValueError:  # let the check itself report what is wrong with the URL
            task = asyncio.ensure_future(self._guarded_check(base, want_ids=want_ids, looked_up=True))
            task.add_done_callback(functools.partial(_settle, outcome))
            return outcome
        host.backlog += 1
        waiting = host.early if host.troubled and _directory(self._apply_remap(base)) in host.troubled else host.pending
        waiting.append((base, want_ids, outcome))
        self._start_checks(host)
        return outcome

    def _start_checks(self, host: _Host) -> None:
        while host.checking < host.concurrency * CHECKS_PER_CONNECTION and (host.early or host.pending):
            base, want_ids, outcome = (host.early or host.pending).popleft()
            if outcome.done():  # cancelled before it started
                host.backlog -= 1
                continue
            host.checking += 1
            task = asyncio.ensure_future(self._guarded_check(base, want_ids=want_ids, looked_up=True))
            task.add_done_callback(functools.partial(self._check_done, host, outcome))
            outcome.add_done_callback(functools.partial(_cancel_with, task))

    def _note_trouble(self, url: str) -> None:
        """An answer from `url` is to be retried: its directory's waiting URLs go first (see _Host.early)."""
        host = self._host_for(url)
        directory = _directory(url)
        if directory in host.troubled:
            return
        host.troubled.add(directory)
        rest: deque[tuple[str, bool, asyncio.Future[_Outcome]]] = deque()
        for item in host.pending:
            (host.early if _directory(self._apply_remap(item[0])) == directory else rest).append(item)
        host.pending = rest

    def _check_done(self, host: _Host, outcome: asyncio.Future[_Outcome], task: asyncio.Task[_Outcome]) -> None:
        host.checking -= 1
        host.backlog -= 1
        _settle(outcome, task)
        self._start_checks(host)

    async def _outcome(self, base: str, *, want_ids: bool) -> _Outcome:
        # shield: one caller's cancellation must not cancel the check every occurrence shares
        return await asyncio.shield(self._outcome_future(base, want_ids=want_ids))

    async def _ids_after(self, first: asyncio.Future[_Outcome], base: str) -> _Outcome:
        outcome = await first
        if outcome.read_ids or outcome.result.status not in (Status.OK, Status.REDIRECTED):
            return outcome
        return await self._guarded_check(base, want_ids=True, known=outcome.result)

    async def _guarded_check(self, base: str, *, want_ids: bool, known: CheckResult | None = None, looked_up: bool = False) -> _Outcome:
        """`_check_url` that turns any unexpected failure into an ERROR result, not a crash."""
        try:
            return await self._check_url(base, want_ids=want_ids, known=known, looked_up=looked_up)
        except (NetworkDownError, asyncio.CancelledError):
            raise
        except Exception as exc:  # noqa: BLE001 - one odd URL must not stop the run
            log.warning("checking %s failed unexpectedly: %r", base, exc, exc_info=log.isEnabledFor(logging.DEBUG))
            return _Outcome(
                result=CheckResult(url=base, status=Status.ERROR, reason="internal", detail=f"{type(exc).__name__}: {exc}", checked_at=time.time())
            )

    def _known_outcome_safely(self, url: str, *, want_ids: bool) -> _Outcome | None:
        try:
            return self._known_outcome(url, want_ids=want_ids, known=None)
        except Exception:  # noqa: BLE001 - the task path looks again and reports the failure
            return None

    def _known_outcome(self, url: str, *, want_ids: bool, known: CheckResult | None) -> _Outcome | None:
        """The outcome when no request is needed: refused, or fresh in the cache."""
        refusal = self._refusal(url)
        if refusal is not None:
            return _Outcome(result=refusal)
        cached = known or self.cache.get_result(url)
        if cached is not None:
            if not want_ids or cached.status not in (Status.OK, Status.REDIRECTED):
                return _Outcome(result=cached)
            known_ids = self.cache.get(IDS_NAMESPACE, normalise_url(url))
            if isinstance(known_ids, dict) and "ids" in known_ids:
                ids = known_ids["ids"]
                return _Outcome(result=cached, ids=None if ids is None else frozenset(ids), read_ids=True)
        return None

    async def _check_url(self, url: str, *, want_ids: bool, known: CheckResult | None, looked_up: bool = False) -> _Outcome:
        if not looked_up or known is not None:
            found = self._known_outcome(url, want_ids=want_ids, known=known)
            if found is not None:
                return found
        key = normalise_url(url)
        await self._check_network()
        target = self._apply_remap(url)
        return await self._request_url(url, key, target, self._host_for(target), want_ids=want_ids)

    async def _request_url(self, url: str, key: str, target: str, host: _Host, *, want_ids: bool) -> _Outcome:
        """The requests `_check_url` needs for one URL (not in the cache), and their verdict."""
        head_trusted = policy.head_is_trusted(_hostname(target))
        probe_key = soft404.probe_key(target)

        reads_ids = [want_ids]
        # A URL that failed (error, timeout) in the last run too gets one try, and a GET: backing
        # off and retrying is for passing trouble, and a HEAD's 5xx would be asked again by GET.
        previous = self.cache.last_result(url)
        failed_before = previous is not None and previous.status in (Status.ERROR, Status.TIMEOUT)
        retries = 0 if failed_before else None

        def choose() -> str:
            # Decided when the request gets its slot, not when the URL was queued: by then a
            # probe may have shown that this directory needs GET anyway, or a fragment link to
            # this URL may have turned up.
            reads_ids[0] = want_ids or key in self._want_ids
            lenient = probe_key in self._lenient_dirs
            return "GET" if reads_ids[0] or lenient or failed_before or not head_trusted or host.prefers_get else "HEAD"

        def read() -> int:  # asked after choose(), for every hop of this URL
            return PAGE_BYTES if reads_ids[0] else SNIFF_BYTES

        answer, chain, stop = await self._follow(target, choose, read, priority=START, retries=retries)
        headed = answer.method == "HEAD"
        if headed and stop is None and answer.status and policy.should_retry_with_get(answer.status) and not self._believe_head(answer):
            if answer.status in (405, 501):
                host.head_ok = False  # the host does not do HEAD: save a request on its next URLs
            head = answer
            answer, chain, stop = await self._follow(target, "GET", read, retries=retries)
            if head.status in policy.GONE and stop is None and answer.status:
                self._learn_head_gone(head, agreed=answer.status in policy.GONE)
        want_ids = reads_ids[0]
        result = self._judge(url, answer, chain, stop)
        ids: frozenset[str] | None = None
        if result.status in (Status.OK, Status.REDIRECTED) and answer.status == 200 and answer.is_html:
            result, answer = await self._soft404(result, answer, got_body=answer.method == "GET")
            if want_ids and result.status is not Status.BROKEN:
                ids = page_ids(answer.text(), answer.url)
        if headed:
            host.heads += 1
            host.heads_wasted += answer.method == "GET"
        if not (result.reason == "dns" and not self._answered):
            # A name that fails while no host has answered yet may be a dead network, not a dead
            # link: only remember it once the network has shown it works.
            self.cache.put_result(url, result)
        read_ids = want_ids and answer.method == "GET" and result.status in (Status.OK, Status.REDIRECTED)
        if read_ids:
            # {"ids": None} remembers "not an HTML page" so the next run does not fetch it again.
            self.cache.set(IDS_NAMESPACE, key, {"ids": None if ids is None else sorted(ids)}, _ids_ttl(result, self.cache.max_age))
        return _Outcome(result=result, ids=ids, read_ids=read_ids)

    def _rank_hosts(self) -> None:
        """The critical path of the run: the most rounds of requests any host has left, and the
        most time any host needs for them at its round-trip time so far."""
        self._most_rounds = max((host.backlog / host.concurrency for host in self._hosts.values()), default=0.0)
        self._critical_seconds = max((host.backlog * host.rtt / host.concurrency for host in self._hosts.values()), default=0.0)

    def _connections_for(self, host: _Host) -> int:
        """Connections `host` may use now: all of them on the critical path; a host that needs
        less time than that gets enough to finish with it, with headroom (PACE_MARGIN). Its
        answers then come spread over the run instead of crowding its first seconds, and the
        event loop reads the critical host's answers sooner. Paced by time, not rounds: a slow
        host is not held to the pace of a fast one."""
        if self._critical_seconds <= 0 or not host.rtt:
            return host.concurrency
        return max(1, min(host.concurrency, math.ceil(PACE_MARGIN * host.backlog * host.rtt / self._critical_seconds)))

    def _believe_head(self, answer: _Answer) -> bool:
        """Whether a HEAD's 404/410 stands without a GET (see HEAD_GONE_SAMPLE)."""
        return answer.status in policy.GONE and self._head_gone.get(soft404.probe_key(answer.url), 0) >= HEAD_GONE_SAMPLE

    def _learn_head_gone(self, head: _Answer, *, agreed: bool) -> None:
        key = soft404.probe_key(head.url)
        seen = self._head_gone.get(key, 0)
        if seen != _HEAD_MISLEADS:
            self._head_gone[key] = seen + 1 if agreed else _HEAD_MISLEADS

    def _refusal(self, url: str) -> CheckResult | None:
        """A result that needs no request: unsupported scheme, excluded, forbidden address."""
        if self.config.offline:
            return CheckResult(url=url, status=Status.EXCLUDED, reason="offline", detail="external link not checked (--offline)", checked_at=time.time())
        # What depends on the scheme and host alone is decided once per origin (a warm run asks
        # this for every URL, and splitting each one showed up in profiles), unless remap rules
        # may send a URL elsewhere.
        origin = _origin(url) if not self._remap else ""
        refused = self._origin_refusals.get(origin) if origin else None
        if refused is None:
            refused = self._refuse_origin(url)
            if origin:
                self._origin_refusals[origin] = refused
        if refused:
            return replace(refused, url=url, checked_at=time.time())
        if self._exclude and any(p.search(url) for p in self._exclude) and not any(p.search(url) for p in self._include):
            return CheckResult(url=url, status=Status.EXCLUDED, reason="excluded", detail="matches an exclude pattern", checked_at=time.time())
        return None

    def _refuse_origin(self, url: str) -> CheckResult | Literal[False]:
        """The refusal `url`'s scheme and host (after remap) earn, or False."""
        try:
            parts = _urlsplit(url)
            hostname = parts.hostname or ""
            parts.port  # noqa: B018 - raises ValueError on a malformed port
        except ValueError as exc:
            return CheckResult(url=url, status=Status.BROKEN, reason="invalid-url", detail=str(exc))
        if parts.scheme.lower() not in ("http", "https"):
            return CheckResult(url=url, status=Status.UNSUPPORTED, reason=parts.scheme.lower() or "no-scheme")
        if not hostname:
            return CheckResult(url=url, status=Status.BROKEN, reason="invalid-url", detail="no host name")
        reach = _reach(_hostname(self._apply_remap(url)))
        if not allowed(reach, allow_private=self.config.allow_private):
            return _forbidden_result(url, reach, hostname)
        return False

    def _judge(self, url: str, answer: _Answer, chain: tuple[Redirect, ...], stop: policy.Verdict | None) -> CheckResult:
        verdict, http_status = self._verdict(answer, chain, stop)
        return CheckResult(
            url=url,
            status=verdict.status,
            reason=verdict.reason,
            detail=verdict.detail,
            http_status=http_status,
            redirects=chain,
            final_url=answer.url if chain else "",
            permanent=policy.is_permanent(chain),
            checked_at=time.time(),
        )  # built once: dataclasses.replace per step showed up in profiles

    def _verdict(self, answer: _Answer, chain: tuple[Redirect, ...], stop: policy.Verdict | None) -> tuple[policy.Verdict, int | None]:
        """What the exchange means, and the HTTP status to report with it (None: no answer)."""
        if stop is not None:
            return stop, None
        if answer.error in ("private-address", "metadata-address"):  # caught after DNS resolution
            return policy.Verdict(status=Status.EXCLUDED, reason=answer.error, detail=answer.detail), None
        if answer.status == 0:
            return policy.judge_network_error(answer.error, answer.detail), None
        # Only an anti-bot answer needs its body read (markers); decoding every body costs.
        body = answer.text()[:20000] if answer.body and answer.status in policy.CHALLENGE_STATUSES else ""
        verdict = policy.judge_status(
            answer.status, answer.header_map, accept=self._accept, blocked_is_broken=self.config.blocked_is_broken, body=body
        )
        if chain and verdict.status is Status.OK and normalise_url(answer.url) == normalise_url(chain[0].url):
            return verdict, answer.status  # back where it started (a cookie round trip): no redirect for the reader
        if chain and verdict.status is Status.OK:
            hidden = policy.judge_redirect_target(chain[0].url, answer.url)
            if hidden is not None:
                return hidden, answer.status
            kind = "permanent" if policy.is_permanent(chain) else "temporary"
            return policy.Verdict(status=Status.REDIRECTED, reason=kind, detail=f"{kind} redirect to {answer.url}"), answer.status
        return verdict, answer.status

    async def _soft404(self, result: CheckResult, answer: _Answer, *, got_body: bool) -> tuple[CheckResult, _Answer]:
        """Compare a 200 page with its host's answer to a random sibling path."""
        if policy.is_home_page(answer.url):
            return result, answer  # a catch-all host answers its home page for everything: that is no soft-404
        probe = await self._probe(answer.url)
        if not probe.lenient:
            return result, answer
        if not got_body:
            page, _, stop = await self._follow(answer.url, "GET", SNIFF_BYTES)
            if stop is not None or page.status != 200:
                return result, answer
            answer = page
        if soft404.is_soft404(soft404.sketch(answer.text(), answer.url, compact=False), probe):
            return (
                replace(result, status=Status.BROKEN, reason="soft-404", detail="the page looks like the site's answer for a page that does not exist"),
                answer,
            )
        return result, answer

    async def _probe(self, page_url: str) -> soft404.Probe:
        key = soft404.probe_key(page_url)
        future = self._probes.get(key)
        if future is None:
            future = asyncio.ensure_future(self._run_probe(page_url, key))
            self._probes[key] = future
        return await asyncio.shield(future)

    async def _run_probe(self, page_url: str, key: str) -> soft404.Probe:
        cached = self.cache.get(PROBE_NAMESPACE, key)
        probe = _decode_probe(cached) if cached is not None else None
        if probe is None:
            answer, _, stop = await self._follow(soft404.probe_url(page_url), "GET", SNIFF_BYTES)
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
            self._lenient_dirs.add(key)
        return probe

    # -- redirects, retries, one exchange ---------------------------------------------------------
    async def _follow(
        self, url: str, method: Method, read: ReadLimit, *, priority: int = CONTINUE, extra: _Extra = None, retries: int | None = None
    ) -> tuple[_Answer, tuple[Redirect, ...], policy.Verdict | None]:
        """Request `url`, following redirects by hand. Returns the last answer, the chain, and a
        verdict when the chain itself decides (loop, too long, forbidden or odd target).
        `extra` is (host, headers): headers sent to that host only, hop by hop; `retries`
        overrides `max_retries`."""
        chain: list[Redirect] = []
        cookies = ChainCookies()
        seen = {(normalise_url(url), "")}
        current = url
        while True:
            current_host = _hostname(current)
            answer = await self._attempt(method, current, read, priority, _with_cookies(extra, current_host, cookies), retries)
            cookies.take(current_host, answer.headers)
            method, priority = answer.method, CONTINUE  # later hops keep the method, finish first
            location = answer.header_map.get("Location", "") if answer.status in policy.REDIRECTS else ""
            if not location:
                return answer, tuple(chain), None
            try:
                following = self._apply_remap(urljoin(current, location.strip()))
                following_host = _urlsplit(following).hostname or ""
            except ValueError:
                return answer, tuple(chain), policy.Verdict(status=Status.BROKEN, reason="bad-redirect", detail=f"unusable Location {location!r}")
            chain.append(Redirect(url=current, status=answer.status, location=following))
            scheme = _urlsplit(following).scheme.lower()
            if scheme not in ("http", "https") or not following_host:
                return answer, tuple(chain), policy.Verdict(status=Status.ERROR, reason="bad-redirect", detail=f"redirect to unsupported URL {following}")
            key = (normalise_url(following), cookies.state(following_host.lower()))
            if key in seen:
                return answer, tuple(chain), policy.Verdict(status=Status.BROKEN, reason="redirect-loop", detail=f"redirect loop back to {following}")
            if len(chain) > self.config.max_redirects:
                return answer, tuple(chain), policy.Verdict(
                    status=Status.BROKEN, reason="too-many-redirects", detail=f"more than {self.config.max_redirects} redirects"
                )
            reach = _reach(following_host)
            if not allowed(reach, allow_private=self.config.allow_private):
                forbidden = _forbidden_result(following, reach, following_host)
                return answer, tuple(chain), policy.Verdict(status=forbidden.status, reason=forbidden.reason, detail=f"redirect to {following}: {forbidden.detail}")
            seen.add(key)
            current = following
            if answer.status == 303 and method != "HEAD":
                method = "GET"

    async def _attempt(
        self, method: Method, url: str, read: ReadLimit, priority: int = CONTINUE, extra: _Extra = None, retries: int | None = None
    ) -> _Answer:
        """One request with retries: backoff for timeouts, resets and 5xx; Retry-After for 429/503."""
        host = self._host_for(url)
        limit = self.config.max_retries if retries is None else retries
        attempt = 0
        while True:
            answer = await self._exchange(host, method, url, read, priority, extra)
            method, priority = answer.method, CONTINUE
            if attempt >= limit or (answer.method == "HEAD" and policy.should_retry_with_get(answer.status)):
                return answer  # a HEAD the caller will confirm with GET: retry that instead
            delay = self._retry_delay(answer, attempt)
            if delay is None:
                return answer
            if attempt == 0:
                self._note_trouble(url)
            attempt += 1
            log.debug("retrying %s %s in %.2fs (attempt %d): %s", method, url, delay, attempt, answer.error or answer.status)
            await asyncio.sleep(delay)

    def _retry_delay(self, answer: _Answer, attempt: int) -> float | None:
        """Seconds before trying again, or None when the answer is final. A 429, or a 503 with
        Retry-After, is retried at once: its host's runner paused the whole host (`_host_pause`),
        so the retry waits for the host's turn like every other request to it."""
        if answer.status == 0:
            return self._jittered(attempt) if answer.error in _RETRY_ERRORS else None
        if not policy.is_retryable(answer.status) or _is_challenge(answer):
            return None  # a challenge does not go away by asking again
        if self._host_pause(answer, 0) is not None:
            return 0.0
        return self._jittered(attempt)

    def _host_pause(self, answer: _Answer, strikes: int) -> float | None:
        """How long the whole host waits after `answer`: its Retry-After on a 429/503, else on a
        429 a backoff that grows with the host's `strikes` (429s in a row); None: no pause."""
        if answer.status not in (429, 503) or _is_challenge(answer):
            return None
        wait = policy.parse_retry_after(answer.header_map.get("Retry-After"), cap=self._max_retry_after)
        if wait is not None:
            return wait
        return self._jittered(strikes) if answer.status == 429 else None

    def _jittered(self, attempt: int) -> float:
        return policy.backoff_delay(attempt, base=self._backoff, jitter=random.random() * 0.5)

    async def _exchange(
        self, host: _Host, method: Method, url: str, read: ReadLimit, priority: int = CONTINUE, extra: _Extra = None
    ) -> _Answer:
        assert self._session is not None and self._admission is not None, "use HttpChecker in 'async with'"
        job = _Job(method=method, url=url, read=read, extra=extra, answer=asyncio.get_running_loop().create_future())
        heapq.heappush(host.queue, (priority, next(self._order), job))
        if host.runners < self._connections_for(host):
            host.runners += 1
            runner = asyncio.ensure_future(self._run(host))
            self._runners.add(runner)
            runner.add_done_callback(self._runners.discard)
        answer = await job.answer  # cancelled: the runner skips the job, or drops its answer
        self._note_network(_hostname(url), answer)
        return answer

    async def _run(self, host: _Host) -> None:
        """One connection's worth of a host: send its queued requests, best priority first."""
        admission = self._admission
        assert admission is not None
        try:
            while host.queue and host.runners <= self._connections_for(host):
                _, _, job = heapq.heappop(host.queue)
                if job.answer.done():
                    continue  # its URL's check was cancelled meanwhile
                try:
                    if host.interval or host.paused_until:  # (most hosts: neither; a coroutine per request costs)
                        await host.turn()
                    # The host with the most work left goes first; hosts on the critical path go now.
                    rounds = host.backlog / host.concurrency
                    await admission.acquire(-rounds, urgent=rounds > 0 and rounds >= CRITICAL_SHARE * self._most_rounds)
                except BaseException:
                    job.answer.cancel()
                    raise
                self._in_flight += 1
                try:
                    chosen = job.method if isinstance(job.method, str) else job.method()
                    self.requests_sent += 1
                    limit = 0 if chosen != "GET" else job.read if isinstance(job.read, int) else job.read()
                    sent = time.monotonic()
                    answer = await self._request(chosen, job.url, limit, job.extra)
                    if answer.status:
                        took = time.monotonic() - sent
                        host.rtt = took if not host.rtt else 0.8 * host.rtt + 0.2 * took
                except BaseException as exc:  # cancelled, or a method chooser that failed
                    if not job.answer.done():
                        job.answer.cancel() if isinstance(exc, asyncio.CancelledError) else job.answer.set_exception(exc)
                    if isinstance(exc, asyncio.CancelledError):
                        raise
                    continue
                finally:
                    self._in_flight -= 1
                    admission.release()
                self._slow_down(host, answer)  # before this runner sends the host anything else
                if not job.answer.done():
                    job.answer.set_result(answer)
        finally:
            host.runners -= 1

    def _slow_down(self, host: _Host, answer: _Answer) -> None:
        """Pause the whole host when `answer` asks for it (see `_host_pause`)."""
        pause = self._host_pause(answer, host.strikes)
        if pause is not None:
            host.strikes += 1
            host.pause(pause)  # the turn() of every request to the host sees it
        elif answer.status:
            host.strikes = 0

    async def _request(self, method: str, url: str, read: int, extra: _Extra = None) -> _Answer:
        assert self._session is not None
        headers = self._headers_for(url)
        if extra is not None and extra[0] == _hostname(url):
            headers = {**headers, **extra[1]}
        try:
            # headers=None when there are none: aiohttp merges a given dict into the session's.
            async with self._session.request(method, url, headers=headers or None, allow_redirects=False, proxy=self._proxy(url)) as response:
                body = await _read_capped(response, read) if read else b""
                return _Answer(url=url, method=method, status=response.status, headers=response.headers, body=body, charset=response.charset or "")
        except Exception as exc:  # noqa: BLE001 - every failure becomes data (see _classify_error)
            kind, detail = _classify_error(exc)
            return _Answer(url=url, method=method, error=kind, detail=detail)

    def _headers_for(self, url: str) -> Mapping[str, str]:
        """The extra headers for `url`'s host (shared per scheme and host: do not mutate)."""
        parts = _urlsplit(url)
        hostname = (parts.hostname or "").lower()
        known = self._host_headers.get((parts.scheme, hostname))
        if known is not None:
            return known
        headers: dict[str, str] = {}
        settings = self._hosts_config.get(hostname) or {}
        headers.update({str(k): str(v) for k, v in (settings.get("headers") or {}).items()})
        # Per hop, never per chain: a redirect away from GitHub does not carry the token.
        if self._github_token and hostname in GITHUB_HOSTS and parts.scheme == "https":
            headers.setdefault("Authorization", f"Bearer {self._github_token}")
        self._host_headers[(parts.scheme, hostname)] = headers
        return headers

    def _proxy(self, url: str) -> str | None:
        """The proxy for `url` from HTTP_PROXY/HTTPS_PROXY, unless NO_PROXY covers its host."""
        if not (self._proxies.get("http") or self._proxies.get("https")):
            return None
        parts = _urlsplit(url)
        key = (parts.scheme, parts.netloc)
        if key not in self._proxy_for_host:
            bypass = urllib.request.proxy_bypass_environment(parts.netloc, self._proxies)
            self._proxy_for_host[key] = None if bypass else self._proxies.get(parts.scheme)
        return self._proxy_for_host[key]

    def _host_for(self, url: str) -> _Host:
        parts = _urlsplit(url)
        hostname = (parts.hostname or "").lower()
        key = f"{hostname}:{parts.port or ''}"
        host = self._hosts.get(key)
        if host is None:
            settings = self._hosts_config.get(hostname) or {}
            host = _Host(
                int(settings.get("concurrency", self.config.host_concurrency)),
                float(settings.get("request_interval", self.config.request_interval)),
            )
            if self.cache.get(HOST_NAMESPACE, key) == "get":  # learned in an earlier run
                host.head_ok = False
            self._hosts[key] = host
        return host

    def _apply_remap(self, url: str) -> str:
        for pattern, replacement in self._remap:
            url = pattern.sub(replacement, url)
        return url

    # -- network down ------------------------------------------------------------------------------
    async def _check_network(self) -> None:
        """Once per run, before the first request: the configured probe URL must answer."""
        if self._down:
            raise self._down
        if not self.config.network_probe:
            return
        if self._network_checked is None:
            self._network_checked = asyncio.ensure_future(self._probe_network(self.config.network_probe))
        await asyncio.shield(self._network_checked)

    async def _probe_network(self, url: str) -> None:
        answer = await self._exchange(self._host_for(url), "HEAD", url, 0, CONTINUE)
        if answer.status == 0:
            self._down = NetworkDownError(
                f"the network probe {url} did not answer ({answer.error}: {answer.detail}); "
                "not checking external links (fix the connection or proxy, or run with --offline)"
            )
            raise self._down

    def _note_network(self, hostname: str, answer: _Answer) -> None:
        if answer.status:
            self._answered.add(hostname)
        elif answer.error in ("dns", "dns-error"):
            self._dns_failed.add(hostname)
        if (
            self._down is None
            and not self._answered
            and len(self._dns_failed) >= NETWORK_DOWN_HOSTS
            and self._in_flight == 0  # nothing else still on its way: every attempt so far failed DNS
        ):
            sample = ", ".join(sorted(self._dns_failed)[:5])
            self._down = NetworkDownError(
                f"network down: no host name resolves ({len(self._dns_failed)} hosts failed, e.g. {sample}); "
                "not reporting links as broken (check the connection, DNS or proxy, or run with --offline)"
            )


# -- helpers ---------------------------------------------------------------------------------------
def _with_cookies(extra: _Extra, hostname: str, cookies: ChainCookies) -> _Extra:
    """`extra` for one hop, plus the Cookie header the chain so far has earned there."""
    header = cookies.header_for(hostname)
    if not header:
        return extra
    headers = dict(extra[1]) if extra is not None and extra[0] == hostname else {}
    headers["Cookie"] = header
    return hostname, headers


def _is_challenge(answer: _Answer) -> bool:
    return policy.is_bot_challenge(answer.status, answer.header_map, answer.text()[:20000] if answer.body else "")


def _settle(outcome: asyncio.Future[_Outcome], task: asyncio.Task[_Outcome]) -> None:
    """Pass a finished check's result (or failure) on to the outcome its callers await."""
    if outcome.done():
        return
    if task.cancelled():
        outcome.cancel()
    elif task.exception() is not None:
        outcome.set_exception(task.exception())  # type: ignore[arg-type]
    else:
        outcome.set_result(task.result())


def _cancel_with(task: asyncio.Task[_Outcome], outcome: asyncio.Future[_Outcome]) -> None:
    if outcome.cancelled():
        task.cancel()


def _origin(url: str) -> str:
    """`scheme://host[:port]` of a URL written that way, else '' (the slow path decides)."""
    scheme, sep, rest = url.partition("://")
    if not sep or not scheme.isalpha():
        return ""
    return f"{scheme.lower()}://{rest[:_first_of(rest, '/?#')]}"


def _directory(url: str) -> str:
    """`url` up to its last '/' before any query or fragment: the route it belongs to, cheaply
    (asked for every waiting URL of a host with trouble)."""
    return url[: url.rfind("/", 0, _first_of(url, "?#")) + 1]


def _first_of(text: str, marks: str) -> int:
    """Where the first of `marks` is in `text`, or its length (cheaper than a regex or urlsplit)."""
    end = len(text)
    for mark in marks:
        found = text.find(mark, 0, end)
        if found >= 0:
            end = found
    return end


def _split(url: str, fragment: str = "") -> tuple[str, str]:
    """(URL without fragment, fragment): an explicit fragment wins over one written in the URL."""
    base, _, written = url.partition("#")
    return base, fragment or written


# A URL is split by several steps of its check (refusal, host slots, headers, proxy, redirects);
# Python 3.11's urlsplit is not memoised, and splitting showed up in profiles. Both are pure.
@functools.lru_cache(maxsize=16384)
def _urlsplit(url: str) -> SplitResult:
    return urlsplit(url)


@functools.lru_cache(maxsize=16384)
def _hostname(url: str) -> str:
    try:
        return (_urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


_reach = functools.lru_cache(maxsize=4096)(classify_host)  # pure; parses IP literals


def _forbidden_result(url: str, reach: Reach, hostname: str) -> CheckResult:
    if reach is Reach.METADATA:
        return CheckResult(url=url, status=Status.EXCLUDED, reason="metadata-address", detail=f"{hostname} is a cloud metadata address: never fetched", checked_at=time.time())
    return CheckResult(
        url=url, status=Status.EXCLUDED, reason="private-address", detail=f"{hostname} is a loopback/private address (allow_private: true to check it)", checked_at=time.time()
    )


def _classify_error(exc: BaseException) -> tuple[str, str]:
    forbidden = forbidden_in(exc)
    if forbidden is not None:
        return ("metadata-address" if forbidden.reach is Reach.METADATA else "private-address"), str(forbidden)
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        cause = exc.os_error
        if getattr(cause, "errno", None) in _DNS_NOT_FOUND:
            return "dns", f"host name not found: {exc.host}"
        return "dns-error", f"cannot resolve {exc.host}: {cause}"
    if isinstance(exc, (aiohttp.ClientConnectorCertificateError, aiohttp.ClientSSLError)):
        return "tls", str(exc)
    if isinstance(exc, (asyncio.TimeoutError, aiohttp.ServerTimeoutError)):
        return "timeout", "no answer in time"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return "connection", str(exc)
    if isinstance(exc, (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError, aiohttp.ClientOSError, ConnectionError)):
        return "reset", str(exc) or type(exc).__name__
    if isinstance(exc, (aiohttp.InvalidURL, ValueError)):
        return "invalid-url", str(exc)
    if isinstance(exc, aiohttp.ClientResponseError):
        return "protocol", exc.message
    if isinstance(exc, aiohttp.ClientError):
        return "connection", str(exc) or type(exc).__name__
    return "error", f"{type(exc).__name__}: {exc}"


async def _read_capped(response: aiohttp.ClientResponse, limit: int) -> bytes:
    """Stream at most `limit` bytes of the body; the rest is never downloaded."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_chunked(64 * 1024):
        chunks.append(chunk)
        size += len(chunk)
        if size >= limit:
            break
    return b"".join(chunks)[:limit]


def _decode(body: bytes, charset: str) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return body.decode("utf-8", errors="replace")


def page_ids(html: str, url: str) -> frozenset[str]:
    """Fragment targets of a page: element ids and <a name> anchors (the HTML extractor's)."""
    return frozenset(extract_html(html, url, want_text=False).page.ids)


def _fragment_always_ok(fragment: str) -> bool:
    """Fragments every browser honours without an id: the top of page, text directives."""
    return fragment.lower() in ("top", "") or fragment.startswith(":~:")


def _judge_fragment(result: CheckResult, fragment: str, ids: frozenset[str] | None) -> CheckResult:
    if ids is None or result.status not in (Status.OK, Status.REDIRECTED) or _fragment_always_ok(fragment):
        return result
    decoded = unquote(fragment)
    # GitHub renders ids as "user-content-x" and scrolls to "#x" with a script.
    if {fragment, decoded, f"user-content-{decoded}"} & ids:
        return result
    return replace(result, status=Status.BROKEN, reason="missing-fragment", detail=f"the page has no element with id {decoded!r}")


def _ids_ttl(result: CheckResult, max_age: float) -> float:
    return max_age if result.status is Status.OK else max_age / 4


def _decode_probe(data: Any) -> soft404.Probe | None:
    if not isinstance(data, dict) or not isinstance(data.get("status"), int):
        return None
    sketch = None
    if isinstance(data.get("words"), list):
        sketch = soft404.make_sketch(final_url=str(data.get("final_url", "")), title=str(data.get("title", "")), words=tuple(map(str, data["words"])))
    return soft404.Probe(status=data["status"], sketch=sketch)


def _is_interactive() -> bool:
    return sys.stderr.isatty() and os.environ.get("CI", "").lower() not in ("1", "true", "yes")


class _Progress:
    """One stderr line: unique URLs done/total and hosts in backoff; redrawn at most 10x a second."""

    def __init__(self, hosts: Mapping[str, _Host]) -> None:
        self.total = 0
        self.done = 0
        self._hosts = hosts
        self._drawn = 0.0

    def advance(self) -> None:
        self.done += 1
        now = time.monotonic()
        if now - self._drawn >= 0.1 or self.done == self.total:
            self._drawn = now
            self._draw()

    def _draw(self) -> None:
        width = 30
        filled = width * self.done // max(self.total, 1)
        paused = sum(1 for host in self._hosts.values() if host.paused)
        extra = f"  {paused} host(s) in backoff" if paused else ""
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} URLs{extra}\033[K")
        sys.stderr.flush()

    def finish(self) -> None:
        if self.total:
            self._draw()
            sys.stderr.write("\n")
            sys.stderr.flush()
