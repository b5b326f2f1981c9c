"""The cache directory on disk: a diskcache store that holds only text and executes nothing.

Whoever can write the cache directory (a shared CI cache restored into the job, a directory
committed in a cloned repository) controls every byte of it, not just the values. diskcache's
defaults trust those bytes: rows whose mode says "pickle" are unpickled, including pickled keys;
values may live in files named by the row, which are read, and deleted on expiry, eviction or
overwrite (a row can name `../../anything`); and the `Settings` table feeds the store's
constructor (stored settings become attributes and PRAGMAs). So here:

* `InertDisk` keeps values inline as text, never pickles, never writes a value file; a row that
  is not inline text reads as a miss (and is rewritten by the next write of its key); a key
  that is not plain text reads as nothing; it never removes a file, since it made none.
* `open_store` wipes every stored setting but diskcache's counters before diskcache reads them,
  and passes all of its own explicitly; refuses store files that are symbolic or hard links
  (a link would have the store write through it); creates the directory with a `.gitignore`
  of `*`; and replaces the previous format (a pickling diskcache beside `urls.sqlite3`) without
  reading it.

Values are JSON text (`values.py`); what a value means is checked by whoever reads it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sqlite3
import stat
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import diskcache
from diskcache.core import DBNAME, METADATA, MODE_RAW

from ..errors import LinkfixError

log = logging.getLogger(__name__)

BUSY_SECONDS = 10.0  # another linkfix run writing the same cache: wait this long for it
# Every setting diskcache has, given explicitly so that none is taken from the database.
# No eviction (a link checker's cache is small, and losing history hurts); cull_limit=0: no
# search for expired rows on each write (a third of a write's cost), `expire()` at close instead.
SETTINGS: dict[str, Any] = {
    "statistics": 0,
    "tag_index": 0,
    "eviction_policy": "none",
    "size_limit": 2**62,
    "cull_limit": 0,
    "sqlite_auto_vacuum": 1,
    "sqlite_cache_size": 2**13,
    "sqlite_journal_mode": "wal",
    "sqlite_mmap_size": 2**26,
    "sqlite_synchronous": 1,
    "disk_min_file_size": 2**62,  # InertDisk ignores both disk_ settings; stored for the record
    "disk_pickle_protocol": 0,
}
STORE_FILES = (DBNAME, f"{DBNAME}-wal", f"{DBNAME}-shm")
OLD_FILES = ("urls.sqlite3", "urls.sqlite3-wal", "urls.sqlite3-shm")  # the records table of the previous format
GITIGNORE = "# Created by linkfix automatically.\n*\n"
_VALUE_FILE = re.compile(r"[0-9a-f]{28}\.val")  # where the previous format's diskcache kept big values
_HEX2 = re.compile(r"[0-9a-f]{2}")
_BATCH = 500  # keys per SELECT: below SQLite's limit on bound parameters (999 in old builds)


class UnusableCache(LinkfixError):
    """The cache directory cannot be used safely; the run goes on without it (store/cache.py)."""


class InertDisk(diskcache.Disk):
    """Keys and values as text inline in the database: nothing pickled, no value files."""

    def __init__(self, directory: str, **ignored: Any) -> None:  # disk_* settings have no say here
        super().__init__(directory)

    def put(self, key: Any) -> tuple[str, bool]:
        if type(key) is not str:
            raise TypeError(f"cache keys are text, not {type(key).__name__}")
        return key, True

    def get(self, key: Any, raw: bool) -> str | None:
        return key if raw and type(key) is str else None  # a pickled key is never unpickled

    def store(self, value: Any, read: bool, key: Any = None) -> tuple[int, int, None, Any]:
        if read or type(value) not in (str, bytes):
            raise TypeError(f"cache values are text, not {type(value).__name__}")
        return 0, MODE_RAW, None, value if type(value) is str else sqlite3.Binary(value)

    def fetch(self, mode: int, filename: Any, value: Any, read: bool) -> str | bytes | None:
        if mode == MODE_RAW and filename is None and not read and isinstance(value, (str, bytes)):  # SQLite's own types
            return value
        return None  # pickled, in a file, or not text: a miss, never read

    def remove(self, file_path: Any) -> None:
        """Never: this disk writes no files, so a file a row names was put there by someone else."""


class InertStore(diskcache.Cache):
    """diskcache.Cache on `InertDisk`, plus the batched reads and writes a run's records need:
    a `get` or `set` per URL would cost more than the checks of a warm run. They work on
    diskcache's own `Cache` table (the layout it has had since 2016), inside its transactions;
    tests read what `set_many` wrote with diskcache's `get`, and the bulk reads against it."""

    def set_many(self, items: Iterable[tuple[str, str, float | None]]) -> None:
        """Store (key, text, seconds to keep or None) rows in one transaction, one statement for
        all: `set` per key costs three times as much. The row is the one `set` writes with
        InertDisk (inline text, no file); a row already there is overwritten in place, and the
        file it may name is left alone, as `InertDisk.remove` would."""
        now = time.time()
        rows = [(key, now, None if keep is None else now + keep, now, text) for key, text, keep in items]
        with self.transact():
            self._con.executemany(
                "INSERT INTO Cache (key, raw, store_time, expire_time, access_time, access_count, tag, size, mode, filename, value)"
                f" VALUES (?, 1, ?, ?, ?, 0, NULL, 0, {MODE_RAW}, NULL, ?) ON CONFLICT (key, raw) DO UPDATE SET"
                " store_time = excluded.store_time, expire_time = excluded.expire_time, access_time = excluded.access_time,"
                " access_count = 0, tag = NULL, size = 0, mode = excluded.mode, filename = NULL, value = excluded.value",
                rows,
            )

    def texts_in(self, prefix: str) -> dict[str, str]:
        """key -> text of every unexpired inline text row whose key starts with `prefix`."""
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)  # keys sort between prefix and this
        rows = self._sql(
            "SELECT key, value FROM Cache WHERE key >= ? AND key < ? AND raw = 1 AND mode = ? AND filename IS NULL"
            " AND typeof(value) = 'text' AND (expire_time IS NULL OR expire_time > ?)",
            (prefix, upper, MODE_RAW, time.time()),
        )
        return dict(rows.fetchall())

    def texts_among(self, keys: Iterable[str]) -> dict[str, str]:
        """key -> text of the unexpired inline text rows among `keys`."""
        keys, now = list(keys), time.time()
        found: dict[str, str] = {}
        for start in range(0, len(keys), _BATCH):
            chunk = keys[start : start + _BATCH]
            rows = self._sql(
                f"SELECT key, value FROM Cache WHERE key IN ({','.join('?' * len(chunk))}) AND raw = 1 AND mode = ?"
                " AND filename IS NULL AND typeof(value) = 'text' AND (expire_time IS NULL OR expire_time > ?)",
                (*chunk, MODE_RAW, now),
            )
            found.update(rows.fetchall())
        return found

    def count_in(self, prefix: str) -> int:
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        return int(self._sql("SELECT count(*) FROM Cache WHERE key >= ? AND key < ?", (prefix, upper)).fetchone()[0])

    def other_keys(self, prefix: str) -> int:
        """Unexpired rows whose key does not start with `prefix`."""
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        return int(self._sql("SELECT count(*) FROM Cache WHERE (key < ? OR key >= ?) AND (expire_time IS NULL OR expire_time > ?)",
                             (prefix, upper, time.time())).fetchone()[0])


def open_store(directory: Path) -> InertStore:
    """The store in `directory`, created if need be; UnusableCache (or the error met) when it
    cannot be used safely."""
    if directory.is_symlink():
        raise UnusableCache("the directory is a symbolic link")
    created = not directory.exists()
    directory.mkdir(parents=True, exist_ok=True)
    if created:  # what pytest, ruff and mypy do: their own directory never shows up as untracked
        (directory / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    _refuse_links(directory)
    _say_if_anyone_may_write(directory)
    if any(os.path.lexists(directory / name) for name in OLD_FILES):
        log.info("cache: replacing the cache of an older linkfix version in %s (it is not read)", directory)
        remove_store_files(directory)
    _forget_settings(directory / DBNAME)
    return InertStore(str(directory), timeout=BUSY_SECONDS, disk=InertDisk, **SETTINGS)


def remove_store_files(directory: Path) -> None:
    """Delete the store (this format's and the previous one's) so that a new one starts: only
    files of the names the store uses, and the previous format's value files `xx/yy/<hex>.val`
    found without following links."""
    if directory.is_symlink():
        raise UnusableCache("the directory is a symbolic link")
    for name in (*STORE_FILES, *OLD_FILES):
        path = directory / name
        if os.path.lexists(path):
            path.unlink()  # a link is removed, never what it points to
    for first in _hex_dirs(directory):
        for second in _hex_dirs(first):
            for entry in os.scandir(second):
                if _VALUE_FILE.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                    os.unlink(entry.path)
            _remove_if_empty(second)
        _remove_if_empty(first)


def _hex_dirs(directory: Path) -> list[Path]:
    return [Path(e.path) for e in os.scandir(directory) if _HEX2.fullmatch(e.name) and e.is_dir(follow_symlinks=False)]


def _remove_if_empty(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not empty: something else lives there, leave it
        directory.rmdir()


def _say_if_anyone_may_write(directory: Path) -> None:
    """A warning when any user of the machine may write the store (its directory or database
    world-writable): whoever can write it can plant results, ok for a dead link, within the
    run's --max-cache-age."""
    for path in (directory, directory / DBNAME):
        try:
            mode = path.stat().st_mode
        except OSError:
            continue
        if mode & stat.S_IWOTH:
            log.warning("cache: %s is writable by every user of this machine: any of them can plant results in it "
                        "(`chmod o-w` it, or use --cache-dir)", path)
            return


def _refuse_links(directory: Path) -> None:
    """SQLite would write through a store file that is a link to somewhere else."""
    for name in STORE_FILES:
        try:
            info = (directory / name).lstat()
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
            raise UnusableCache(f"{name} is a link or not a regular file")


def _forget_settings(database: Path) -> None:
    """Drop every stored setting but diskcache's integer counters, before diskcache reads them:
    it would make each an attribute of the store (`_directory` moves the database), a PRAGMA,
    or an argument of the disk."""
    if not database.exists():
        return
    db = sqlite3.connect(database, timeout=BUSY_SECONDS, isolation_level=None)
    try:
        if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'Settings'").fetchone() is None:
            return
        counters = tuple(METADATA)
        keep = f"key IN ({','.join('?' * len(counters))}) AND typeof(value) = 'integer'"
        if db.execute(f"SELECT 1 FROM Settings WHERE NOT ({keep}) LIMIT 1", counters).fetchone() is not None:
            db.execute(f"DELETE FROM Settings WHERE NOT ({keep})", counters)
    finally:
        db.close()
