"""A cache directory someone else wrote: restored from a shared CI cache, or committed in a cloned
repository. Whoever wrote it controls every byte in it — values, keys, the file names rows point
at, the store's own settings, the database file itself. Reading it must never run code, never
read or remove a file outside it, and never stop a run: the worst it may do is be ignored.

Each attack is a crafted directory; the payloads would leave a marker (a directory) if they
ever ran, and the files they aim at sit next to the cache directory.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import pickle
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import diskcache
import pytest

from linkfix.cli import main
from linkfix.config import Config
from linkfix.extract.documents import EXTRACT_NAMESPACE, extraction_key
from linkfix.model import CheckResult, Status
from linkfix.store.cache import Cache

REPO = Path(__file__).resolve().parents[2]
MODE_RAW, MODE_BINARY, MODE_TEXT, MODE_PICKLE = 1, 2, 3, 4  # diskcache's row modes


class _Payload:
    """Pickles into a call of os.mkdir(marker): unpickling it is running it."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return os.mkdir, (self.marker,)


def _payload(marker: Path) -> bytes:
    return pickle.dumps(_Payload(marker))


def _store_schema(directory: Path) -> sqlite3.Connection:
    """A diskcache database as diskcache itself lays it out, opened for hand-made rows."""
    directory.mkdir(parents=True, exist_ok=True)
    diskcache.Cache(str(directory)).close()
    return sqlite3.connect(directory / "cache.db", isolation_level=None)


def _row(db: sqlite3.Connection, key, *, mode: int, value=None, filename: str | None = None, raw: bool = True,
         expire: float | None = None) -> None:
    now = time.time()
    db.execute(
        "INSERT OR REPLACE INTO Cache (key, raw, store_time, expire_time, access_time, access_count, tag, size, mode, filename, value)"
        " VALUES (?, ?, ?, ?, ?, 0, NULL, 0, ?, ?, ?)",
        (key, int(raw), now, expire if expire is not None else now + 3600, now, mode, filename, value),
    )


def _docs(tmp_path: Path) -> Path:
    """A project with one broken internal link and no external one: a run checks it without
    the network, yet opens the cache (extractions are cached) because it is not --offline."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the guide](guide.md) and [nothing](missing.md).\n", encoding="utf-8")
    (docs / "guide.md").write_text("# Guide\n\nBack [home](index.md).\n", encoding="utf-8")
    return docs


def _check(tmp_path: Path, docs: Path, cache_dir: Path) -> int:
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    code = main(["check", str(docs), "--cache-dir", str(cache_dir), "-f", "json", "-o", str(report)])
    assert report.is_file(), "the run wrote its report"
    return code


def _cache_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and "cache" in r.getMessage()]


# -- values are data, never objects ------------------------------------------------------------------------


def test_pickled_values_are_never_unpickled_and_get_rewritten(tmp_path):
    marker, directory = tmp_path / "pwned", tmp_path / "cache"
    db = _store_schema(directory)
    _row(db, "ns:inline", mode=MODE_PICKLE, value=_payload(marker))
    value_file = directory / "ab" / "cd" / "0123456789abcdef0123456789ab.val"
    value_file.parent.mkdir(parents=True)
    value_file.write_bytes(_payload(marker))
    _row(db, "ns:in-a-file", mode=MODE_PICKLE, filename="ab/cd/0123456789abcdef0123456789ab.val")
    db.close()
    with Cache(directory) as cache:
        assert cache.get("ns", "inline") is None
        assert cache.get("ns", "in-a-file") is None
        cache.set("ns", "inline", {"fresh": True}, ttl=60)
    assert not marker.exists()
    with Cache(directory) as cache:
        assert cache.get("ns", "inline") == {"fresh": True}  # the refused row was rewritten as data
    assert not marker.exists()


def test_a_run_over_a_crafted_extraction_entry_runs_no_code(tmp_path):
    marker, directory, docs = tmp_path / "pwned", tmp_path / "cache", _docs(tmp_path)
    db = _store_schema(directory)
    for name in ("index.md", "guide.md"):
        for want_text in (False, True):
            _row(db, f"{EXTRACT_NAMESPACE}:{extraction_key(docs / name, want_text)}", mode=MODE_PICKLE, value=_payload(marker))
    db.close()
    assert _check(tmp_path, docs, directory) == 1  # the broken link is still found
    assert not marker.exists()


def test_pickled_keys_are_never_unpickled(tmp_path, capsys):
    marker, directory = tmp_path / "pwned", tmp_path / "cache"
    db = _store_schema(directory)
    _row(db, _payload(marker), raw=False, mode=MODE_RAW, value="x")
    db.close()
    assert main(["cache", "stats", "--cache-dir", str(directory)]) == 0
    assert main(["cache", "clear", "--cache-dir", str(directory)]) == 0
    assert not marker.exists()


# -- file names in rows: never read, never removed -------------------------------------------------------------


def test_rows_naming_files_outside_the_cache_are_neither_read_nor_removed(tmp_path):
    directory = tmp_path / "cache"
    outside = tmp_path / "outside" / "deep"
    outside.mkdir(parents=True)
    victims = {name: outside / name for name in ("read.txt", "expired.txt", "overwritten.txt", "cleared.txt", "absolute.txt")}
    for path in victims.values():
        path.write_text("secret", encoding="utf-8")
    db = _store_schema(directory)
    _row(db, "ns:read", mode=MODE_TEXT, filename="../outside/deep/read.txt")
    _row(db, "ns:absolute", mode=MODE_TEXT, filename=str(victims["absolute.txt"]))
    _row(db, "ns:expired", mode=MODE_BINARY, filename="../outside/deep/expired.txt", expire=time.time() - 10)
    _row(db, "ns:overwritten", mode=MODE_TEXT, filename="../outside/deep/overwritten.txt")
    _row(db, "ns:cleared", mode=MODE_BINARY, filename="../outside/deep/cleared.txt")
    db.close()
    with Cache(directory) as cache:
        assert cache.get("ns", "read") is None  # not the file's text
        assert cache.get("ns", "absolute") is None
        cache.set("ns", "overwritten", "new value", ttl=60)
        cache.flush()
    # close() dropped the expired row; now empty the cache the way a user does
    assert main(["cache", "clear", "--cache-dir", str(directory)]) == 0
    for path in victims.values():
        assert path.read_text(encoding="utf-8") == "secret", path
    assert outside.is_dir()


# -- the store's settings cannot steer it ------------------------------------------------------------------------


def test_stored_settings_do_not_steer_the_store(tmp_path):
    directory, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    elsewhere.mkdir()
    db = _store_schema(directory)
    hostile = {
        "_directory": str(elsewhere),  # diskcache sets every stored setting as an attribute
        "disk_min_file_size": 0,  # every value into a file
        "eviction_policy": "least-recently-stored",
        "size_limit": 0,
        "cull_limit": 10,
        "sqlite_mmap_size": 2**40,
    }
    db.executemany("INSERT OR REPLACE INTO Settings (key, value) VALUES (?, ?)", list(hostile.items()))
    db.close()
    with Cache(directory) as cache:
        for i in range(20):
            cache.set("ns", f"k{i}", {"n": i}, ttl=60)
    with Cache(directory) as cache:
        assert [cache.get("ns", f"k{i}") for i in range(20)] == [{"n": i} for i in range(20)]  # nothing culled
    assert list(elsewhere.iterdir()) == []
    assert {p.name for p in directory.iterdir()} <= {"cache.db", "cache.db-shm", "cache.db-wal"}  # no value files


# -- unusable stores: warn once, run without -------------------------------------------------------------------


def _not_a_database(directory: Path) -> None:
    directory.mkdir()
    (directory / "cache.db").write_bytes(b"this is not an SQLite database\n" * 200)


def _truncated(directory: Path) -> None:
    with Cache(directory) as cache:
        for i in range(300):
            cache.set("ns", f"k{i}", "x" * 200, ttl=60)
    data = (directory / "cache.db").read_bytes()
    for name in ("cache.db-wal", "cache.db-shm"):
        (directory / name).unlink(missing_ok=True)
    (directory / "cache.db").write_bytes(data[: len(data) // 2] + b"\xff" * 512)


def _wrong_schema(directory: Path) -> None:
    directory.mkdir()
    db = sqlite3.connect(directory / "cache.db")
    db.execute("CREATE TABLE Cache (something TEXT)")
    db.execute("CREATE TABLE Settings (key TEXT, value)")
    db.commit()
    db.close()


def _a_file(directory: Path) -> None:
    directory.write_text("a file where the cache directory should be", encoding="utf-8")


@pytest.mark.parametrize("damage", [_not_a_database, _truncated, _wrong_schema, _a_file], ids=lambda f: f.__name__.strip("_"))
def test_an_unusable_cache_warns_once_and_the_run_completes(tmp_path, caplog, damage):
    directory, docs = tmp_path / "cache", _docs(tmp_path)
    damage(directory)
    with caplog.at_level(logging.WARNING):
        assert _check(tmp_path, docs, directory) == 1  # the report, with the broken link, not exit 2
    warnings = _cache_warnings(caplog)
    assert len(warnings) == 1, warnings
    assert str(directory) in warnings[0]


def test_a_damaged_cache_is_replaced_by_cache_clear(tmp_path, capsys):
    directory = tmp_path / "cache"
    _not_a_database(directory)
    assert main(["cache", "clear", "--cache-dir", str(directory)]) == 0
    with Cache(directory) as cache:
        cache.set("ns", "k", 1, ttl=60)
    with Cache(directory) as cache:
        assert cache.get("ns", "k") == 1


def _full_disk(monkeypatch, error: Exception) -> None:
    """Every write transaction of the store fails as on a full disk."""

    @contextlib.contextmanager
    def full(self, retry=False):
        raise error
        yield  # pragma: no cover - a generator, never reached

    monkeypatch.setattr(diskcache.Cache, "transact", full)


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"), sqlite3.OperationalError("database or disk is full")],
                         ids=["ENOSPC", "SQLITE_FULL"])
def test_a_full_disk_warns_once_and_the_run_completes(tmp_path, caplog, monkeypatch, error):
    directory, docs = tmp_path / "cache", _docs(tmp_path)
    _full_disk(monkeypatch, error)
    with caplog.at_level(logging.WARNING):
        assert _check(tmp_path, docs, directory) == 1
    assert len(_cache_warnings(caplog)) == 1, _cache_warnings(caplog)


def _small_files() -> None:
    # Files may not grow past 400 KiB: writes beyond fail (EFBIG) as on a full disk. Opening the
    # store fits; the extractions of the long files below do not. The report goes to stdout, a
    # pipe, which the limit does not cover.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (400 * 1024, 400 * 1024))


def test_a_real_write_failure_mid_run_warns_once_and_the_run_completes(tmp_path):
    docs = _docs(tmp_path)
    links = " ".join(f"[home {i}](index.md)" for i in range(3_000))
    for n in range(8):  # ~200 KB of extracted links to keep for each
        (docs / f"long{n}.md").write_text(f"# Long {n}\n\n{links}\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "linkfix", "check", str(docs), "--cache-dir", str(tmp_path / "cache"), "-f", "json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, preexec_fn=_small_files)
    assert done.returncode == 1, done.stderr
    assert [link["url"] for link in json.loads(done.stdout)["links"] if link["status"] == "broken"] == ["missing.md"]
    assert "Traceback" not in done.stderr
    assert done.stderr.count("cache:") == 1 and "cannot be written" in done.stderr, done.stderr


def test_results_not_saved_on_a_full_disk_are_still_known_to_the_run(tmp_path, monkeypatch):
    _full_disk(monkeypatch, OSError(errno.ENOSPC, "No space left on device"))
    url = "https://x.org/a"
    cache = Cache(tmp_path / "cache")
    cache.set("ns", "k", [1, 2], ttl=60)
    cache.put_result(url, CheckResult(url=url, status=Status.OK, checked_at=time.time()))
    cache.flush()  # fails: the run goes on without the disk
    assert cache.get("ns", "k") == [1, 2]
    assert cache.get_result(url).status is Status.OK
    cache.close()


# -- store files that are links ---------------------------------------------------------------------------------


def test_store_files_that_are_links_are_not_followed(tmp_path, caplog):
    directory, victim = tmp_path / "cache", tmp_path / "victim.db"
    victim_store = diskcache.Cache(str(tmp_path / "victim-store"))
    victim_store.set("theirs", "untouched")
    victim_store.close()
    shutil.copy(tmp_path / "victim-store" / "cache.db", victim)
    before = victim.read_bytes()
    directory.mkdir()
    (directory / "cache.db").symlink_to(victim)
    with caplog.at_level(logging.WARNING), Cache(directory) as cache:
        cache.set("ns", "k", "v", ttl=60)
    assert victim.read_bytes() == before
    assert len(_cache_warnings(caplog)) == 1


# -- the previous format ------------------------------------------------------------------------------------------


def test_a_cache_of_the_previous_format_is_replaced_without_unpickling(tmp_path, caplog):
    marker, directory, docs = tmp_path / "pwned", tmp_path / "cache", _docs(tmp_path)
    _store_schema(directory).close()
    old = sqlite3.connect(directory / "urls.sqlite3")
    old.execute("CREATE TABLE url (key TEXT PRIMARY KEY, record TEXT NOT NULL, expires REAL NOT NULL) WITHOUT ROWID")
    old.execute("INSERT INTO url VALUES ('https://x.org/', '{\"result\": {\"url\": \"https://x.org/\", \"status\": \"ok\"}}', ?)", (time.time() + 60,))
    old.commit()
    old.close()
    db = sqlite3.connect(directory / "cache.db", isolation_level=None)
    _row(db, f"{EXTRACT_NAMESPACE}:{extraction_key(docs / 'index.md', Config().suggest)}", mode=MODE_PICKLE, value=_payload(marker))
    value_file = directory / "0a" / "1b" / "0123456789abcdef0123456789ab.val"
    value_file.parent.mkdir(parents=True)
    value_file.write_bytes(_payload(marker))
    _row(db, f"{EXTRACT_NAMESPACE}:{extraction_key(docs / 'guide.md', Config().suggest)}", mode=MODE_PICKLE,
         filename="0a/1b/0123456789abcdef0123456789ab.val")
    db.close()
    with caplog.at_level(logging.INFO):
        assert _check(tmp_path, docs, directory) == 1
    assert not marker.exists()
    assert not (directory / "urls.sqlite3").exists() and not value_file.exists()
    about_it = [r for r in caplog.records if r.levelno >= logging.INFO and "cache" in r.getMessage() and "older" in r.getMessage()]
    assert len(about_it) == 1
    assert _cache_warnings(caplog) == []
    caplog.clear()
    with caplog.at_level(logging.INFO):
        assert _check(tmp_path, docs, directory) == 1  # the replaced cache serves the next run quietly
    assert not [r for r in caplog.records if "cache" in r.getMessage() and r.levelno >= logging.INFO]


# -- caching off, and the directory in git ------------------------------------------------------------------------


def test_with_caching_off_nothing_is_kept_and_values_must_still_be_data():
    first = Cache(None)
    first.set("ns", "k", {"a": [1, "b"]}, ttl=60)
    assert first.get("ns", "k") == {"a": [1, "b"]}  # within the run
    first.close()
    assert Cache(None).get("ns", "k") is None  # nothing outlives it
    with pytest.raises(TypeError):
        Cache(None).set("ns", "k", object(), ttl=60)  # the same rule as with a directory: inert data only


def test_a_new_cache_directory_ignores_itself_in_git(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    docs = _docs(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert _check(tmp_path, docs, tmp_path / ".linkfix-cache") == 1
    assert (tmp_path / ".linkfix-cache" / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert ".linkfix-cache" not in status.stdout
    assert "docs/index.md" in status.stdout  # the control: untracked files are listed


def test_an_existing_directory_gets_no_gitignore(tmp_path):
    directory = tmp_path / "mine"
    directory.mkdir()
    with Cache(directory) as cache:
        cache.set("ns", "k", 1, ttl=60)
    assert not (directory / ".gitignore").exists()


# -- where the cache is: a repository's config keeps it inside the project ---------------------------------


def _repository_whose_config_points_out(tmp_path: Path, setting: str) -> tuple[Path, Path]:
    """A git work tree whose linkfix.yml names `setting`, with `link` a symlink to a directory
    outside it (issue 27, finding 13: `cache_dir: link/sub` wrote the cache out there; the rule,
    config/trust.py: a directory a config file names stays inside that file's directory)."""
    outside, repository = tmp_path / "outside", tmp_path / "repository"
    outside.mkdir()
    (repository / ".git").mkdir(parents=True)
    (repository / "link").symlink_to(outside)
    _docs(repository)
    (repository / "linkfix.yml").write_text(setting + "\n", encoding="utf-8")
    return repository, outside


@pytest.mark.parametrize("setting", ["cache_dir: link/sub", "cache_dir: ../outside/cache", "cache_dir: /tmp/linkfix-cache-of-a-repository"])
@pytest.mark.parametrize("command", [["check", "docs"], ["cache", "stats"], ["fix", "docs", "--dry-run"]])
def test_a_cache_dir_from_the_repository_that_leads_outside_is_refused(tmp_path, monkeypatch, capsys, setting, command):
    repository, outside = _repository_whose_config_points_out(tmp_path, setting)
    monkeypatch.chdir(repository)
    assert main(command) == 2
    assert "linkfix.yml: 'cache_dir' decides that files are written outside the project" in capsys.readouterr().err
    assert not list(outside.iterdir()) and not Path("/tmp/linkfix-cache-of-a-repository").exists()


def test_the_runner_may_put_the_cache_anywhere(tmp_path, monkeypatch):
    """The control: the same path given on the command line is the runner's choice, and used."""
    repository, outside = _repository_whose_config_points_out(tmp_path, "max_retries: 1")
    monkeypatch.chdir(repository)
    assert main(["check", "docs", "--cache-dir", "link/sub", "-q"]) == 1  # docs/index.md links missing.md
    assert (outside / "sub" / "cache.db").is_file()


def test_a_root_dir_from_the_repository_that_leads_outside_is_refused(tmp_path, monkeypatch, capsys):
    repository, _ = _repository_whose_config_points_out(tmp_path, "root_dir: link")
    monkeypatch.chdir(repository)
    assert main(["check", "--offline", "docs"]) == 2
    assert "linkfix.yml: 'root_dir' decides that files outside the project are read" in capsys.readouterr().err
