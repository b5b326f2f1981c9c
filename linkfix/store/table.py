"""The per-URL records of the cache: one SQLite table, read and written in batches.

A check asks about every URL of a site once per run, so this is the cache's hot path. diskcache
(which keeps everything else) reads and writes one key per call, about 20 and 60 microseconds
in Python; a run over 10,000 URLs spent more time there than in its HTTP exchanges. Here a
document's URLs are read with one SELECT and a run's results written with one executemany per
transaction. Records are JSON text, so the file is readable with any SQLite tool.

A table of moderate size (a project's own cache) is read whole, in one scan, at the first lookup:
scanning 10,000 rows takes a quarter of the time of looking them up a document at a time, and a
warm run asks for nearly all of them. The rows stay as text until asked for.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable, Iterator, Literal, Mapping

log = logging.getLogger(__name__)

FILE_NAME = "urls.sqlite3"
_BATCH = 500  # keys per SELECT: below SQLite's limit on bound parameters (999 in old builds)
_BUSY_SECONDS = 10.0  # another linkfix run writing the same cache: wait this long for it
WHOLE_TABLE_BYTES = 32 * 1024 * 1024  # up to this size (~100k URLs) the table is read whole


class RecordTable:
    """key -> JSON-able record, each with an expiry time; in `directory`, or in memory."""

    def __init__(self, directory: Path | None) -> None:
        self._memory: dict[str, tuple[Any, float]] | None = None
        self._db: sqlite3.Connection | None = None
        # key -> record text of every unexpired row, read at the first lookup (False: the table
        # is too big to read whole); this object's own writes are added as they happen.
        self._rows: dict[str, str] | Literal[False] | None = None
        if directory is None:
            self._memory = {}
            return
        self._db = sqlite3.connect(directory / FILE_NAME, timeout=_BUSY_SECONDS, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")  # readers never wait for the one writer
        self._db.execute("PRAGMA synchronous=NORMAL")  # WAL keeps it consistent; a crash may lose the last commit
        self._db.execute("CREATE TABLE IF NOT EXISTS url (key TEXT PRIMARY KEY, record TEXT NOT NULL, expires REAL NOT NULL) WITHOUT ROWID")

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The unexpired records among `keys` (absent keys are left out)."""
        now = time.time()
        found: dict[str, Any] = {}
        if self._memory is not None:
            for key in keys:
                item = self._memory.get(key)
                if item is not None and item[1] > now:
                    found[key] = item[0]
            return found
        for key, text in self._stored_texts(keys, now):
            try:
                found[key] = json.loads(text)
            except ValueError:  # damaged by hand or by another tool: a miss, rewritten later
                continue
        return found

    def _stored_texts(self, keys: Iterable[str], now: float) -> Iterator[tuple[str, str]]:
        """(key, record text) of the unexpired rows among `keys`: from the table read whole, or
        with a query per batch of keys when it is too big for that."""
        assert self._db is not None
        if self._rows is None:
            self._rows = self._read_whole()
        if self._rows is not False:
            rows = self._rows
            yield from ((key, rows[key]) for key in keys if key in rows)
            return
        keys = list(keys)
        for start in range(0, len(keys), _BATCH):
            chunk = keys[start : start + _BATCH]
            marks = ",".join("?" * len(chunk))
            yield from self._db.execute(f"SELECT key, record FROM url WHERE expires > ? AND key IN ({marks})", (now, *chunk))

    def put_many(self, records: Mapping[str, tuple[Any, float]]) -> None:
        """Store {key: (record, seconds to keep)} in one transaction."""
        if not records:
            return
        now = time.time()
        if self._memory is not None:
            self._memory.update({key: (record, now + keep) for key, (record, keep) in records.items()})
            return
        assert self._db is not None
        rows = [(key, json.dumps(record, separators=(",", ":")), now + keep) for key, (record, keep) in records.items()]
        with self._db:  # BEGIN ... COMMIT (ROLLBACK on error)
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO url (key, record, expires) VALUES (?, ?, ?)", rows)
        if isinstance(self._rows, dict):
            self._rows.update((key, text) for key, text, _ in rows)

    def _read_whole(self) -> dict[str, str] | Literal[False]:
        assert self._db is not None
        if self.size_bytes() > WHOLE_TABLE_BYTES:
            return False
        return dict(self._db.execute("SELECT key, record FROM url WHERE expires > ?", (time.time(),)))

    def all_records(self) -> Iterable[tuple[str, Any]]:
        """Every unexpired (key, record), for `linkfix cache stats`."""
        keys = list(self._memory) if self._memory is not None else [row[0] for row in self._db.execute("SELECT key FROM url")]  # type: ignore[union-attr]
        return self.get_many(keys).items()

    def size_bytes(self) -> int:
        if self._db is None:
            return 0
        pages, size = (self._db.execute(f"PRAGMA {name}").fetchone()[0] for name in ("page_count", "page_size"))
        return int(pages) * int(size)

    def drop_expired(self) -> None:
        self._rows = None
        if self._db is not None:
            with self._db:
                self._db.execute("BEGIN")
                self._db.execute("DELETE FROM url WHERE expires <= ?", (time.time(),))

    def clear(self) -> None:
        self._rows = None
        if self._memory is not None:
            self._memory.clear()
        elif self._db is not None:
            with self._db:
                self._db.execute("BEGIN")
                self._db.execute("DELETE FROM url")

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
