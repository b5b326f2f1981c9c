"""The runner's extraction stage: one process or a worker pool, same documents."""

import shutil
from pathlib import Path

from linkfix import runner
from linkfix.config import Config
from linkfix.sources import collect

SITES = Path(__file__).parent.parent / "fixtures" / "sites"


def test_worker_pool_extracts_the_same_documents_as_one_process(tmp_path, monkeypatch):
    shutil.copytree(SITES, tmp_path / "sites")
    (tmp_path / "sites" / "site" / "binary.html").write_bytes(b"\0\0\0")
    project = collect([str(tmp_path / "sites")], Config())
    monkeypatch.setattr(runner, "_PARALLEL_BYTES", 10**12)
    alone, alone_errors = runner.extract_project(project, want_text=True)
    monkeypatch.setattr(runner, "_PARALLEL_BYTES", 0)
    monkeypatch.setattr(runner.os, "cpu_count", lambda: 2)
    pooled, pooled_errors = runner.extract_project(project, want_text=True)
    assert pooled == alone
    assert pooled_errors == alone_errors and any("binary.html: binary file" in e for e in pooled_errors)
    assert len(alone) == len(project.files) - 1
