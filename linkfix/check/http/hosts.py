"""Politeness, enforced here rather than hoped for: the host scheduler.

* every request to a host is sent by one of that host's runners (`host_concurrency`, or the
  host's own `concurrency`, of them), one exchange at a time, so the number of connections busy
  with one host never exceeds it; redirect hops queue at the host they go to;
* a host's requests start at least `request_interval` apart;
* a 429/503 with Retry-After pauses the whole host, not just the URL that got it; retries back
  off (`attempt`), and a directory whose answer needed one has its waiting URLs checked first;
* with a shared store (`cache_url`), every run sharing it holds these together (global_hosts.py);
* a host's URLs are checked a few at a time (`queue`), the hosts with the most work left are
  served first (admission.py), and hosts off the critical path are paced by time.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
import logging
import math
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ...config import Config
from ...model import Reason
from ...store.cache import Cache
from ...urls import hostname, route, split
from .. import policy
from .admission import Admission
from .budget import RequestBudget
from .global_hosts import GlobalHosts
from .network import NetworkWatch
from .transport import Answer, Extra, Transport

log = logging.getLogger(__name__)

T = TypeVar("T")
Method = str | Callable[[], str]  # a callable is asked when the request gets its connection
ReadLimit = int | Callable[[], int]  # body bytes a GET reads; a callable is asked at send time
HOST_NAMESPACE = "host-method"  # hosts where HEAD did not pay off: GET first in later runs too
_RETRY_ERRORS = frozenset({Reason.TIMEOUT, Reason.RESET, Reason.CONNECTION, Reason.NO_ROUTE, Reason.DNS_ERROR})
# Slot priorities: requests that finish a URL already under way (redirect hops, GET after HEAD,
# soft-404 probes) go before the first request of a new URL, so URLs complete instead of all
# starting at once, and a probe's answer arrives while it can still save requests.
CONTINUE, START = 0, 1
HEAD_SAMPLE = 12  # HEADs to a host before judging whether HEAD pays off there
# First retry after 0.25-0.375 s, then twice as long each time (max_retries of them). A retry
# that comes too early costs an `error` for this run, never a false `broken` (errors are asked
# again next run); waiting 0.5 s made the last failing URLs of a run its last second.
RETRY_BACKOFF = 0.25
CHECKS_PER_CONNECTION = 4  # URLs of a host checked at once, per connection (some wait for probes or backoff)
PACE_MARGIN = 2.0  # a paced host's headroom over the critical path (see connections_for)
CRITICAL_SHARE = 0.8  # hosts with this share of the most work left pass the global limit (admission.py)


@dataclass(slots=True, eq=False)
class _Job:
    """One request waiting for a connection of its host."""

    method: Method
    url: str
    read: ReadLimit
    extra: Extra
    answer: asyncio.Future[Answer]


_Waiting = tuple[str, Callable[[], Awaitable[Any]], asyncio.Future[Any]]  # (target URL, start, outcome)


class Host:
    """Per-host politeness state: queued requests and the runners that send them, spacing,
    backoff, what we learned about HEAD.

    At most `concurrency` runners exist; each sends one request at a time and, when its answer
    is in, takes the next queued one at once (in the same step of the event loop, not one
    later as a woken waiter would: on a busy loop every step costs the host a few milliseconds
    per round trip)."""

    __slots__ = ("backlog", "checking", "concurrency", "early", "head_ok", "heads", "heads_wasted", "interval", "key", "last_start", "next_start", "paused_until", "pending", "queue", "rtt", "runners", "sent_at", "strikes", "troubled")

    def __init__(self, concurrency: int, interval: float, key: str = "") -> None:
        self.key = key  # "name:port", as HostScheduler.host_for spells it
        self.concurrency = max(1, concurrency)
        self.queue: list[tuple[int, int, _Job]] = []  # heap: (priority, arrival, job)
        self.runners = 0
        self.rtt = 0.0  # moving average of its round trips (s); 0: none yet
        # URLs wait here until fewer than concurrency x CHECKS_PER_CONNECTION of the host's are
        # being checked: a task per URL up front cost a burst of CPU (and memory) at the start.
        self.pending: deque[_Waiting] = deque()
        # Server trouble clusters by route: once an answer from a directory of this host needs a
        # retry (5xx, timeout, reset), the URLs waiting in that directory start before the rest,
        # so that their own retries' backoff overlaps the host's other work instead of trailing
        # after it (the last of a host's URLs to fail otherwise waits out its backoff alone).
        self.early: deque[_Waiting] = deque()
        self.troubled: set[str] = set()  # routes (see urls.route) with an answer retried
        self.checking = 0
        self.strikes = 0  # 429s (and 503s with Retry-After) in a row: each pauses the host longer
        self.backlog = 0  # URLs of this host being checked or waiting to be: its share of the work left
        self.interval = interval
        self.next_start = 0.0
        self.last_start = -math.inf  # loop time the last request to it was to start (see HostScheduler._spaced) ...
        self.sent_at = -math.inf  # ... and the time it did
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


class HostScheduler:
    """Every request of a run goes through `exchange` (or `attempt`, with retries)."""

    def __init__(
        self, config: Config, cache: Cache, transport: Transport, network: NetworkWatch, *, backoff: float, max_retry_after: float,
        budget: RequestBudget | None = None, shared: GlobalHosts | None = None,
    ) -> None:
        self.config = config
        self.budget = budget  # requests the run may still send (shared by its clients), None: no limit
        self.shared = shared  # the limits every run sharing a store holds together, None: this run's alone
        self.cache = cache
        self.requests_sent = 0
        self.in_flight = 0
        self.hosts: dict[str, Host] = {}
        self._transport = transport
        self._network = network
        self._backoff = backoff
        self._max_retry_after = max_retry_after
        self._admission: Admission | None = None
        self._runners: set[asyncio.Task[None]] = set()  # see Host
        self._order = itertools.count()  # arrival order of queued requests (ties in priority)
        self.most_rounds = 0.0  # see rank_hosts
        self.critical_seconds = 0.0  # see rank_hosts
        self._spacing: dict[str, float] = {}  # host name -> seconds between requests a site asked for (space_requests)

    def open(self) -> None:
        busiest = max([self.config.host_concurrency, *(int(h.get("concurrency", 0) or 0) for h in self.config.hosts.values())])
        self._admission = Admission(self.config.max_concurrency, minimum=busiest, on_tick=self.rank_hosts)
        self._admission.start()

    def close(self) -> None:
        for runner in list(self._runners):
            runner.cancel()
        if self._admission is not None:
            self._admission.stop()
            if self._admission.lowest < self._admission.maximum:
                log.info("the event loop fell behind: at most %d requests were in flight at times (max_concurrency %d)",
                         self._admission.lowest, self._admission.maximum)
        for key, host in self.hosts.items():
            if host.prefers_get and host.heads:  # learned this run: remember for the next ones
                self.cache.set(HOST_NAMESPACE, key, "get", self.cache.max_age)

    def paused_hosts(self) -> int:
        return sum(1 for host in self.hosts.values() if host.paused)

    def host_for(self, url: str) -> Host:
        parts = split(url)
        name = hostname(url)  # one politeness state however the host is spelled
        key = f"{name}:{parts.port or ''}"
        host = self.hosts.get(key)
        if host is None:
            host = Host(int(self.config.host_settings(name).get("concurrency", self.config.host_concurrency)), self._interval(name), key)
            if self.cache.get(HOST_NAMESPACE, key) == "get":  # learned in an earlier run
                host.head_ok = False
            self.hosts[key] = host
        return host

    def _interval(self, name: str) -> float:
        configured = float(self.config.host_settings(name).get("request_interval", self.config.request_interval))
        return max(configured, self._spacing.get(name, 0.0))

    def space_requests(self, name: str, seconds: float) -> bool:
        """Requests to host `name` (any port) at least `seconds` apart from now on, in this run
        (robots.txt's Crawl-delay); True when that is longer than its interval was."""
        if seconds <= self._interval(name):
            return False
        self._spacing[name] = seconds
        for key, host in self.hosts.items():
            if key.rpartition(":")[0] == name:
                host.interval = max(host.interval, seconds)
        return True

    # -- URLs: a few of a host's at a time ----------------------------------------------------------
    def queue(self, url: str, start: Callable[[], Awaitable[T]]) -> asyncio.Future[T]:
        """The result of `start()`, run once `url`'s host has room (see `Host.pending`)."""
        outcome: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        try:
            target = self._transport.remap(url)
            host = self.host_for(target)
        except ValueError:  # let the check itself report what is wrong with the URL
            task = asyncio.ensure_future(start())
            task.add_done_callback(functools.partial(_settle, outcome))
            return outcome
        host.backlog += 1
        waiting = host.early if host.troubled and route(target) in host.troubled else host.pending
        waiting.append((target, start, outcome))
        self._start_checks(host)
        return outcome

    def _start_checks(self, host: Host) -> None:
        while host.checking < host.concurrency * CHECKS_PER_CONNECTION and (host.early or host.pending):
            _, start, outcome = (host.early or host.pending).popleft()
            if outcome.done():  # cancelled before it started
                host.backlog -= 1
                continue
            host.checking += 1
            task = asyncio.ensure_future(start())
            task.add_done_callback(functools.partial(self._check_done, host, outcome))
            outcome.add_done_callback(functools.partial(_cancel_with, task))

    def _check_done(self, host: Host, outcome: asyncio.Future[Any], task: asyncio.Task[Any]) -> None:
        host.checking -= 1
        host.backlog -= 1
        _settle(outcome, task)
        self._start_checks(host)

    def _note_trouble(self, url: str) -> None:
        """An answer from `url` is to be retried: its route's waiting URLs go first (see Host.early)."""
        host = self.host_for(url)
        directory = route(url)
        if directory in host.troubled:
            return
        host.troubled.add(directory)
        rest: deque[_Waiting] = deque()
        for item in host.pending:
            (host.early if route(item[0]) == directory else rest).append(item)
        host.pending = rest

    # -- the critical path ----------------------------------------------------------------------------
    def rank_hosts(self) -> None:
        """The critical path of the run: the most rounds of requests any host has left, and the
        most time any host needs for them at its round-trip time so far."""
        self.most_rounds = max((host.backlog / host.concurrency for host in self.hosts.values()), default=0.0)
        self.critical_seconds = max((host.backlog * host.rtt / host.concurrency for host in self.hosts.values()), default=0.0)

    def connections_for(self, host: Host) -> int:
        """Connections `host` may use now: all of them on the critical path; a host that needs
        less time than that gets enough to finish with it, with headroom (PACE_MARGIN). Its
        answers then come spread over the run instead of crowding its first seconds, and the
        event loop reads the critical host's answers sooner. Paced by time, not rounds: a slow
        host is not held to the pace of a fast one."""
        if self.critical_seconds <= 0 or not host.rtt:
            return host.concurrency
        return max(1, min(host.concurrency, math.ceil(PACE_MARGIN * host.backlog * host.rtt / self.critical_seconds)))

    # -- requests ---------------------------------------------------------------------------------------
    async def attempt(
        self, method: Method, url: str, read: ReadLimit, priority: int = CONTINUE, extra: Extra = None, retries: int | None = None
    ) -> Answer:
        """One request with retries: backoff for timeouts, resets and 5xx; Retry-After for 429/503."""
        host = self.host_for(url)
        limit = self.config.max_retries if retries is None else retries
        attempt = 0
        while True:
            answer = await self.exchange(host, method, url, read, priority, extra)
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

    def _retry_delay(self, answer: Answer, attempt: int) -> float | None:
        """Seconds before trying again, or None when the answer is final. A 429, or a 503 with
        Retry-After, is retried at once: its host's runner paused the whole host (`_host_pause`),
        so the retry waits for the host's turn like every other request to it."""
        if answer.status == 0:
            return self._jittered(attempt) if answer.error in _RETRY_ERRORS else None
        if not policy.is_retryable(answer.status) or answer.is_challenge():
            return None  # a challenge does not go away by asking again
        if answer.retry_after() > policy.MAX_RETRY_AFTER:
            return None  # asks for longer than linkfix waits: final now (see _host_pause)
        if self._host_pause(answer, 0) is not None:
            return 0.0
        return self._jittered(attempt)

    def _host_pause(self, answer: Answer, strikes: int) -> float | None:
        """How long the whole host waits after `answer`: its Retry-After on a 429/503 (the
        backoff when it asks for less), else on a 429 a backoff that grows with the host's
        `strikes` (pauses in a row); None: no pause.

        A Retry-After longer than policy.MAX_RETRY_AFTER is not waited for at all: the answer is
        final at once (blocked or error), and the host is not paused, since a wait that is cut
        short serves the server no better than none. Its other URLs then get one request each."""
        if answer.status not in (429, 503) or answer.is_challenge():
            return None
        wait = answer.retry_after()
        if wait > policy.MAX_RETRY_AFTER:
            return None
        if wait >= 0:
            # A wait shorter than the backoff's first step asks for nothing: the backoff, which
            # grows with the host's pauses in a row, stands instead (a server answering every
            # request with `Retry-After: 0` got them as fast as it answered: 70,000 in 90 s).
            return min(wait if wait >= self._backoff else self._jittered(strikes), self._max_retry_after)
        return self._jittered(strikes) if answer.status == 429 else None

    def _jittered(self, attempt: int) -> float:
        return policy.backoff_delay(attempt, base=self._backoff, jitter=random.random() * 0.5)

    async def exchange(self, host: Host, method: Method, url: str, read: ReadLimit, priority: int = CONTINUE, extra: Extra = None) -> Answer:
        """One request to `host`, sent by one of its runners when its turn comes."""
        assert self._admission is not None, "use HttpChecker in 'async with'"
        job = _Job(method=method, url=url, read=read, extra=extra, answer=asyncio.get_running_loop().create_future())
        heapq.heappush(host.queue, (priority, next(self._order), job))
        if host.runners < self.connections_for(host):
            host.runners += 1
            runner = asyncio.ensure_future(self._run(host))
            self._runners.add(runner)
            runner.add_done_callback(self._runners.discard)
        answer = await job.answer  # cancelled: the runner skips the job, or drops its answer
        self._network.note(hostname(url), answer, in_flight=self.in_flight)
        return answer

    async def _run(self, host: Host) -> None:
        """One connection's worth of a host: send its queued requests, best priority first."""
        admission = self._admission
        assert admission is not None
        request = self._transport.request
        try:
            while host.queue and host.runners <= self.connections_for(host):
                _, _, job = heapq.heappop(host.queue)
                if job.answer.done():
                    continue  # its URL's check was cancelled meanwhile
                lease, admitted = None, False
                try:
                    if host.interval or host.paused_until:  # (most hosts: neither; a coroutine per request costs)
                        await host.turn()
                    # The lease before a global slot: a request waiting for its host holds no slot.
                    lease = await self.shared.acquire(host.key, host.concurrency) if self.shared is not None else None
                    # The host with the most work left goes first; hosts on the critical path go now.
                    rounds = host.backlog / host.concurrency
                    await admission.acquire(-rounds, urgent=rounds > 0 and rounds >= CRITICAL_SHARE * self.most_rounds)
                    admitted = True
                    if host.interval:
                        await self._spaced(host)
                except BaseException:
                    self._release(host, lease, admitted)
                    job.answer.cancel()
                    raise
                self.in_flight += 1
                try:
                    chosen = job.method if isinstance(job.method, str) else job.method()
                    if self.budget is not None and not self.budget.take():
                        answer = Answer(url=job.url, method=chosen, error=Reason.REQUEST_BUDGET, detail=self.budget.detail)
                    else:
                        self.requests_sent += 1
                        limit = 0 if chosen != "GET" else job.read if isinstance(job.read, int) else job.read()
                        sent = time.monotonic()
                        answer = await request(chosen, job.url, limit, job.extra)
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
                    self.in_flight -= 1
                    self._release(host, lease, admitted=True)
                self._slow_down(host, answer)  # before this runner sends the host anything else
                if not job.answer.done():
                    job.answer.set_result(answer)
        finally:
            host.runners -= 1

    def _release(self, host: Host, lease: str | None, admitted: bool) -> None:
        if admitted and self._admission is not None:
            self._admission.release()
        if lease is not None and self.shared is not None:
            self.shared.release(host.key, lease)

    async def _spaced(self, host: Host) -> None:
        """The interval since the host's last start (any run's, with a shared store), once the
        request holds its slot: runners `turn` spaced that then waited unlike would start together."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        start = host.last_start = max(now, host.last_start + host.interval)  # taken before waiting: the next runner waits longer
        if start > now:
            await asyncio.sleep(start - now)
        # A busy loop wakes a runner late, and the next one on time: it must not then follow the
        # late one closer than the interval (seen on a loaded machine: 92 ms apart for 100).
        while (wait := host.sent_at + host.interval - loop.time()) > 0:
            await asyncio.sleep(wait)
        host.sent_at = loop.time()
        host.last_start = max(host.last_start, host.sent_at)
        if self.shared is not None:
            await self.shared.space(host.key, host.interval)
            host.last_start = max(host.last_start, loop.time())

    def _slow_down(self, host: Host, answer: Answer) -> None:
        """Pause the whole host when `answer` asks for it (see `_host_pause`)."""
        pause = self._host_pause(answer, host.strikes)
        if pause is not None:
            host.strikes += 1
            host.pause(pause)  # the turn() of every request to the host sees it
            if self.shared is not None:
                self.shared.pause(host.key, pause)  # and every other run's next request to it
        elif answer.status:
            host.strikes = 0


def _settle(outcome: asyncio.Future[T], task: asyncio.Task[T]) -> None:
    """Pass a finished check's result (or failure) on to the outcome its callers await."""
    if outcome.done():
        return
    if task.cancelled():
        outcome.cancel()
    elif (failure := task.exception()) is not None:
        outcome.set_exception(failure)
    else:
        outcome.set_result(task.result())


def _cancel_with(task: asyncio.Task[Any], outcome: asyncio.Future[Any]) -> None:
    if outcome.cancelled():
        task.cancel()
