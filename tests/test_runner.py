"""The runner's extraction stage."""

import shutil
from pathlib import Path

from linkfix import runner
from linkfix.config import Config
from linkfix.sources import collect

SITES = Path(__file__).parent.parent / "fixtures" / "sites"


def test_every_readable_file_is_extracted_and_unreadable_ones_are_named(tmp_path):
    shutil.copytree(SITES, tmp_path / "sites")
    (tmp_path / "sites" / "site" / "binary.html").write_bytes(b"\0\0\0")
    project = collect([str(tmp_path / "sites")], Config())
    documents, errors = runner.extract_project(project, want_text=True)
    assert len(documents) == len(project.files) - 1
    assert [e for e in errors if "binary.html" in e] == [f"{runner._display_path(tmp_path / 'sites' / 'site' / 'binary.html')}: binary file (NUL bytes), not a text document"]
    assert {rel for rel, _ in documents} >= {"docs/index.md", "site/index.html", "site/guide/install.html"}
