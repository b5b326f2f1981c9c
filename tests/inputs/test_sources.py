import os

import pytest

from linkfix.config import Config
from linkfix.errors import InputError
from linkfix.inputs.sources import collect
from linkfix.mkdocs.config.load import read_config


def names(project, base):
    return sorted(p.relative_to(base).as_posix() for p in project.files)


def test_walk_skips_tool_dirs_virtualenvs_gitignore_and_exclude_path(tmp_path):
    for rel in ["a.md", "b/c.md", "node_modules/x.md", ".git/y.md", "env/z.md", "build/out.md", "skip/me.md", "img.png"]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# t\n")
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (tmp_path / ".gitignore").write_text("build/\n")
    project = collect([str(tmp_path)], Config(exclude_path=["skip/"]))
    assert names(project, tmp_path) == ["a.md", "b/c.md"]
    assert project.markdown
    assert project.root == tmp_path.resolve()


def test_gitignore_can_be_turned_off(tmp_path):
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.md").write_text("x")
    (tmp_path / ".gitignore").write_text("build/\n")
    project = collect([str(tmp_path)], Config(gitignore=False))
    assert names(project, tmp_path) == ["build/out.md"]


def test_symlink_loop_is_walked_once(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.md").write_text("x")
    os.symlink(tmp_path / "d", tmp_path / "d" / "loop")
    project = collect([str(tmp_path)], Config())
    assert names(project, tmp_path) == ["d/a.md"]


def test_file_list_root_is_their_common_directory(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "a.md").write_text("x")
    (tmp_path / "b.md").write_text("x")
    project = collect([str(tmp_path / "x" / "a.md"), str(tmp_path / "b.md")], Config())
    assert project.root == tmp_path.resolve()
    assert "x/a.md" in project.site_files


def test_missing_input_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="no such file or directory"):
        collect([str(tmp_path / "nope")], Config())


def test_mkdocs_project_reads_settings_and_tolerates_python_tags(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: X\nsite_url: https://example.org/proj/\nuse_directory_urls: false\n"
        "nav:\n  - Home: index.md\n  - Ext: https://example.com/\n"
        "markdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "plugins:\n  - search\n  - redirects:\n      redirect_maps:\n        old.md: index.md\n"
    )
    mk = read_config(tmp_path / "mkdocs.yml")
    assert mk.site_url == "https://example.org/proj/"
    assert mk.use_directory_urls is False
    assert mk.nav_files == frozenset({"index.md"})
    assert mk.redirects == {"old.md": "index.md"}
    project = collect([str(tmp_path / "mkdocs.yml")], Config())
    assert names(project, tmp_path) == ["docs/index.md"]
    assert project.root == (tmp_path / "docs").resolve()


def test_mkdocs_with_missing_docs_dir_names_it(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: X\ndocs_dir: nowhere\n")
    with pytest.raises(InputError, match="docs_dir 'nowhere' is not a directory"):
        read_config(tmp_path / "mkdocs.yml")


def test_mkdocs_invalid_yaml_is_reported(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: [\n")
    with pytest.raises(InputError, match="not valid YAML"):
        read_config(tmp_path / "mkdocs.yml")


def test_a_sphinx_tree_beside_a_readme_is_said_not_read(tmp_path, monkeypatch, caplog):
    """Issue 22: a tree of .rst pages with a README.md passed with nothing said."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.md").write_text("# Project\n")
    (tmp_path / "docs").mkdir()
    for name in ("index", "usage", "api"):
        (tmp_path / "docs" / f"{name}.rst").write_text("Title\n=====\n")
    (tmp_path / "docs" / "conf.py").write_text("project = 'x'\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "vendored.rst").write_text("x\n")  # never documentation
    with caplog.at_level("WARNING"):
        project = collect(["."], Config())
    assert [p.name for p in project.files] == ["README.md"]
    assert ("3 reStructuredText pages under ./ were not read (linkfix reads markdown and HTML): a Sphinx project; "
            "check its built HTML instead: sphinx-build docs docs/_build/html && linkfix check docs/_build/html") in caplog.text


def test_a_tree_of_rst_pages_only_says_what_to_check_instead(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.rst").write_text("Title\n=====\n")
    with pytest.raises(InputError, match=r"no markdown or HTML files to check .*1 reStructuredText page under docs/ was not read"):
        collect(["docs"], Config())


def test_a_markdown_tree_says_nothing_about_rst(tmp_path, caplog):
    (tmp_path / "index.md").write_text("# Home\n")
    with caplog.at_level("WARNING"):
        collect([str(tmp_path)], Config())
    assert "reStructuredText" not in caplog.text
