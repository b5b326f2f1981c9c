"""Results and facts kept between runs (diskcache), with a time-to-live per status class.

Keys are normalised URLs, so `HTTP://Example.com:80/a%7eb#x` and `http://example.com/a~b` share
an entry. Each URL has one record: its latest result, until when that result is fresh, and its
broken history (first and latest broken run, consecutive broken runs) so that the fixer can wait
for a link to stay broken over several runs and days before rewriting it. One record, not a
result and a history apart: a cold run then costs one read and one write per URL, which
measured a third of the checker's CPU when it was four.

A result that is no longer fresh (or never was: errors and timeouts) is still remembered for a
day (`last_result`), so that the next run knows a URL failed last time.

Writes are buffered and flushed in one transaction (on `flush()`, `close()`, or every
`FLUSH_EVERY` writes): one SQLite commit per result would cost more than the HTTP checks.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable


from .table import RecordTable
from ..errors import ConfigError
from ..model import CheckResult, Redirect, Status
from ..urls import normalise_url

log = logging.getLogger(__name__)

BROKEN_TTL = 3 * 3600.0  # a broken or blocked verdict is re-checked after a few hours
HISTORY_TTL = 365 * 86400.0
LAST_RESULT_TTL = 86400.0  # how long a result that is no longer fresh is still remembered
FLUSH_EVERY = 500


@dataclass(frozen=True, slots=True, kw_only=True)
class History:
    """How long a URL has been broken, counted in runs (one count per run) and in time."""

    first_broken: float = 0.0  # unix time of the first broken run of the current streak; 0: never
    last_broken: float = 0.0
    broken_runs: int = 0  # consecutive runs that found it broken; reset by an ok run
    last_run: str = ""  # run id that last counted, so a run counts once


def result_ttl(status: Status, max_age: float) -> float:
    """Seconds a result stays fresh; 0 means it is never reused (only remembered: LAST_RESULT_TTL)."""
    if status is Status.OK:
        return max_age
    if status is Status.REDIRECTED:
        return max_age / 4  # redirects change: a moved page may move on
    if status in (Status.BROKEN, Status.BLOCKED):
        # A bot wall does not come down between two runs, and asking again at every run is
        # what a polite client should not do; but it is checked again within hours.
        return min(BROKEN_TTL, max_age)
    return 0.0  # timeout, error: transient; excluded/unsupported: free to recompute


_RESULT_FIELDS = tuple(f.name for f in dataclasses.fields(CheckResult))
# Fields left out of a stored result while they hold their default: most results are a plain
# "ok", and the warm run decodes one per URL (a third less JSON to read and write). Redirects
# are encoded apart; from_cache is never stored (what is stored is a fresh verdict; get_result
# marks it cached).
_RESULT_DEFAULTS = {f.name: f.default for f in dataclasses.fields(CheckResult)
                    if f.default is not dataclasses.MISSING and f.name not in ("redirects", "from_cache")}


def _encode_result(result: CheckResult) -> dict[str, Any]:
    # By hand: dataclasses.asdict deep-copies recursively and showed up in profiles.
    data: dict[str, Any] = {"url": result.url, "status": result.status.value}
    for name, default in _RESULT_DEFAULTS.items():
        value = getattr(result, name)
        if value != default:
            data[name] = value
    if result.redirects:
        data["redirects"] = [{"url": r.url, "status": r.status, "location": r.location} for r in result.redirects]
    return data


_KNOWN_FIELDS = frozenset(_RESULT_FIELDS)


def _decode_result(data: Any, *, from_cache: bool = False) -> CheckResult | None:
    """Tolerant of entries written by older versions: unknown keys dropped, bad ones a miss."""
    if not isinstance(data, dict):
        return None
    # Fast path first (every entry this version wrote): no filtering copy; the warm run decodes
    # one entry per URL, so this is most of its cache time.
    values = dict(data) if data.keys() <= _KNOWN_FIELDS else {k: v for k, v in data.items() if k in _KNOWN_FIELDS}
    try:
        values["status"] = Status(values["status"])
        values["redirects"] = tuple(Redirect(**hop) for hop in values.get("redirects", ()))
        values["from_cache"] = from_cache
        return CheckResult(**values)
    except (KeyError, TypeError, ValueError):
        return None


class _MemoryStore:
    """The part of diskcache.Cache that Cache uses, in a dict (for --no-cache and tests)."""

    def __init__(self) -> None:
        self._data: dict[str, tuple[Any, float]] = {}

    def get(self, key: str, default: Any = None) -> Any:
        item = self._data.get(key)
        if item is None:
            return default
        value, expires = item
        if expires and expires < time.time():
            del self._data[key]
            return default
        return value

    def set(self, key: str, value: Any, expire: float | None = None) -> None:
        self._data[key] = (value, time.time() + expire if expire else 0.0)

    def iterkeys(self):  # noqa: ANN201 - mirrors diskcache
        return iter(list(self._data))

    def clear(self) -> None:
        self._data.clear()

    def volume(self) -> int:
        return 0

    def close(self) -> None:
        pass


class Cache:
    """Results with TTLs, URL histories, and small namespaced facts for other stages."""

    def __init__(self, directory: Path | None, *, max_age: float = 86400, run_id: str = "") -> None:
        self.max_age = float(max_age)
        self.run_id = run_id or uuid.uuid4().hex  # a run counts once in every URL's history
        self.directory = directory
        if directory is None:
            self._store: Any = _MemoryStore()
            self._table = RecordTable(None)
        else:
            try:
                directory.mkdir(parents=True, exist_ok=True)
                # No size-based eviction: a link checker's cache is small and losing history hurts.
                # cull_limit=0: no search for expired rows on every write (a third of a write's
                # cost); `close()` drops them all at once instead.
                import diskcache  # here: an offline or --no-cache run never pays for importing it

                self._store = diskcache.Cache(str(directory), eviction_policy="none", cull_limit=0)
                self._table = RecordTable(directory)
            except (OSError, sqlite3.Error) as exc:
                raise ConfigError(
                    f"cache_dir: cannot open the cache at {directory}: {exc} (delete the directory, or run with --no-cache)"
                ) from exc
        self._pending: dict[str, tuple[Any, float | None]] = {}
        # Records read or written by this object: a URL's record is read once per run, and the
        # write that follows its check needs no second read for the history.
        self._records: dict[str, _UrlRecord] = {}
        self._pending_records: dict[str, tuple[dict[str, Any], float]] = {}

    # results -------------------------------------------------------------------------------
    def get_result(self, url: str) -> CheckResult | None:
        """The URL's result while it is fresh, else None."""
        record = self._record(normalise_url(url))
        if record.fresh_until <= time.time():
            return None
        return _decode_result(record.result, from_cache=True)

    def last_result(self, url: str) -> CheckResult | None:
        """The URL's latest result, fresh or not (remembered `LAST_RESULT_TTL` at least)."""
        return _decode_result(self._record(normalise_url(url)).result, from_cache=True)

    def put_result(self, url: str, result: CheckResult) -> None:
        key = normalise_url(url)
        before = self._record(key)
        history = _next_history(before.history, result, self.run_id)
        now = time.time()
        ttl = result_ttl(result.status, self.max_age)
        record = _UrlRecord(result=_encode_result(result), fresh_until=now + ttl if ttl > 0 else 0.0, history=history)
        keep = max(ttl, LAST_RESULT_TTL, HISTORY_TTL if history.broken_runs else 0.0)
        self._records[key] = record
        self._pending_records[key] = (record.encode(), keep)
        if len(self._pending_records) >= FLUSH_EVERY:
            self.flush()

    def history(self, url: str) -> History:
        return self._record(normalise_url(url)).history

    def preload(self, urls: Iterable[str]) -> None:
        """Read the records of many URLs at once (one query), ahead of asking about each."""
        keys = {normalise_url(url) for url in urls}.difference(self._records)
        if keys:
            found = self._table.get_many(keys)
            for key in keys:
                self._records[key] = _UrlRecord.decode(found.get(key))

    def _record(self, key: str) -> "_UrlRecord":
        record = self._records.get(key)
        if record is None:
            record = self._records[key] = _UrlRecord.decode(self._table.get_many((key,)).get(key))
        return record

    # generic facts ---------------------------------------------------------------------------
    def get(self, namespace: str, key: str) -> Any | None:
        return self._get(f"{namespace}:{key}")

    def set(self, namespace: str, key: str, value: Any, ttl: float) -> None:
        """Keep `value` for `ttl` seconds; `math.inf` keeps it until cleared, `ttl <= 0` not at all."""
        if ttl <= 0:
            return
        self._put(f"{namespace}:{key}", value, None if math.isinf(ttl) else ttl)

    # housekeeping -------------------------------------------------------------------------------
    def stats(self) -> dict[str, int]:
        self.flush()
        counts = {"entries": 0, "results": 0, "history": 0, "other": 0}
        by_status: dict[str, int] = {}
        for _, data in self._table.all_records():
            counts["entries"] += 1
            record = _UrlRecord.decode(data)
            result = _decode_result(record.result)
            if result is not None and record.fresh_until > time.time():
                counts["results"] += 1
                by_status[result.status.value] = by_status.get(result.status.value, 0) + 1
            counts["history"] += record.history.broken_runs > 0
        for _ in self._store.iterkeys():
            counts["entries"] += 1
            counts["other"] += 1
        counts.update({f"results_{status}": n for status, n in sorted(by_status.items())})
        counts["size_bytes"] = int(self._store.volume()) + self._table.size_bytes()
        return counts

    def clear(self) -> None:
        self._pending.clear()
        self._pending_records.clear()
        self._records.clear()
        self._table.clear()
        self._store.clear()

    def flush(self) -> None:
        if self._pending_records:
            records, self._pending_records = self._pending_records, {}
            try:
                self._table.put_many(records)
            except sqlite3.Error as exc:  # locked by another run past the wait, disk full: results are not worth a crash
                log.warning("cache: %d results not saved: %s", len(records), exc)
        if not self._pending:
            return
        pending, self._pending = self._pending, {}
        if not isinstance(self._store, _MemoryStore):
            with self._store.transact():
                for key, (value, ttl) in pending.items():
                    self._store.set(key, value, expire=ttl)
        else:
            for key, (value, ttl) in pending.items():
                self._store.set(key, value, expire=ttl)

    def close(self) -> None:
        self.flush()
        if not isinstance(self._store, _MemoryStore):
            try:
                self._store.expire()
                self._table.drop_expired()
            except sqlite3.Error as exc:  # another process holds the lock: next run's turn
                log.debug("cache: expired entries not dropped: %s", exc)
        self._table.close()
        self._store.close()

    def __enter__(self) -> "Cache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _get(self, key: str) -> Any:
        if key in self._pending:
            return self._pending[key][0]
        return self._store.get(key)

    def _put(self, key: str, value: Any, ttl: float | None) -> None:
        self._pending[key] = (value, ttl)
        if len(self._pending) >= FLUSH_EVERY:
            self.flush()


@dataclass(frozen=True, slots=True)
class _UrlRecord:
    """What the cache keeps about one URL (see the module docstring)."""

    result: dict[str, Any] | None = None  # an encoded CheckResult
    fresh_until: float = 0.0  # unix time; 0: the result is not to be reused as it is
    history: History = History()

    def encode(self) -> dict[str, Any]:
        history = self.history  # by hand: dataclasses.asdict deep-copies, and this runs once per URL
        data: dict[str, Any] = {"result": self.result, "fresh_until": self.fresh_until}
        if history != _NO_HISTORY:  # most URLs were never broken: no history to store
            data["history"] = {"first_broken": history.first_broken, "last_broken": history.last_broken,
                               "broken_runs": history.broken_runs, "last_run": history.last_run}
        return data

    @classmethod
    def decode(cls, data: Any) -> "_UrlRecord":
        """Tolerant: anything unusable (another version's layout, garbage) is an empty record."""
        if not isinstance(data, dict):
            return cls()
        result = data.get("result")
        fresh_until = data.get("fresh_until")
        try:
            history = History(**data["history"]) if isinstance(data.get("history"), dict) else History()
        except TypeError:
            history = History()
        return cls(
            result=result if isinstance(result, dict) else None,
            fresh_until=float(fresh_until) if isinstance(fresh_until, (int, float)) else 0.0,
            history=history,
        )


_NO_HISTORY = History()


def _next_history(before: History, result: CheckResult, run_id: str) -> History:
    """The broken history after `result`: an ok run resets it; only a broken verdict found by
    this run (not read from the cache) counts, once per run; other statuses say nothing."""
    if result.status in (Status.OK, Status.REDIRECTED):
        return History()
    if result.status is not Status.BROKEN or result.from_cache or before.last_run == run_id:
        return before
    now = result.checked_at or time.time()
    return History(
        first_broken=before.first_broken or now,
        last_broken=now,
        broken_runs=before.broken_runs + 1,
        last_run=run_id,
    )
