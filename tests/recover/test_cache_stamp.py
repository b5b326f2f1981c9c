"""The benchmark's kept cache is tied to the data set it was filled from (issue 25: a cache filled
before the set was mined again made 18 sites' figures wrong for a day)."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from realbench.cache_stamp import STAMP, StaleCache, claim, fingerprint


def dataset(root: Path, title: str) -> Path:
    (root / "sites" / "docs.x.org").mkdir(parents=True)
    (root / "cases.jsonl").write_text(json.dumps({"id": "moved-1", "site": "docs.x.org"}) + "\n", encoding="utf-8")
    (root / "sites" / "docs.x.org" / "pages.jsonl").write_text(
        json.dumps({"url": "https://docs.x.org/user/a.html", "title": title, "markdown": "# " + title}) + "\n", encoding="utf-8")
    return root


def test_a_new_cache_is_stamped_and_the_same_data_set_may_use_it_again(tmp_path):
    data = dataset(tmp_path / "set", "Filter Scheduler")
    cache = tmp_path / "cache"
    claim(cache, [data])
    assert (cache / STAMP).read_text(encoding="utf-8").strip() == fingerprint([data])
    (cache / "answers.sqlite").write_bytes(b"kept")
    claim(cache, [data])  # the same pages: no complaint


def test_a_cache_filled_from_another_version_of_the_pages_is_refused(tmp_path):
    data = dataset(tmp_path / "set", "Filter Scheduler")
    cache = tmp_path / "cache"
    claim(cache, [data])
    (data / "sites" / "docs.x.org" / "pages.jsonl").write_text(
        json.dumps({"url": "https://docs.x.org/admin/scheduling.html", "title": "Scheduling"}) + "\n", encoding="utf-8")
    with pytest.raises(StaleCache, match="another version"):
        claim(cache, [data])


def test_a_filled_cache_without_a_stamp_is_refused(tmp_path):
    data = dataset(tmp_path / "set", "Filter Scheduler")
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "answers.sqlite").write_bytes(b"of unknown origin")
    with pytest.raises(StaleCache, match="unknown version"):
        claim(cache, [data])
    assert not (cache / STAMP).exists()


def _load_script():
    spec = importlib.util.spec_from_file_location("recovery_real", Path(__file__).resolve().parents[2] / "benchmarks" / "recovery_real.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_stops_before_building_the_web_on_a_stale_cache(tmp_path, monkeypatch, capsys):
    script = sys.modules.get("recovery_real") or _load_script()
    data = dataset(tmp_path / "set", "Filter Scheduler")
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / STAMP).write_text("0" * 64 + "\n", encoding="utf-8")
    monkeypatch.setenv("LINKFIX_RECOVERY_DEV", str(data))
    assert script.main(["--mode", "per-case", "--cache", str(cache)]) == 2
    assert "another version of the development set" in capsys.readouterr().err
