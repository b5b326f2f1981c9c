"""What a MkDocs config may make a source check import or call (linkfix.mkdocs.extensions.imports),
and which files its includes may read (snippet_reads), without `trust_project_code`."""

from __future__ import annotations

import functools
import sys

import pytest

from linkfix.mkdocs.extensions import imports
from linkfix.mkdocs.extensions.snippet_reads import allowed_bases, read_refusal


@pytest.fixture
def working_tree(tmp_path, monkeypatch):
    """A directory first on sys.path, as `python -m linkfix` puts the working directory."""
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [name for name in sys.modules if name.split(".")[0] in ("treemod", "treepkg")]:
        del sys.modules[name]


def test_installed_modules_are_imported(working_tree):
    assert imports.module_refusal("markdown.extensions.toc") is None
    assert imports.import_name("markdown.extensions.toc.slugify_unicode", trusted=False).__name__ == "slugify_unicode"


def test_a_module_of_the_working_tree_is_refused_and_not_run(working_tree):
    (working_tree / "treemod.py").write_text("raise SystemExit('ran')\nvalue = 1\n")
    refusal = imports.module_refusal("treemod")
    assert refusal is not None and f"it is at {working_tree / 'treemod.py'}" in refusal and "--trust-project-code" in refusal
    with pytest.raises(imports.Refused):
        imports.import_name("treemod.value", trusted=False)
    assert "treemod" not in sys.modules


def test_each_package_on_the_way_counts(working_tree):
    package = working_tree / "treepkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("raise SystemExit('ran')\n")
    (package / "sub" / "__init__.py").write_text("")
    assert "treepkg is not from an installed distribution" in (imports.module_refusal("treepkg.sub") or "")
    assert "treepkg" not in sys.modules


def test_a_namespace_package_with_a_part_in_the_working_tree_is_refused(working_tree):
    (working_tree / "treepkg").mkdir()  # no __init__.py: a namespace package
    (working_tree / "treepkg" / "mod.py").write_text("raise SystemExit('ran')\n")
    assert "treepkg is not from an installed distribution" in (imports.module_refusal("treepkg.mod") or "")


def test_the_standard_library_is_no_distribution():
    assert "not from an installed distribution" in (imports.module_refusal("subprocess") or "")
    assert imports.module_refusal("os") is not None  # frozen from 3.11 on (built into Python), else in the stdlib
    assert "built into Python" in (imports.module_refusal("sys") or "")


def test_a_module_that_does_not_exist_is_left_to_its_import():
    assert imports.module_refusal("no_such_module_here") is None
    with pytest.raises(ImportError):
        imports.import_name("no_such_module_here.x", trusted=False)


def test_only_known_slug_factories_are_called():
    slugify = imports.call("pymdownx.slugs.slugify", [], {"case": "lower"}, trusted=False)
    assert isinstance(slugify, functools.partial) and slugify("Héllo Wörld", "-") == "héllo-wörld"
    for name, args, kwds in [("os.system", ["true"], {}), ("pymdownx.slugs.slugify", ["x"], {}),
                             ("pymdownx.slugs.slugify", [], {"case": "upper"}), ("pymdownx.slugs.slugify", [], {"normalize": 1})]:
        with pytest.raises(imports.Refused, match="a call a source check does not make"):
            imports.call(name, args, kwds, trusted=False)


def test_trusted_calls_are_made_as_mkdocs_makes_them():
    assert imports.call("operator.add", [2, 3], {}, trusted=True) == 5


def test_an_extension_entry_point_is_judged_by_its_module():
    assert imports.extension_refusal("toc") is None  # Python-Markdown's entry point: markdown.extensions.toc
    assert imports.extension_refusal("pymdownx.snippets") is None


def test_includes_read_only_regular_files_inside_the_project_and_out_of_vcs_directories(tmp_path):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text("token\n")
    (project / "part.md").write_text("part\n")
    (tmp_path / "outside.md").write_text("outside\n")
    (project / "link.md").symlink_to(tmp_path / "outside.md")
    (project / "git-link").symlink_to(project / ".git")
    assert read_refusal(project / "part.md", project) is None
    assert read_refusal(project / ".git" / "config", project) == "it is inside .git/, which holds the checkout's own data"
    assert read_refusal(project / "git-link" / "config", project) == "it is inside .git/, which holds the checkout's own data"
    assert read_refusal(project / "link.md", project) == "it is outside the project"
    assert read_refusal(project, project) == "it is not a regular file"
    assert [refusal for _, refusal in allowed_bases(["/", "..", ".", "docs"], str(project), str(project))] == [
        "it is outside the project", "it is outside the project", None, None]
