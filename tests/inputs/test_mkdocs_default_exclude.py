"""MkDocs' default exclude_docs matched by hand (mkdocs/structure/files.DefaultExclude) gives what
pathspec's GitIgnoreSpec gives for the same patterns, which MkDocs uses."""

from __future__ import annotations

import subprocess
import sys

import pathspec
import pytest

from linkfix.mkdocs.structure.files import DEFAULT_EXCLUDE, DefaultExclude, _spec

PATHS = [
    "index.md", ".hidden.md", "a/.hidden.md", ".git/config", "a/.b/c.md", "a/b./c.md", "a/b.c/.d",
    "templates/x.md", "templates", "a/templates/x.md", "templates.md", "templates/a/b.md", "x.templates/y.md",
    "notes/.", "a.b/c.md", "..md", "a/..md", "_templates/x.md", "Templates/x.md",
]


@pytest.mark.parametrize("path", PATHS)
def test_default_exclude_matches_as_gitignore_spec_does(path: str) -> None:
    spec = pathspec.GitIgnoreSpec.from_lines(list(DEFAULT_EXCLUDE))
    # pathspec 0.12 answers a path no pattern matches with None, later versions with False
    assert DefaultExclude().match_file(path) is bool(spec.match_file(path))


def test_other_patterns_still_go_to_pathspec() -> None:
    spec = _spec((*DEFAULT_EXCLUDE, "drafts/"))
    assert not isinstance(spec, DefaultExclude)
    assert spec.match_file("drafts/a.md") and spec.match_file(".x.md") and not spec.match_file("a.md")


def test_a_project_without_exclude_docs_does_not_import_pathspec() -> None:
    code = ("import sys; from linkfix.mkdocs.structure.files import _spec, DEFAULT_EXCLUDE; "
            "assert _spec(DEFAULT_EXCLUDE).match_file('.x.md'); print('pathspec' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
