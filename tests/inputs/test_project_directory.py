"""`linkfix check .` in a MkDocs-family project's root (issue 44.3): the directory holds the
project's config, so it is checked as that project — its docs_dir by its generator's rules, as
`linkfix check mkdocs.yml` would — and what is left out (the built site_dir, markdown outside
docs_dir) is said, not walked as plain files beside it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from linkfix.cli import main
from linkfix.config import Config
from linkfix.errors import InputError
from linkfix.inputs.sources import collect

# A built site's 404 page links root-relative under the site's path: from the project's root
# those are not files, which is what the walk of `.` called broken.
SITE_404 = '<html><body><a href="/proj/">home</a> <a href="/proj/guide/">guide</a></body></html>'


def project_root(base: Path, config_name: str = "mkdocs.yml", config: str = "site_name: X\nsite_url: https://x.example.org/proj/\n") -> Path:
    files = {
        config_name: config,
        "docs/index.md": "# Home\n\n[guide](guide.md) [gone](gone.md)\n",
        "docs/guide.md": "# Guide\n\n[home](index.md#home)\n",
        "README.md": "# Readme\n\n[docs](docs/index.md)\n",
        "site/index.html": '<html><body><a href="guide/">guide</a></body></html>',
        "site/guide/index.html": '<html><body><a href="../">home</a></body></html>',
        "site/404.html": SITE_404,
    }
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base


def test_the_root_of_a_mkdocs_project_is_checked_as_that_project(tmp_path, monkeypatch, caplog):
    project_root(tmp_path)
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.WARNING):
        code = main(["check", "--offline", "--no-cache", ".", "-f", "json", "-o", "result.json"])
    data = json.loads(Path("result.json").read_text())
    assert code == 1
    assert sorted((l["file"], l["url"]) for l in data["links"] if l["status"] == "broken") == [("docs/index.md", "gone.md")]
    assert not any(l["file"].startswith("site/") for l in data["links"])
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "checked as that MkDocs project" in said and "mkdocs.yml" in said
    assert "site/" in said and "linkfix check site" in said  # the build, and how to check it
    assert "README.md" in said  # markdown outside docs_dir: named, not silently dropped


def test_a_project_directory_is_read_as_its_config_is(tmp_path):
    project_root(tmp_path)
    project = collect([str(tmp_path)], Config())
    assert project.mkdocs is not None and project.mkdocs_files is not None
    assert project.root == (tmp_path / "docs").resolve()
    assert sorted(p.name for p in project.files) == ["guide.md", "index.md"]


@pytest.mark.parametrize("name, config", [
    ("zensical.toml", '[project]\nsite_name = "X"\nsite_url = "https://x.example.org/proj/"\n'),
    ("properdocs.yml", "site_name: X\n"),
])
def test_every_generator_of_the_family_counts(tmp_path, name, config):
    project_root(tmp_path, name, config)
    project = collect([str(tmp_path)], Config())
    assert project.mkdocs is not None and project.mkdocs.config_file.name == name


def test_a_site_dir_the_config_names_is_the_one_left_out(tmp_path, monkeypatch, caplog):
    project_root(tmp_path, config="site_name: X\nsite_dir: public\n")
    (tmp_path / "site").rename(tmp_path / "public")
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.WARNING):
        collect(["."], Config())
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "public/" in said and "linkfix check public" in said


def test_a_broken_config_in_the_directory_is_an_error_that_says_how_else(tmp_path, monkeypatch):
    project_root(tmp_path, config="site_name: X\nnav: [a: b: c]\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match=r"--root-dir"):
        collect(["."], Config())


def test_the_project_directory_s_linkfix_yml_is_read_as_for_its_config(tmp_path, monkeypatch, capsys):
    """As `linkfix check proj/mkdocs.yml` reads proj/linkfix.yml, so does `linkfix check proj`."""
    project_root(tmp_path / "proj")
    (tmp_path / "proj" / "linkfix.yml").write_text("max_concurrency: 0\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--offline", "--no-cache", "proj"]) == 2
    assert "linkfix.yml: max_concurrency" in capsys.readouterr().err
