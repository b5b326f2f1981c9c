"""Paths the build opens from where it runs (issue 44, item 9).

A repository whose Makefile builds with `mkdocs build -f hack/api-docs/mkdocs.yml` from its root
has `docs_dir: ../../docs`, a macros `include_dir` and a snippets `base_path` relative to that
root. Outside a git work tree the run was refused (docs_dir outside the project), and inside one
its includes were read from the config's directory (unverified). The build's directory is where
the build step runs it, or where linkfix runs (as `mkdocs -f` would).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linkfix.cli import main
from linkfix.errors import InputError
from linkfix.mkdocs.config.load import read_config

CONFIG = ("site_name: t\ndocs_dir: ../../docs\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: [snippets]\n")
FILES = {
    "hack/api-docs/mkdocs.yml": CONFIG,
    "docs/index.md": "# Home\n\n--8<-- \"part.md\"\n",
    "snippets/part.md": "[gone](gone.md) and [here](index.md)\n",
}


def repository(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def statuses(root: Path, monkeypatch, cwd: Path) -> tuple[int, dict[str, str]]:
    monkeypatch.chdir(cwd)
    out = root / "r.json"
    code = main(["check", "--offline", "--no-cache", str(root / "hack/api-docs/mkdocs.yml"), "-f", "json", "-o", str(out)])
    return code, {link["url"]: link["status"] for link in json.loads(out.read_text())["links"]}


def test_a_build_step_naming_the_config_says_where_the_build_runs(tmp_path, monkeypatch):
    root = repository(tmp_path / "repo", {**FILES, "Makefile": "docs:\n\tmkdocs build -f hack/api-docs/mkdocs.yml\n"})
    code, found = statuses(root, monkeypatch, cwd=tmp_path)  # run from anywhere: the Makefile says it
    assert code == 1 and found == {"gone.md": "broken", "index.md": "ok"}


def test_running_from_the_directory_the_build_runs_from(tmp_path, monkeypatch):
    root = repository(tmp_path / "repo", FILES)
    code, found = statuses(root, monkeypatch, cwd=root)
    assert code == 1 and found == {"gone.md": "broken", "index.md": "ok"}


def test_otherwise_the_refusal_says_how_to_run_it(tmp_path, monkeypatch):
    root = repository(tmp_path / "repo", FILES)
    monkeypatch.chdir(root / "hack" / "api-docs")
    with pytest.raises(InputError, match="outside the project") as refused:
        read_config(root / "hack/api-docs/mkdocs.yml")
    assert "run linkfix there" in str(refused.value)
