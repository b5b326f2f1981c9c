"""Results and facts kept between runs, with a time-to-live per status class.

Keys are normalised URLs, so `HTTP://Example.com:80/a%7eb#x` and `http://example.com/a~b` share
an entry. Each URL has one record: its latest result, until when that result is fresh, and its
broken history (first and latest broken run, consecutive broken runs) so that the fixer can wait
for a link to stay broken over several runs and days before rewriting it. One record, not a
result and a history apart: a cold run then costs one read and one write per URL, which
measured a third of the checker's CPU when it was four.

A result is fresh while its age (from its own `checked_at`) is within what this run accepts for
its status (`max_age`, `--max-cache-age`) and within the `fresh_until` of its record: the
record's word alone is never enough, since whoever wrote the directory chose it. A result that
is no longer fresh (or never was: errors and timeouts) is still remembered for a day
(`last_result`), so that the next run knows a URL failed last time.

Everything lives in one diskcache store (`disk.py`: text only, never executed), in namespaces:
`url:<normalised URL>` for the records, `<namespace>:<key>` for other stages' facts. Values
are JSON data, in memory too, so a value that would not survive the disk fails in every run.
A run asks about every URL of a site, so the records are read in bulk: the whole `url:`
namespace in one query at the first lookup (a project's cache), or a query per document's URLs
when it is very large. Writes are buffered and flushed in one transaction (on `flush()`,
`close()`, or every `FLUSH_EVERY` writes): one commit per result would cost more than the checks.

Without a directory (caching off: `cache: false`, `--no-cache`, `--offline`) the same object
keeps what this run wrote and nothing else. A directory that cannot be used (damaged, not a
database, a link, disk full, locked past the wait) is given up with one warning, and the run
goes on as without one: a cache is an optimisation, never a reason for a run to fail.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model import CheckResult, Status
from ..urls import normalise_url
from .records import History, UrlRecord, decode_result, encode_result, next_history
from .values import MISS, dumps, loads

if TYPE_CHECKING:
    from .disk import InertStore

__all__ = ["BROKEN_TTL", "Cache", "History", "keep_seconds", "result_ttl"]

log = logging.getLogger(__name__)

BROKEN_TTL = 3 * 3600.0  # a broken or blocked verdict is re-checked after a few hours
HISTORY_TTL = 365 * 86400.0
LAST_RESULT_TTL = 86400.0  # how long a result that is no longer fresh is still remembered
CLOCK_SKEW = 300.0  # seconds a result's check time may be ahead of this machine's clock
FLUSH_EVERY = 500
RECORDS = "url:"  # key prefix of the per-URL records
WHOLE_READ_RECORDS = 100_000  # up to this many records, the first lookup reads them all at once
_SAID: set[tuple[str, str, str]] = set()  # the warnings given up caches have given


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


def keep_seconds(record: UrlRecord) -> float:
    """How long a store keeps `record`: while its result is fresh, a day at least (the last
    result is remembered), a year while it has a broken history (confirmations wait for it)."""
    fresh = max(0.0, record.fresh_until - time.time())
    return max(fresh, LAST_RESULT_TTL, HISTORY_TTL if record.history.broken_runs else 0.0)


class Cache:
    """Results with TTLs, URL histories, and small namespaced facts for other stages."""

    def __init__(self, directory: Path | None, *, max_age: float = 86400, run_id: str = "") -> None:
        self.max_age = float(max_age)
        self.run_id = run_id or uuid.uuid4().hex  # a run counts once in every URL's history
        self.directory = directory
        self.problem = ""  # why `directory` is not used, once it is given up
        self._store: InertStore | None = None
        if directory is not None:
            try:
                from .disk import open_store  # here: a run without a cache never imports diskcache

                self._store = open_store(directory)
            except Exception as exc:
                self._give_up("cannot be opened", exc)
        # Records read or written by this object: a URL's record is read once per run, and the
        # write that follows its check needs no second read for the history.
        self._records: dict[str, UrlRecord] = {}
        self._unsaved: dict[str, float] = {}  # records written and not yet stored -> seconds to keep
        self._facts: dict[str, tuple[str, float | None]] = {}  # "ns:key" -> (JSON, seconds to keep), not yet stored
        # The records' texts read at the first lookup, by URL, until each is decoded; None: not
        # read yet; False: too many to read at once (a query per lookup instead).
        self._texts: dict[str, str] | bool | None = None

    # results -------------------------------------------------------------------------------
    def get_result(self, url: str) -> CheckResult | None:
        """The URL's result while it is fresh, else None."""
        record = self._record(normalise_url(url))
        now = time.time()
        if record.fresh_until <= now:
            return None
        result = decode_result(record.result, from_cache=True)
        return result if result is not None and self._young_enough(result, now) else None

    def _young_enough(self, result: CheckResult, now: float) -> bool:
        """Whether `result` was checked within what this run accepts (`max_age`, by status).
        The record's own `fresh_until` is only an upper bound: whoever wrote the directory (a
        cache committed in the checkout, a restored CI cache) chose it, and a result planted
        fresh for years must not outlive the run's --max-cache-age. A check in the future is
        no check (beyond a few minutes of clock difference between machines sharing a cache)."""
        return now - result_ttl(result.status, self.max_age) < result.checked_at <= now + CLOCK_SKEW

    def last_result(self, url: str) -> CheckResult | None:
        """The URL's latest result, fresh or not (remembered `LAST_RESULT_TTL` at least)."""
        return decode_result(self._record(normalise_url(url)).result, from_cache=True)

    def put_result(self, url: str, result: CheckResult) -> None:
        key = normalise_url(url)
        history = next_history(self._record(key).history, result, self.run_id)
        ttl = result_ttl(result.status, self.max_age)
        fresh_until = time.time() + ttl if ttl > 0 else 0.0
        self._keep(key, UrlRecord(result=encode_result(result), fresh_until=fresh_until, history=history))

    def record(self, url: str) -> UrlRecord:
        """The URL's record as this run knows it (read from the store once), fresh or not."""
        return self._record(normalise_url(url))

    def adopt(self, url: str, record: UrlRecord) -> None:
        """Take `record` (another run's, from a shared store) as the URL's record: answered
        from it as from any record, and stored with this run's writes."""
        self._keep(normalise_url(url), record)

    def _keep(self, key: str, record: UrlRecord) -> None:
        self._records[key] = record
        self._unsaved[key] = keep_seconds(record)
        if len(self._unsaved) + len(self._facts) >= FLUSH_EVERY:
            self.flush()

    def history(self, url: str) -> History:
        return self._record(normalise_url(url)).history

    def preload(self, urls: Iterable[str]) -> None:
        """Read the records of many URLs at once, ahead of asking about each."""
        keys = {normalise_url(url) for url in urls}.difference(self._records)
        if keys:
            self._read_records(keys)

    def _record(self, key: str) -> UrlRecord:
        record = self._records.get(key)
        if record is None:
            self._read_records((key,))
            record = self._records[key]
        return record

    def _read_records(self, keys: Collection[str]) -> None:
        texts, records, decode = self._stored_texts(keys), self._records, UrlRecord.decode
        for key in keys:
            records[key] = decode(loads(texts.get(key)))  # not JSON (MISS): an empty record

    def _stored_texts(self, keys: Collection[str]) -> dict[str, str]:
        """URL -> stored record text, for those of `keys` the store has."""
        if self._store is None:
            return {}
        try:
            if self._texts is None:
                whole = self._store.count_in(RECORDS) <= WHOLE_READ_RECORDS
                self._texts = {key[len(RECORDS):]: text for key, text in self._store.texts_in(RECORDS).items()} if whole else False
            if self._texts is False:
                return {key[len(RECORDS):]: text for key, text in self._store.texts_among(RECORDS + key for key in keys).items()}
        except Exception as exc:
            self._give_up("cannot be read", exc)
            return {}
        assert isinstance(self._texts, dict)
        texts = self._texts
        return {key: texts.pop(key) for key in keys if key in texts}  # each is decoded once: the text is done with

    # generic facts ---------------------------------------------------------------------------
    def get(self, namespace: str, key: str) -> Any | None:
        """The data kept under `namespace:key`, or None. It was JSON on disk: callers check its shape."""
        name = f"{namespace}:{key}"
        unsaved = self._facts.get(name)
        value = loads(unsaved[0] if unsaved is not None else self._stored(name))
        return None if value is MISS else value

    def set(self, namespace: str, key: str, value: Any, ttl: float) -> None:
        """Keep `value` (JSON data: dicts, lists, str, numbers, bool, None) for `ttl` seconds;
        `math.inf` keeps it until cleared, `ttl <= 0` not at all. TypeError for anything else."""
        text = dumps(value)  # first: the same rule whether or not it is kept
        if ttl <= 0:
            return
        self._facts[f"{namespace}:{key}"] = (text, None if math.isinf(ttl) else ttl)
        if len(self._unsaved) + len(self._facts) >= FLUSH_EVERY:
            self.flush()

    def _stored(self, name: str) -> str | None:
        if self._store is None:
            return None
        try:
            value = self._store.get(name)
        except Exception as exc:
            self._give_up("cannot be read", exc)
            return None
        return value if isinstance(value, str) else None  # the store holds text; anything else is a miss

    # housekeeping -------------------------------------------------------------------------------
    def stats(self) -> dict[str, int]:
        self.flush()
        counts = {"entries": 0, "results": 0, "history": 0, "other": 0}
        by_status: dict[str, int] = {}
        texts: dict[str, str] = {}
        size = 0
        if self._store is not None:
            try:
                texts = self._store.texts_in(RECORDS)
                counts["other"] = self._store.other_keys(RECORDS)
                size = int(self._store.volume())
            except Exception as exc:
                self._give_up("cannot be read", exc)
        now = time.time()
        for text in texts.values():
            record = UrlRecord.decode(loads(text))
            result = decode_result(record.result)
            if result is not None and record.fresh_until > now and self._young_enough(result, now):
                counts["results"] += 1
                by_status[result.status.value] = by_status.get(result.status.value, 0) + 1
            counts["history"] += record.history.broken_runs > 0
        counts["entries"] = len(texts) + counts["other"]
        counts.update({f"results_{status}": n for status, n in sorted(by_status.items())})
        counts["size_bytes"] = size
        return counts

    def clear(self) -> None:
        """Forget everything; a directory that could not be used is replaced by an empty store."""
        self._records.clear()
        self._unsaved.clear()
        self._facts.clear()
        self._texts = None
        if self._store is not None:
            try:
                self._store.clear()
                return
            except Exception as exc:
                self._give_up("cannot be cleared", exc)
        if self.directory is not None:
            try:
                from .disk import open_store, remove_store_files

                remove_store_files(self.directory)
                self._store = open_store(self.directory)
                self.problem = ""
            except Exception as exc:
                self._give_up("cannot be replaced", exc)

    def flush(self) -> None:
        """Store what this run wrote; without a store it stays this run's memory."""
        if self._store is None or not (self._unsaved or self._facts):
            return
        records = self._records
        rows: list[tuple[str, str, float | None]] = [(RECORDS + key, dumps(records[key].encode()), keep) for key, keep in self._unsaved.items()]
        rows.extend((name, text, keep) for name, (text, keep) in self._facts.items())
        try:
            self._store.set_many(rows)
        except Exception as exc:
            self._give_up("cannot be written", exc)
            return
        self._unsaved.clear()
        self._facts.clear()

    def close(self) -> None:
        self.flush()
        if self._store is None:
            return
        try:
            self._store.expire()
        except Exception as exc:
            log.debug("cache: expired entries not dropped: %s", exc)
        self._close_store()

    def __enter__(self) -> Cache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _give_up(self, doing: str, exc: Exception) -> None:
        """Go on without the directory, saying so once. Any exception counts: the directory's
        bytes are not ours to trust (a damaged or crafted database fails in every way sqlite3
        and diskcache can), and no state of a cache is a reason for a run to fail."""
        self._close_store()
        self.problem = f"{type(exc).__name__}: {exc}"
        hint = "; `linkfix cache clear` replaces it" if doing in ("cannot be opened", "cannot be read") else ""
        # Once per process: a run may open the cache more than once (checks, then recovery).
        said = (str(self.directory), doing, self.problem)
        level = logging.DEBUG if said in _SAID else logging.WARNING
        _SAID.add(said)
        log.log(level, "cache: %s %s (%s); going on without it%s", self.directory, doing, self.problem, hint)

    def _close_store(self) -> None:
        store, self._store = self._store, None
        if store is not None:
            try:
                store.close()
            except Exception as exc:
                log.debug("cache: closing the store: %s", exc)
