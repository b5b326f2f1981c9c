"""Results and facts kept between runs (diskcache), with a time-to-live per status class.

Keys are normalised URLs, so `HTTP://Example.com:80/a%7eb#x` and `http://example.com/a~b` share
an entry. Besides fresh results the cache keeps each URL's broken history (first and latest
broken run, consecutive broken runs) so that the fixer can wait for a link to stay broken over
several runs and days before rewriting it.

Writes are buffered and flushed in one transaction (on `flush()`, `close()`, or every
`FLUSH_EVERY` writes): one SQLite commit per result would cost more than the HTTP checks.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import re
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit


from .errors import ConfigError
from .model import CheckResult, Redirect, Status

log = logging.getLogger(__name__)

DEFAULT_PORTS = {"http": 80, "https": 443}
BROKEN_TTL = 3 * 3600.0  # a broken verdict is re-checked after a few hours
HISTORY_TTL = 365 * 86400.0
FLUSH_EVERY = 500
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_RESULT, _HISTORY = "result", "history"


@dataclass(frozen=True, slots=True, kw_only=True)
class History:
    """How long a URL has been broken, counted in runs (one count per run) and in time."""

    first_broken: float = 0.0  # unix time of the first broken run of the current streak; 0: never
    last_broken: float = 0.0
    broken_runs: int = 0  # consecutive runs that found it broken; reset by an ok run
    last_run: str = ""  # run id that last counted, so a run counts once


@functools.lru_cache(maxsize=65536)  # pure, and called several times per URL per run
def normalise_url(url: str) -> str:
    """Cache key: lower-case scheme and host, no default port, no fragment, canonical %XX."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # malformed port or IPv6 literal: key on the text itself
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    netloc = host
    if parts.username is not None:
        userinfo = parts.username + (f":{parts.password}" if parts.password is not None else "")
        netloc = f"{userinfo}@{host}"
    if port is not None and port != DEFAULT_PORTS.get(scheme):
        netloc += f":{port}"
    path = _normalise_percent(parts.path) or ("/" if scheme in DEFAULT_PORTS else "")
    query = _normalise_percent(parts.query)
    return urlunsplit(SplitResult(scheme, netloc, path, query, ""))


def _normalise_percent(text: str) -> str:
    def fix(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    return _PERCENT.sub(fix, text)


def result_ttl(status: Status, max_age: float) -> float:
    """Seconds a result stays fresh; 0 means it is not kept across runs."""
    if status is Status.OK:
        return max_age
    if status is Status.REDIRECTED:
        return max_age / 4  # redirects change: a moved page may move on
    if status is Status.BROKEN:
        return min(BROKEN_TTL, max_age)
    return 0.0  # blocked, timeout, error: transient; excluded/unsupported: free to recompute


_RESULT_FIELDS = tuple(f.name for f in dataclasses.fields(CheckResult))


def _encode_result(result: CheckResult) -> dict[str, Any]:
    # By hand: dataclasses.asdict deep-copies recursively and showed up in profiles.
    data = {name: getattr(result, name) for name in _RESULT_FIELDS}
    data["status"] = result.status.value
    data["from_cache"] = False  # what is stored is a fresh verdict; get_result marks it cached
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
        else:
            try:
                directory.mkdir(parents=True, exist_ok=True)
                # No size-based eviction: a link checker's cache is small and losing history hurts.
                # cull_limit=0: no search for expired rows on every write (a third of a write's
                # cost); `close()` drops them all at once instead.
                import diskcache  # here: an offline or --no-cache run never pays for importing it

                self._store = diskcache.Cache(str(directory), eviction_policy="none", cull_limit=0)
            except (OSError, sqlite3.Error) as exc:
                raise ConfigError(
                    f"cache_dir: cannot open the cache at {directory}: {exc} (delete the directory, or run with --no-cache)"
                ) from exc
        self._pending: dict[str, tuple[Any, float | None]] = {}

    # results -------------------------------------------------------------------------------
    def get_result(self, url: str) -> CheckResult | None:
        return _decode_result(self._get(f"{_RESULT}:{normalise_url(url)}"), from_cache=True)

    def put_result(self, url: str, result: CheckResult) -> None:
        key = normalise_url(url)
        ttl = result_ttl(result.status, self.max_age)
        if ttl > 0:
            self._put(f"{_RESULT}:{key}", _encode_result(result), ttl)
        self._record_history(key, result)

    def history(self, url: str) -> History:
        data = self._get(f"{_HISTORY}:{normalise_url(url)}")
        if not isinstance(data, dict):
            return History()
        try:
            return History(**data)
        except TypeError:
            return History()

    def _record_history(self, key: str, result: CheckResult) -> None:
        if result.status in (Status.OK, Status.REDIRECTED):
            if self.history(key).broken_runs:
                self._put(f"{_HISTORY}:{key}", dataclasses.asdict(History()), HISTORY_TTL)
            return
        if result.status is not Status.BROKEN or result.from_cache:
            return  # blocked/timeout/error say nothing either way; a cached verdict is no new run
        before = self.history(key)
        if before.last_run == self.run_id:
            return
        now = result.checked_at or time.time()
        after = History(
            first_broken=before.first_broken or now,
            last_broken=now,
            broken_runs=before.broken_runs + 1,
            last_run=self.run_id,
        )
        self._put(f"{_HISTORY}:{key}", dataclasses.asdict(after), HISTORY_TTL)

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
        for key in self._store.iterkeys():
            counts["entries"] += 1
            namespace = str(key).split(":", 1)[0]
            if namespace == _RESULT:
                result = _decode_result(self._store.get(key))
                if result is None:  # expired between listing and reading
                    counts["entries"] -= 1
                    continue
                counts["results"] += 1
                by_status[result.status.value] = by_status.get(result.status.value, 0) + 1
            elif namespace == _HISTORY:
                counts["history"] += 1
            else:
                counts["other"] += 1
        counts.update({f"results_{status}": n for status, n in sorted(by_status.items())})
        counts["size_bytes"] = int(self._store.volume())
        return counts

    def clear(self) -> None:
        self._pending.clear()
        self._store.clear()

    def flush(self) -> None:
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
            except sqlite3.Error as exc:  # another process holds the lock: next run's turn
                log.debug("cache: expired entries not dropped: %s", exc)
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
