"""What the user names is checked: a MkDocs config under any name, a gitignored built site, and
never a silent pass over nothing. Driven through the command line, as a user or CI runs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from trees import write_tree as write

from linkfix.cli import main
from linkfix.config import Config
from linkfix.errors import InputError
from linkfix.inputs.sources import collect


def check(*args: str, out: Path) -> tuple[int, dict]:
    code = main(["check", "--offline", "--no-cache", *args, "--format", "json", "-o", str(out)])
    return code, (json.loads(out.read_text()) if out.exists() else {})


def broken(data: dict) -> list[tuple[str, str]]:
    return sorted((Path(l["file"]).name, l["url"]) for l in data.get("links", []) if l["status"] == "broken")


def git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)


# -- a MkDocs config under any name (textual's mkdocs-offline.yml) ------------------------------------
def test_a_config_not_named_mkdocs_yml_is_read_as_one(tmp_path, monkeypatch):
    write(tmp_path, {
        "common.yml": "site_name: X\nplugins:\n  search: {}\n",
        "site.yml": "INHERIT: common.yml\nuse_directory_urls: false\n",
        "docs/index.md": "# Home\n\n[gone](missing.md) [ok](page.md)\n",
        "docs/page.md": "# Page\n",
    })
    monkeypatch.chdir(tmp_path)
    code, data = check("site.yml", out=tmp_path / "r.json")
    assert code == 1
    assert broken(data) == [("index.md", "missing.md")]
    assert data["files"] == 2


def test_a_yaml_file_that_is_not_a_mkdocs_config_is_refused(tmp_path, monkeypatch):
    write(tmp_path, {"other.yml": "repos: []\n", "docs/index.md": "# x\n"})
    with pytest.raises(InputError, match="not a MkDocs or Zensical config"):
        collect([str(tmp_path / "other.yml")], Config())


# -- explicit inputs are never hidden by .gitignore ---------------------------------------------------
@pytest.fixture
def built_site(tmp_path):
    repo = tmp_path / "repo"
    write(repo, {
        ".gitignore": "site/\n*.pyc\n",
        "site/index.html": '<a href="a/">a</a> <a href="gone/">gone</a>',
        "site/a/index.html": "<h1>A</h1>",
    })
    git_init(repo)
    return repo


def test_a_gitignored_built_site_is_checked(built_site, monkeypatch):
    monkeypatch.chdir(built_site)
    code, data = check("site", out=built_site / "r.json")
    assert code == 1
    assert broken(data) == [("index.html", "gone/")]


def test_a_gitignored_built_site_is_checked_from_inside(built_site, monkeypatch):
    monkeypatch.chdir(built_site / "site")
    code, data = check(".", out=built_site / "r.json")
    assert code == 1
    assert broken(data) == [("index.html", "gone/")]


def test_gitignore_still_applies_inside_a_named_directory(tmp_path):
    write(tmp_path, {".gitignore": "site/\ndrafts/\n", "site/index.html": "x", "site/drafts/d.html": "x"})
    git_init(tmp_path)
    project = collect([str(tmp_path / "site")], Config())
    assert [p.name for p in project.files] == ["index.html"]


# -- a run that reads nothing is an error ------------------------------------------------------------
def test_zero_files_is_exit_2_naming_gitignore(tmp_path, monkeypatch, capsys):
    write(tmp_path, {"site/.gitignore": "*.html\n", "site/index.html": "x", "site/b.html": "y"})
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--offline", "--no-cache", "site"]) == 2
    err = capsys.readouterr().err
    assert "none of the 2 markdown or HTML files were read: all are ignored by .gitignore (use --no-gitignore)" in err


def test_zero_files_is_exit_2_naming_exclude_path(tmp_path, monkeypatch, capsys):
    write(tmp_path, {"docs/a.md": "x"})
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--offline", "--no-cache", "--exclude-path", "a\\.md", "docs"]) == 2
    assert "all match exclude_path" in capsys.readouterr().err


def test_a_directory_without_documents_is_exit_2(tmp_path, monkeypatch, capsys):
    write(tmp_path, {"empty/notes.txt": "x"})
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--offline", "--no-cache", "empty"]) == 2
    assert "no markdown or HTML files to check" in capsys.readouterr().err


def test_files_that_cannot_be_read_are_exit_2(tmp_path, monkeypatch, capsys):
    (tmp_path / "bin.md").write_bytes(b"\0\0binary")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--offline", "--no-cache", "bin.md"]) == 2
    assert "none of the 1 files could be read" in capsys.readouterr().err


# -- a list of files: where root-relative and ../ links resolve -------------------------------------
def test_files_inside_a_mkdocs_docs_dir_are_checked_by_mkdocs_rules(tmp_path):
    write(tmp_path, {
        "mkdocs.yml": "site_name: X\n",
        "docs/index.md": "# Home\n",
        "docs/guide/a.md": "# A\n",
    })
    git_init(tmp_path)
    project = collect([str(tmp_path / "docs" / "guide" / "a.md")], Config())
    assert project.root == (tmp_path / "docs").resolve()
    assert project.mkdocs is not None and project.mkdocs_files is not None
    assert [p.name for p in project.files] == ["a.md"]


def test_files_outside_a_docs_dir_resolve_from_the_git_work_tree(tmp_path):
    write(tmp_path, {"README.md": "x", "docs/guide/a.md": "[up](../../README.md)\n"})
    git_init(tmp_path)
    project = collect([str(tmp_path / "docs" / "guide" / "a.md")], Config())
    assert project.root == tmp_path.resolve()
    assert project.mkdocs is None


def test_files_outside_git_resolve_from_their_common_directory(tmp_path):
    write(tmp_path, {"x/a.md": "x", "x/y/b.md": "y"})
    project = collect([str(tmp_path / "x" / "a.md"), str(tmp_path / "x" / "y" / "b.md")], Config())
    assert project.root == (tmp_path / "x").resolve()


def test_pre_commit_style_file_list_gets_no_false_alarm_on_parent_links(tmp_path, monkeypatch):
    write(tmp_path, {"README.md": "# R\n", "docs/guide/a.md": "[up](../../README.md) [gone](../../nope.md)\n"})
    git_init(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, data = check("docs/guide/a.md", out=tmp_path / "r.json")
    assert code == 1
    assert broken(data) == [("a.md", "../../nope.md")]


# -- which docs files MkDocs publishes -----------------------------------------------------------------
def test_mkdocs_default_and_configured_exclusions_and_theme_dir_are_not_checked(tmp_path):
    write(tmp_path, {
        "mkdocs.yml": "site_name: X\nexclude_docs: |\n  drafts/\ntheme:\n  name: material\n  custom_dir: docs/overrides\n",
        "docs/index.md": "# Home\n",
        "docs/.hidden.md": "[x](nope.md)\n",
        "docs/templates/t.md": "[x](nope.md)\n",
        "docs/drafts/d.md": "[x](nope.md)\n",
        "docs/overrides/partials/p.md": "[x](nope.md)\n",
    })
    project = collect([str(tmp_path / "mkdocs.yml")], Config())
    assert [p.relative_to(tmp_path / "docs").as_posix() for p in project.files] == ["index.md"]


def test_mkdocs_exclude_plugin_globs_and_offline_plugin_from_an_inherited_mapping(tmp_path):
    write(tmp_path, {
        "base.yml": "site_name: X\nplugins:\n  search: {}\n  exclude:\n    glob: ['snippets/*']\n",
        "offline.yml": "INHERIT: base.yml\nplugins:\n  offline: {}\n  exclude:\n    glob: ['blog/*']\n",
        "docs/index.md": "# Home\n",
        "docs/blog/post.md": "# Post\n",
        "docs/snippets/s.md": "# S\n",
    })
    project = collect([str(tmp_path / "offline.yml")], Config())
    assert project.mkdocs is not None
    assert not project.mkdocs.use_directory_urls  # the inherited offline plugin turns them off
    # the child's exclude glob replaces the parent's list (MkDocs merges mappings, not lists)
    assert sorted(p.relative_to(tmp_path / "docs").as_posix() for p in project.files) == ["index.md", "snippets/s.md"]


# -- a built site: its markdown files are assets -------------------------------------------------------
def test_markdown_files_in_a_built_site_are_not_read_as_pages(tmp_path, monkeypatch):
    write(tmp_path, {
        "site/index.html": '<a href="api/index.md#kedro.utils">llms</a> <a href="api/">api</a>',
        "site/api/index.html": "<h1>API</h1>",
        "site/api/index.md": "# kedro.utils\n\n[broken as markdown](nowhere.md)\n",
    })
    monkeypatch.chdir(tmp_path)
    code, data = check("site", out=tmp_path / "r.json")
    assert code == 0, broken(data)
    assert {Path(l["file"]).name for l in data["links"]} == {"index.html"}


def test_a_mkdocs_config_among_other_inputs_is_refused_with_the_reason(tmp_path):
    write(tmp_path, {"mkdocs.yml": "site_name: X\n", "docs/index.md": "# x\n", "other.md": "# y\n"})
    with pytest.raises(InputError, match="checked on its own"):
        collect([str(tmp_path / "mkdocs.yml"), str(tmp_path / "other.md")], Config())
