"""cache: keys, TTL per status class, history across runs, persistence."""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import replace

import pytest

from linkfix.model import CheckResult, Redirect, Status
from linkfix.store.cache import BROKEN_TTL, Cache, History, result_ttl
from linkfix.urls import normalise_url


@pytest.fixture
def clock(monkeypatch):
    """Wall-clock time as the cache and diskcache read it (time.time), moved on by the test:
    an expiry is tested in what the code compares, not in a sleep a busy machine stretches
    past a short TTL before the first read."""
    now = [time.time()]
    monkeypatch.setattr(time, "time", lambda: now[0])

    def advance(seconds: float) -> None:
        now[0] += seconds

    return advance


def _result(url: str, status: Status, **kw) -> CheckResult:
    return CheckResult(url=url, status=status, checked_at=time.time(), **kw)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("HTTP://Example.COM/a", "http://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com/a#frag", "http://example.com/a"),
        ("http://example.com/%7euser", "http://example.com/~user"),
        ("http://example.com/a%2fb", "http://example.com/a%2Fb"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com/?q=%3a", "http://example.com/?q=%3A"),
    ],
)
def test_equivalent_urls_share_a_key(a, b):
    assert normalise_url(a) == normalise_url(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("http://example.com/a", "https://example.com/a"),
        ("http://example.com:8080/a", "http://example.com/a"),
        ("http://example.com/A", "http://example.com/a"),  # paths are case-sensitive
        ("http://example.com/a?x=1", "http://example.com/a?x=2"),
    ],
)
def test_different_urls_keep_different_keys(a, b):
    assert normalise_url(a) != normalise_url(b)


def test_malformed_urls_do_not_crash_the_key():
    assert normalise_url("http://[::1") == "http://[::1"
    assert normalise_url("http://example.com:99999/") == "http://example.com:99999/"


def test_ttl_per_status_class():
    day = 86400.0
    assert result_ttl(Status.OK, day) == day
    assert 0 < result_ttl(Status.REDIRECTED, day) < day
    assert result_ttl(Status.BROKEN, day) == BROKEN_TTL
    assert result_ttl(Status.BROKEN, 60) == 60  # never longer than max_cache_age
    assert result_ttl(Status.BLOCKED, day) == BROKEN_TTL  # a bot wall is asked again within hours, not every run
    for status in (Status.TIMEOUT, Status.ERROR, Status.EXCLUDED, Status.UNSUPPORTED):
        assert result_ttl(status, day) == 0


def test_results_round_trip_through_disk(tmp_path):
    url = "https://Example.com/page#x"
    hop = Redirect(url="https://example.com/old", status=301, location="https://example.com/page")
    original = _result(url, Status.REDIRECTED, reason="permanent", redirects=(hop,), final_url="https://example.com/page", permanent=True, http_status=200)
    with Cache(tmp_path / "c") as cache:
        cache.put_result(url, original)
    with Cache(tmp_path / "c") as cache:
        got = cache.get_result("https://example.com/page")
    assert got is not None and got.from_cache
    assert got.redirects == (hop,)
    assert (got.status, got.permanent, got.final_url, got.http_status) == (Status.REDIRECTED, True, original.final_url, 200)


def test_transient_results_are_not_reused_but_remembered(tmp_path):
    with Cache(tmp_path / "c") as cache:
        for status in (Status.TIMEOUT, Status.ERROR):
            cache.put_result(f"https://x.org/{status.value}", _result("u", status, reason="503"))
    with Cache(tmp_path / "c") as cache:
        for status in (Status.TIMEOUT, Status.ERROR):
            url = f"https://x.org/{status.value}"
            assert cache.get_result(url) is None  # never answered from the cache ...
            last = cache.last_result(url)  # ... but the next run knows it failed last time
            assert last is not None and last.status is status and last.reason == "503"
        assert cache.last_result("https://x.org/never-seen") is None


def test_a_stale_result_is_still_the_last_result(tmp_path, clock):
    cache = Cache(tmp_path / "c", max_age=60)
    cache.put_result("https://x.org/a", _result("https://x.org/a", Status.OK))
    cache.close()
    clock(120)
    with Cache(tmp_path / "c", max_age=60) as cache:
        assert cache.get_result("https://x.org/a") is None
        assert cache.last_result("https://x.org/a").status is Status.OK


def test_expired_results_are_misses(tmp_path, clock):
    cache = Cache(tmp_path / "c", max_age=60)
    cache.put_result("https://x.org/a", _result("https://x.org/a", Status.OK))
    cache.flush()
    assert cache.get_result("https://x.org/a") is not None
    clock(120)
    assert cache.get_result("https://x.org/a") is None
    cache.close()


def test_history_counts_each_run_once_and_resets_on_ok(tmp_path):
    url = "https://x.org/gone"
    broken = _result(url, Status.BROKEN, reason="404")
    first = Cache(tmp_path / "c", run_id="run-1")
    first.put_result(url, broken)
    first.put_result(url, broken)  # the same run again: still one
    assert first.history(url).broken_runs == 1
    started = first.history(url).first_broken
    first.close()

    second = Cache(tmp_path / "c", run_id="run-2")
    second.put_result(url, _result(url, Status.BROKEN, reason="404"))
    history = second.history(url)
    assert history.broken_runs == 2
    assert history.first_broken == started
    assert history.last_broken >= started
    second.close()

    third = Cache(tmp_path / "c", run_id="run-3")
    third.put_result(url, _result(url, Status.BLOCKED))  # says nothing either way
    assert third.history(url).broken_runs == 2
    third.put_result(url, _result(url, Status.OK))
    assert third.history(url) == History()
    third.close()


def test_cached_verdict_does_not_count_as_a_new_broken_run():
    cache = Cache(None, run_id="a")
    url = "https://x.org/gone"
    cache.put_result(url, _result(url, Status.BROKEN))
    cache.run_id = "b"
    cache.put_result(url, cache.get_result(url))
    assert cache.history(url).broken_runs == 1


def test_namespaced_values_and_ttl(tmp_path):
    with Cache(tmp_path / "c") as cache:
        cache.set("archive", "https://x.org/a", {"url": "https://web.archive.org/x"}, ttl=3600)
        cache.set("forever", "k", [1, 2], ttl=math.inf)
        cache.set("never", "k", "v", ttl=0)
    with Cache(tmp_path / "c") as cache:
        assert cache.get("archive", "https://x.org/a") == {"url": "https://web.archive.org/x"}
        assert cache.get("forever", "k") == [1, 2]
        assert cache.get("never", "k") is None
        assert cache.get("archive", "https://x.org/other") is None


def test_stats_and_clear(tmp_path):
    cache = Cache(tmp_path / "c")
    cache.put_result("https://x.org/a", _result("https://x.org/a", Status.OK))
    cache.put_result("https://x.org/b", _result("https://x.org/b", Status.BROKEN))
    cache.set("ns", "k", 1, ttl=60)
    stats = cache.stats()
    assert stats["results"] == 2
    assert stats["results_ok"] == 1 and stats["results_broken"] == 1
    assert stats["history"] == 1
    assert stats["other"] == 1
    cache.clear()
    assert cache.stats()["entries"] == 0
    assert cache.get_result("https://x.org/a") is None
    cache.close()


def _write_raw_records(directory, rows):
    """Records (url, record text) straight into the store, as another version or a damaged
    file might hold them."""
    from linkfix.store.cache import RECORDS
    from linkfix.store.disk import open_store

    store = open_store(directory)
    for url, text in rows:
        store.set(RECORDS + normalise_url(url), text, expire=60)
    store.close()


def _stored_record(directory, url):
    """The record of `url` as the store holds it (JSON data)."""
    from linkfix.store.cache import RECORDS
    from linkfix.store.disk import open_store

    store = open_store(directory)
    try:
        return json.loads(store.get(RECORDS + normalise_url(url)))
    finally:
        store.close()


@pytest.fixture(params=["whole table", "query per lookup"])
def table_reading(request, monkeypatch):
    """Both ways the records are read: all at the first lookup (a project's cache), or a
    query per lookup (too many to hold)."""
    if request.param == "query per lookup":
        monkeypatch.setattr("linkfix.store.cache.WHOLE_READ_RECORDS", 0)
    return request.param


def test_entries_from_an_older_version_are_misses(tmp_path, table_reading):
    fresh = time.time() + 60
    _write_raw_records(tmp_path / "c", [
        ("https://x.org/a", json.dumps({"result": {"status": "no-such-status", "url": "x"}, "fresh_until": fresh})),
        ("https://x.org/b", json.dumps("garbage")),
        ("https://x.org/c", json.dumps({"result": {"url": "https://x.org/c", "status": "ok", "field_from_the_future": 1, "checked_at": time.time()}, "fresh_until": fresh, "history": {"x": 1}})),
        ("https://x.org/d", "{not json"),
    ])
    with Cache(tmp_path / "c") as cache:
        assert cache.get_result("https://x.org/a") is None
        assert cache.get_result("https://x.org/b") is None
        assert cache.history("https://x.org/b") == History()
        assert cache.get_result("https://x.org/c").status is Status.OK
        assert cache.history("https://x.org/c") == History()
        assert cache.get_result("https://x.org/d") is None
        cache.put_result("https://x.org/d", _result("https://x.org/d", Status.OK))  # a damaged record is replaced
    with Cache(tmp_path / "c") as cache:
        assert cache.get_result("https://x.org/d").status is Status.OK


def test_preload_reads_many_records_at_once_with_the_same_answers(tmp_path, table_reading):
    urls = [f"https://x.org/{i}" for i in range(1200)]  # more than one SELECT's worth
    with Cache(tmp_path / "c") as cache:
        for i, url in enumerate(urls):
            cache.put_result(url, _result(url, Status.OK if i % 2 else Status.BROKEN))
    with Cache(tmp_path / "c") as one_by_one, Cache(tmp_path / "c") as preloaded:
        preloaded.preload([*urls, "https://x.org/never-seen"])
        for url in [*urls, "https://x.org/never-seen"]:
            a, b = one_by_one.get_result(url), preloaded.get_result(url)
            assert (a and a.status) == (b and b.status)
            assert one_by_one.history(url) == preloaded.history(url)


def test_bulk_reads_agree_with_get_and_leave_out_expired_rows(tmp_path):
    from linkfix.store.disk import open_store

    store = open_store(tmp_path / "c")
    store.set("url:a", '{"n":1}', expire=60)
    store.set("url:gone", '{"n":0}', expire=-1)
    store.set("url;after", '{"n":9}', expire=60)  # just past the prefix
    store.set("other:a", '{"n":5}', expire=60)
    assert store.texts_in("url:") == {"url:a": '{"n":1}'}
    assert store.texts_among(["url:a", "url:gone", "url:never", "other:a"]) == {"url:a": '{"n":1}', "other:a": '{"n":5}'}
    assert {key: store.get(key) for key in ("url:a", "url:gone", "other:a")} == {"url:a": '{"n":1}', "url:gone": None, "other:a": '{"n":5}'}
    store.set_many([("url:a", '{"n":2}', 60), ("url:b", '{"n":3}', 60), ("forever:k", "[]", None)])  # one overwritten
    assert store.texts_in("url:") == {"url:a": '{"n":2}', "url:b": '{"n":3}'}
    assert (store.get("url:b"), store.get("forever:k", expire_time=True)) == ('{"n":3}', ("[]", None))  # diskcache reads its rows
    assert len(store) == 6  # diskcache's own count of rows, kept by its triggers
    # its consistency check (counts, sizes, files) finds nothing but our .gitignore
    assert [str(w.message) for w in store.check()] == [f"unknown file: {tmp_path / 'c' / '.gitignore'}"]
    store.clear()
    assert store.texts_in("url:") == {}
    store.close()


def test_an_unusable_cache_directory_is_named_in_one_warning_and_not_used(tmp_path, caplog):
    # It used to be a ConfigError (exit 2 at every run until the directory was deleted by hand).
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with caplog.at_level(logging.WARNING):
        cache = Cache(blocker / "cache")
        assert cache.problem
        cache.put_result("https://x.org/a", _result("https://x.org/a", Status.OK))
        assert cache.get_result("https://x.org/a").status is Status.OK  # still this run's memory
        cache.close()
    assert [r.levelno for r in caplog.records if str(blocker / "cache") in r.getMessage()] == [logging.WARNING]


def test_cache_command_stats_and_clear(tmp_path, monkeypatch, capsys):
    from linkfix.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["cache", "stats"]) == 0
    assert "no cache" in capsys.readouterr().out
    assert not (tmp_path / ".linkfix-cache").exists()  # looking does not create one

    with Cache(tmp_path / ".linkfix-cache") as cache:
        cache.put_result("https://x.org/a", _result("https://x.org/a", Status.OK))
        cache.put_result("https://x.org/b", _result("https://x.org/b", Status.BROKEN))
    assert main(["cache", "stats"]) == 0
    out = capsys.readouterr().out
    assert "results_ok" in out and "results_broken" in out

    assert main(["cache", "clear"]) == 0
    assert "cleared" in capsys.readouterr().out
    with Cache(tmp_path / ".linkfix-cache") as cache:
        assert cache.get_result("https://x.org/a") is None


def test_cache_command_honours_cache_dir(tmp_path, monkeypatch, capsys):
    from linkfix.cli import main

    monkeypatch.chdir(tmp_path)
    with Cache(tmp_path / "elsewhere") as cache:
        cache.put_result("https://x.org/a", _result("https://x.org/a", Status.OK))
    assert main(["cache", "stats", "--cache-dir", "elsewhere"]) == 0
    assert "results_ok" in capsys.readouterr().out


def test_a_result_read_back_is_marked_cached_but_stored_as_fresh(tmp_path):
    url = "https://x.org/a"
    with Cache(tmp_path / "c") as cache:
        cache.put_result(url, _result(url, Status.OK))
        again = cache.get_result(url)
        assert again is not None and again.from_cache
        cache.put_result(url, again)  # writing a cached verdict back does not store the flag
    with Cache(tmp_path / "c") as cache:
        assert cache.get_result(url).from_cache  # marked on reading ...
    assert "from_cache" not in _stored_record(tmp_path / "c", url)["result"]  # ... not stored


def test_stored_records_leave_out_defaults_and_read_back_whole(tmp_path):
    plain, moved = "https://x.org/plain", "https://x.org/moved"
    checked = float(int(time.time()))  # a result is reused only within the run's max_age of its check
    chain = (Redirect(url=moved, status=301, location="https://x.org/new"),)
    full = CheckResult(url=moved, status=Status.REDIRECTED, reason="301", detail="moved", http_status=301,
                       redirects=chain, final_url="https://x.org/new", permanent=True, checked_at=checked)
    with Cache(tmp_path / "c") as cache:
        cache.put_result(plain, CheckResult(url=plain, status=Status.OK, http_status=200, checked_at=checked))
        cache.put_result(moved, full)
    stored = _stored_record(tmp_path / "c", plain)
    assert stored == {"result": {"url": plain, "status": "ok", "http_status": 200, "checked_at": checked}, "fresh_until": stored["fresh_until"]}
    with Cache(tmp_path / "c") as cache:
        assert cache.get_result(moved) == replace(full, from_cache=True)


def test_records_in_the_older_full_layout_still_read(tmp_path):
    url, checked = "https://x.org/a", float(int(time.time()))
    old = {"result": {"url": url, "status": "broken", "reason": "404", "detail": "", "http_status": 404, "redirects": [],
                      "final_url": "", "permanent": False, "checked_at": checked, "from_cache": False},
           "fresh_until": time.time() + 60, "history": {"first_broken": 5.0, "last_broken": 5.0, "broken_runs": 1, "last_run": "r1"}}
    _write_raw_records(tmp_path / "c", [(url, json.dumps(old))])
    with Cache(tmp_path / "c") as cache:
        assert cache.get_result(url) == CheckResult(url=url, status=Status.BROKEN, reason="404", http_status=404, checked_at=checked, from_cache=True)
        assert cache.history(url).broken_runs == 1


def test_a_stored_reason_reads_back_as_its_type_and_an_unknown_one_is_checked_again(tmp_path):
    from linkfix.model import HttpReason, Reason

    fresh = time.time() + 60
    rows = [(f"https://x.org/{name}", json.dumps({"result": {"url": f"https://x.org/{name}", "status": "broken", "reason": reason},
                                                   "fresh_until": fresh}))
            for name, reason in [("gone", "404"), ("dns", "dns"), ("later", "a-reason-of-a-later-version!")]]
    _write_raw_records(tmp_path / "c", rows)
    with Cache(tmp_path / "c") as cache:
        gone, dns = cache.last_result("https://x.org/gone"), cache.last_result("https://x.org/dns")
        assert gone is not None and type(gone.reason) is HttpReason and gone.reason == "404"
        assert dns is not None and dns.reason is Reason.DNS
        assert cache.last_result("https://x.org/later") is None


def test_expired_entries_are_dropped_on_close(tmp_path, clock):
    import diskcache

    cache = Cache(tmp_path / "c", max_age=60)
    cache.put_result("https://x.org/a", _result("https://x.org/a", Status.OK))
    cache.set("probe", "k", 1, ttl=60)
    cache.set("keep", "k", 1, ttl=3600)
    cache.flush()
    clock(120)
    cache.close()
    with diskcache.Cache(str(tmp_path / "c")) as store:
        assert sorted(store.iterkeys()) == ["keep:k", "url:https://x.org/a"]  # the expired fact is gone
    with Cache(tmp_path / "c", max_age=60) as cache:  # the URL's record outlives its freshness
        assert cache.get_result("https://x.org/a") is None and cache.last_result("https://x.org/a") is not None


def test_values_come_back_as_json_data_lone_surrogates_included(tmp_path):
    # Text read with surrogateescape keeps undecodable bytes as lone surrogates, which UTF-8 cannot hold.
    value = {"text": "caf\udce9 é \U0001f600", "pair": (1, 2), "n": None, "f": 1.5, "inf": math.inf}
    with Cache(tmp_path / "c") as cache:
        cache.set("ns", "k", value, ttl=60)
        assert cache.get("ns", "k") == {**value, "pair": [1, 2]}  # the same data before it is stored ...
    with Cache(tmp_path / "c") as cache:
        assert cache.get("ns", "k") == {**value, "pair": [1, 2]}  # ... and after


def test_cache_stats_on_an_unusable_cache_names_it_and_exits_2(tmp_path, monkeypatch, capsys):
    from linkfix.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".linkfix-cache").mkdir()
    (tmp_path / ".linkfix-cache" / "cache.db").write_bytes(b"not a database" * 100)
    assert main(["cache", "stats"]) == 2
    assert ".linkfix-cache" in capsys.readouterr().err
    assert main(["cache", "clear"]) == 0
    assert main(["cache", "stats"]) == 0
    assert "entries" in capsys.readouterr().out
