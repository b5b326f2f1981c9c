"""A store many runs share: a Redis server (`cache_url`), beside each run's local cache.

The runs of an organisation's CI jobs meet here: the URLs' records (one entry per URL, whoever
checked it), a claim per URL being checked (one fetch at a time, `claim` / `finish`), and per
host a gate of leases with the time its next request may start and a pause (`take_slot`,
`take_turn`, `free_slot`, `hold_off`). Two pub/sub channels wake the runs waiting for a URL's answer or a
host's free lease; every wait also has a timeout, so a lost message costs time, never a hang.

Faults never fail a run. The first command that errs or takes longer than `OP_SECONDS` (the
server unreachable, slow, restarted, or answering something that is not what linkfix wrote)
puts the store down for the rest of the run: one warning, every later call returns at once
with "nothing known", and the run goes on with its local cache. Nothing read here is trusted
more than the local cache's bytes: values are read through `GETRANGE` with a cap (a crafted
giant value is never read whole), must be UTF-8 JSON, and are checked field by field by whoever
decodes them; keys are hashes (`name`), so no URL spells a key.

Credentials come from the environment (`LINKFIX_CACHE_USERNAME`, `LINKFIX_CACHE_PASSWORD`),
never from the URL: the URL is shown in messages and may stand in a workflow file. Only the
person running linkfix sets `cache_url` (config/trust.py): a repository's config cannot send
the job's credentials, or its results, to a server of its choosing.

One Redis server (or a primary), not a cluster: the scripts read keys they cannot declare.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import uuid
from collections.abc import Awaitable, Iterable, Mapping
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

PREFIX = "linkfix:1:"  # every key and channel; the number changes when the layout does
OP_SECONDS = 5.0  # one command; past it the store counts as down (a slow store is a fault; a busy loop is not)
CONNECTIONS = 16  # at most, per run: commands queue for one rather than open hundreds
HEARTBEAT = 2.0  # seconds between two renewals of this run's `alive` key ...
ALIVE_SECONDS = 8.0  # ... which expires this long after the last: then its claims are free
LONGEST_LEASE = 600.0  # no lease lasts longer (a request's timeout is at most 300 s)
CLAIM_SECONDS = 3600.0  # a claim's own expiry, the bound on what a dead run leaves behind
LISTEN_SECONDS = 1.0  # the listener's look for a message, again and again
DONE, FREE = "done", "free"  # channels: a URL's claim finished; a host's lease is free
ENV_USERNAME, ENV_PASSWORD = "LINKFIX_CACHE_USERNAME", "LINKFIX_CACHE_PASSWORD"
_SAID: set[tuple[str, str]] = set()  # the warnings stores have given, once per process

# Claim `KEYS[1]` for run ARGV[1] (ARGV[2]: ms): '' when it is ours now (free, ours already, or
# its holder's alive key is gone: a killed run), else the holder's id.
_CLAIM = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return '' end
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] or redis.call('EXISTS', ARGV[3] .. holder) == 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ''
end
return holder
"""
# Store rows KEYS[2..] (texts and ms to keep: ARGV[4], ARGV[5], ...), give up claim KEYS[1] if
# ARGV[1] holds it, and say so on channel ARGV[2] (message ARGV[3]): one step, so a waiter woken
# by the message finds the rows.
_FINISH = """
for i = 2, #KEYS do redis.call('SET', KEYS[i], ARGV[2 * i], 'PX', ARGV[2 * i + 1]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 0
"""
# A lease ARGV[1] on gate KEYS[1..2] (leases, pause): 0 when taken; else the ms to wait (the
# pause), or -1 when ARGV[2] leases are out. ARGV[3]: ms a lease lasts; a lease said to last
# longer than ARGV[4] ms was not taken by linkfix and is dropped. Times are the server's: the
# runs' clocks never meet.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local paused = tonumber(redis.call('GET', KEYS[2])) or 0
if paused > now then return paused - now end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '(' .. (now + tonumber(ARGV[4])), '+inf')
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return -1 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 0
"""
# A start on gate KEYS[1..2] (next start, pause), ARGV[1] ms after the one before: 0 when it may
# start now (the next then waits), else the ms to wait.
_TURN = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait = math.max(tonumber(redis.call('GET', KEYS[2])) or 0, tonumber(redis.call('GET', KEYS[1])) or 0) - now
if wait > 0 then return wait end
redis.call('SET', KEYS[1], now + tonumber(ARGV[1]), 'PX', ARGV[1])
return 0
"""
_FREE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 0
"""
# Pause gate KEYS[1] for ARGV[1] ms from now, unless it is paused longer already.
_HOLD = """
local t = redis.call('TIME')
local until_ = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
if until_ > (tonumber(redis.call('GET', KEYS[1])) or 0) then redis.call('SET', KEYS[1], until_, 'PX', ARGV[1]) end
return 0
"""


def name(*parts: str) -> str:
    """The key name of a thing (a URL with its checking profile, a host): a fixed-size hash,
    so any URL makes a key of 32 characters and none can name another kind of key."""
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]


class SharedStore:
    """One run's connection to the shared store (see the module docstring). Open it with
    `open()` inside the running loop; every other method may be called before, after or
    without a successful open, and answers "nothing known" while the store is not up."""

    def __init__(self, url: str, *, run_id: str = "", environ: Mapping[str, str] | None = None) -> None:
        self.url = url
        self.run_id = run_id or uuid.uuid4().hex
        self.problem = ""  # why the store is not used, once it is given up
        self._environ = os.environ if environ is None else environ
        self._client: Any = None
        self._pool: Any = None
        self._scripts: dict[str, Any] = {}
        self._opened: asyncio.Future[bool] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()  # the listener, the heartbeat, fire-and-forget calls
        self._closing = False  # close() began: the heartbeat stops
        self._wakers: dict[tuple[str, str], list[asyncio.Future[None]]] = {}
        self._batches: dict[str, list[tuple[Any, asyncio.Future[Any]]]] = {}  # reads and claims asked in this step
        # Commands out at once; the rest wait here, where waiting is no fault of the store (the
        # pool's own wait for a connection would count against OP_SECONDS).
        self._slots = asyncio.Semaphore(CONNECTIONS)

    @property
    def up(self) -> bool:
        return self._client is not None and not self.problem

    # -- opening and closing -------------------------------------------------------------------------
    async def open(self) -> bool:
        """Connect (once; later calls wait for the first): True when the store is up."""
        if self._opened is None:
            self._opened = asyncio.ensure_future(self._connect())
        return await asyncio.shield(self._opened) and self.up

    async def _connect(self) -> bool:
        try:
            from redis.asyncio import BlockingConnectionPool, Redis
            from redis.asyncio.retry import Retry
            from redis.backoff import NoBackoff

            # No retries, no waiting for a connection past OP_SECONDS: a fault is a fault now.
            # Two connections more than commands go out at once: the listener's and the heartbeat's.
            self._pool = pool = BlockingConnectionPool.from_url(
                self.url, max_connections=CONNECTIONS + 2, timeout=OP_SECONDS, socket_timeout=OP_SECONDS,
                socket_connect_timeout=OP_SECONDS, retry=Retry(NoBackoff(), 0), health_check_interval=0,
                username=self._environ.get(ENV_USERNAME) or None, password=self._environ.get(ENV_PASSWORD) or None,
                client_name=f"linkfix-{self.run_id[:12]}",
            )
            self._client = Redis(connection_pool=pool)
            for key, text in (("claim", _CLAIM), ("finish", _FINISH), ("take", _TAKE), ("turn", _TURN), ("free", _FREE), ("hold", _HOLD)):
                self._scripts[key] = self._client.register_script(text)
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            # asyncio.timeout, never wait_for: Python 3.11's wait_for can swallow a cancellation that
            # meets a finishing command, and a heartbeat that missed its cancel held close() forever.
            async with asyncio.timeout(OP_SECONDS):
                await self._client.ping()
            async with asyncio.timeout(OP_SECONDS):
                await pubsub.subscribe(PREFIX + DONE, PREFIX + FREE)
            async with asyncio.timeout(OP_SECONDS):
                await self._alive()
        except Exception as exc:
            self._fail("cannot be reached", exc)
            return False
        self._spawn(self._listen(pubsub))
        self._spawn(self._beat())
        log.info("shared cache %s: connected", self.url)
        return True

    async def close(self) -> None:
        """Finish what was sent, say this run is gone (its claims are free at once), disconnect."""
        if self._client is None:
            return
        for task in [task for task in self._tasks if task.get_name() == "call"]:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                async with asyncio.timeout(OP_SECONDS):
                    await task
        if self.up:
            await self._call(self._client.delete(PREFIX + "alive:" + self.run_id), None)
        self._closing = True  # the heartbeat's loop ends even if its cancellation were lost
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:  # the listener gives its connection back; a task that does not end is left to the loop
            await asyncio.wait(tasks, timeout=OP_SECONDS)
        self._client = None
        with contextlib.suppress(Exception):  # the pool was passed in: the client leaves it open
            async with asyncio.timeout(OP_SECONDS):
                await self._pool.disconnect()
        self._wake_all()

    # -- records and facts ----------------------------------------------------------------------------
    async def read(self, items: Iterable[tuple[str, int]]) -> dict[str, str]:
        """key name -> text, for those of (key name, most bytes) the store has: at most that many
        bytes of each are read, and a value that fills them, or is not UTF-8, is not returned."""
        wanted = list(items)
        if not self.up or not wanted:
            return {}
        return await self._batched("read", wanted, {})

    async def _read_batch(self, batch: list[tuple[list[tuple[str, int]], asyncio.Future[dict[str, str]]]]) -> None:
        keys = list(dict.fromkeys((key, limit) for wanted, _ in batch for key, limit in wanted))
        pipe = self._client.pipeline(transaction=False)
        for key, limit in keys:
            pipe.getrange(PREFIX + key, 0, limit - 1)
        found: dict[str, str] = {}
        for (key, limit), value in zip(keys, await self._call(pipe.execute(), [])):
            if type(value) is bytes and 0 < len(value) < limit:
                with contextlib.suppress(UnicodeDecodeError):
                    found[key] = value.decode("utf-8")
        for wanted, done in batch:
            done.set_result({key: found[key] for key, _ in wanted if key in found})

    async def _batched(self, kind: str, item: object, failed: T) -> T:
        """`item`'s answer from one round trip for every `kind` of call asked in this step of
        the event loop (a run asks about hundreds of URLs at once); `failed` if it cannot be had."""
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        batch = self._batches.setdefault(kind, [])
        batch.append((item, done))
        if len(batch) == 1:
            self._spawn(self._run_batch(kind, failed))
        return await done

    async def _run_batch(self, kind: str, failed: Any) -> None:
        await asyncio.sleep(0)  # the other calls of this step join
        batch = self._batches.pop(kind, [])
        try:
            if self.up:
                await (self._read_batch(batch) if kind == "read" else self._claim_batch(batch))
        finally:
            for _, done in batch:
                if not done.done():
                    done.set_result(failed)

    async def write(self, rows: Iterable[tuple[str, str, float]]) -> None:
        """Store (key name, text, seconds to keep) rows, in one round trip."""
        rows = list(rows)
        if self.up and rows:
            await self._call(self._rows(self._client.pipeline(transaction=False), rows).execute(), None)

    @staticmethod
    def _rows(pipe: Any, rows: Iterable[tuple[str, str, float]]) -> Any:
        for key, text, keep in rows:
            pipe.set(PREFIX + key, text.encode("utf-8", "surrogatepass"), px=max(1, int(keep * 1000)))
        return pipe

    # -- one check at a time per URL -----------------------------------------------------------------------
    async def claim(self, key: str) -> bool | None:
        """Claim key name `key` for this run: True when it is ours, False when a live run holds
        it, None when the store is down."""
        if not self.up:
            return None
        return await self._batched("claim", key, None)

    async def _claim_batch(self, batch: list[tuple[str, asyncio.Future[bool | None]]]) -> None:
        pipe = self._client.pipeline(transaction=False)
        for key, _ in batch:
            await self._scripts["claim"](keys=[PREFIX + "claim:" + key], args=[self.run_id, int(CLAIM_SECONDS * 1000), PREFIX + "alive:"],
                                         client=pipe)  # queued: a pipeline answers at execute()
        holders = await self._call(pipe.execute(), None)
        if holders is not None:
            for (_, done), holder in zip(batch, holders):
                done.set_result(holder in (b"", ""))

    async def finish(self, key: str, rows: Iterable[tuple[str, str, float]]) -> None:
        """Store `rows` (the claimed URL's answer), then give up the claim and wake its waiters."""
        if not self.up:
            return
        rows = list(rows)
        keys = [PREFIX + "claim:" + key, *(PREFIX + row for row, _, _ in rows)]
        args: list[str | bytes | int] = [self.run_id, PREFIX + DONE, key]
        for _, text, keep in rows:
            args += [text.encode("utf-8", "surrogatepass"), max(1, int(keep * 1000))]
        await self._call(self._scripts["finish"](keys=keys, args=args), None)

    # -- gates: a host's leases, spacing and pause across runs -----------------------------------------------
    async def take_slot(self, gate: str, token: str, limit: int, hold: float) -> float | None:
        """Take lease `token` on `gate` (at most `limit` out; a lease lasts `hold` s unless freed):
        0.0 when taken, seconds to wait (a pause) or -1.0 (all out: wait for a FREE wake-up)
        otherwise; None when the store is down."""
        keys = [PREFIX + f"gate:{gate}:{part}" for part in ("leases", "pause")]
        return await self._gate_call("take", keys, [token, limit, max(1, int(hold * 1000)), int(LONGEST_LEASE * 1000)])

    async def take_turn(self, gate: str, spacing: float) -> float | None:
        """Start a request on `gate` now, the next one `spacing` s later: 0.0 when it may, else
        seconds to wait (spacing or a pause); None when the store is down."""
        keys = [PREFIX + f"gate:{gate}:{part}" for part in ("next", "pause")]
        return await self._gate_call("turn", keys, [max(1, int(spacing * 1000))])

    async def _gate_call(self, script: str, keys: list[str], args: list[str | int]) -> float | None:
        if not self.up:
            return None
        waited = await self._call(self._scripts[script](keys=keys, args=args), None)
        if type(waited) is not int:
            return None
        return -1.0 if waited < 0 else waited / 1000

    def free_slot(self, gate: str, token: str) -> None:
        """Give lease `token` back (sent in the background) and wake one waiter of the gate per run."""
        if self.up:
            self._background(self._scripts["free"](keys=[PREFIX + f"gate:{gate}:leases"], args=[token, PREFIX + FREE, gate]))

    def hold_off(self, gate: str, seconds: float) -> None:
        """Pause `gate` for every run for `seconds` from now (sent in the background)."""
        if self.up and seconds > 0:
            self._background(self._scripts["hold"](keys=[PREFIX + f"gate:{gate}:pause"], args=[max(1, int(seconds * 1000))]))

    # -- waiting ----------------------------------------------------------------------------------------------
    async def woken(self, channel: str, key: str, timeout: float) -> None:
        """Wait until `channel` names `key` (a claim finished, a lease freed), the store goes
        down, or `timeout` seconds pass."""
        if not self.up:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiters = self._wakers.setdefault((channel, key), [])
        waiters.append(waiter)
        try:
            async with asyncio.timeout(timeout):
                await waiter
        except TimeoutError:
            pass
        finally:
            with contextlib.suppress(ValueError):
                waiters.remove(waiter)
            if not waiters:
                self._wakers.pop((channel, key), None)

    async def _listen(self, pubsub: Any) -> None:
        """Wake the waiters each message names: every waiter of a finished claim (one per URL in
        a run), one waiter of a freed lease (the others wait for the next)."""
        try:
            async with pubsub:
                while True:
                    # A timeout, not a blocking read: a blocking read's timeout differs between
                    # redis-py versions (some apply socket_timeout to it, and an idle second is no fault).
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=LISTEN_SECONDS)
                    if type(message) is not dict or type(message.get("data")) is not bytes or type(message.get("channel")) is not bytes:
                        continue
                    channel = message["channel"].decode("utf-8", "replace").removeprefix(PREFIX)
                    waiters = self._wakers.get((channel, message["data"].decode("utf-8", "replace")), [])
                    for waiter in waiters if channel == DONE else waiters[:1]:
                        if not waiter.done():
                            waiter.set_result(None)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._fail("stopped answering", exc)

    async def _beat(self) -> None:
        while self.up and not self._closing:
            await asyncio.sleep(HEARTBEAT)
            await self._call(self._alive(), None, queue=False)  # on time, however many commands wait

    async def _alive(self) -> None:
        await self._client.set(PREFIX + "alive:" + self.run_id, b"1", px=int(ALIVE_SECONDS * 1000))

    # -- faults ---------------------------------------------------------------------------------------------
    async def _call(self, command: Awaitable[T], failed: T, *, queue: bool = True) -> T:
        """`command`'s answer, or `failed` once the store is down (this fault puts it down).
        Queued behind the other commands unless `queue` is false; timed once it is sent."""
        async with self._slots if queue else contextlib.nullcontext():
            if not self.up:
                if asyncio.iscoroutine(command):
                    command.close()
                return failed
            try:
                async with asyncio.timeout(OP_SECONDS):
                    return await command
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._fail("stopped answering", exc)
                return failed

    def _background(self, command: Awaitable[Any]) -> None:
        self._spawn(self._call(command, None), name="call")

    def _spawn(self, work: Awaitable[Any], *, name: str = "") -> None:
        task = asyncio.ensure_future(work)
        if name:
            task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _fail(self, doing: str, exc: BaseException) -> None:
        """Go on without the store, saying so once per store and process."""
        if self.problem:
            return
        self.problem = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        said = (self.url, doing)
        level = logging.DEBUG if said in _SAID else logging.WARNING
        _SAID.add(said)
        log.log(level, "shared cache %s %s (%s); going on with the local cache", self.url, doing, self.problem)
        self._wake_all()

    def _wake_all(self) -> None:
        for waiters in self._wakers.values():
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
