"""A docs page that is a symlink to a file elsewhere in the project (copier's
`docs/contributing.md -> ../CONTRIBUTING.md`): MkDocs builds it under its own name, and its
relative links start from there, not from where the file really is."""

from __future__ import annotations

import os
from pathlib import Path

from tests.integration.conftest import check_mkdocs_project, worst_status_by_url


def _project(tmp_path, link: str, *, hook: str = "") -> dict[str, str]:
    (tmp_path / "docs").mkdir()
    (tmp_path / "CONTRIBUTING.md").write_text(f"# Contributing\n\nSee our [changelog]({link}).\n")
    (tmp_path / "CHANGELOG.md").write_text("# Changes\n\n## 1.0\n")
    os.symlink("../CONTRIBUTING.md", tmp_path / "docs" / "contributing.md")
    os.symlink("../CHANGELOG.md", tmp_path / "docs" / "changelog.md")
    return {"hooks.py": hook} if hook else {}


def test_a_symlinked_pages_links_start_from_its_place_in_the_docs(tmp_path):
    files = _project(tmp_path, "changelog.md#10")
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "", {"index.md": "# Home\n"}, files))
    assert found["changelog.md#10"] == "ok"


def test_a_symlinked_page_still_has_its_broken_links_found(tmp_path):
    files = _project(tmp_path, "CONTRIBUTING.md")  # beside the real file, not among the docs
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "", {"index.md": "# Home\n"}, files))
    assert found["CONTRIBUTING.md"] == "broken"


def test_trusted_a_hook_rewriting_a_symlinked_pages_link_is_followed_from_the_docs(tmp_path):
    hook = 'def on_page_markdown(markdown, page, config, files):\n    return markdown.replace("CHANGELOG.md)", "changelog.md)")\n'
    files = _project(tmp_path, "CHANGELOG.md", hook=hook)
    report = check_mkdocs_project(tmp_path, "hooks:\n  - hooks.py\n", {"index.md": "# Home\n"}, files, trust=True)
    assert set(worst_status_by_url(report).values()) == {"ok"}


def test_a_relative_input_is_resolved_against_the_working_directory_of_each_call(tmp_path, monkeypatch):
    # A page's directory is resolved once per run for speed; a relative one is not kept, since
    # a caller (the Python API, a test) may change the working directory between checks.
    from linkfix.inputs.sources import Project

    for name in ("one", "two"):  # docs/a.md -> ../A.md: only its directory, resolved, places it
        (tmp_path / name / "docs").mkdir(parents=True)
        (tmp_path / name / "A.md").write_text("# A\n", encoding="utf-8")
        (tmp_path / name / "docs" / "a.md").symlink_to(Path("..") / "A.md")
    keys = []
    for name in ("one", "two"):
        monkeypatch.chdir(tmp_path / name)
        project = Project(files=[Path("docs/a.md")], root=(tmp_path / name / "docs").resolve(), markdown=True)
        keys.append(project.relative(Path("docs/a.md")))
    assert keys == ["a.md", "a.md"]


# rye: docs/guide/commands/toolchain/fetch.md is a symlink to ../fetch.md. MkDocs 1.6 builds it as
# a page of its own at guide/commands/toolchain/fetch/ and resolves its links from there, so its
# `../toolchains/index.md#build-info` points at guide/commands/toolchains/index.md, which does not
# exist: MkDocs warns, the built page's link is a 404. linkfix reads the symlink as the file it
# points to (resolved path), resolves the link from guide/commands/ and calls it ok: a miss.
# linkfix now keys a symlinked page by its own name (inputs/sources.Project.relative).
def test_a_symlinked_page_resolves_its_links_from_where_it_sits(tmp_path):
    (tmp_path / "docs" / "cmd" / "alias").mkdir(parents=True)
    (tmp_path / "docs" / "cmd" / "alias" / "fetch.md").symlink_to("../fetch.md")
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "", {
        "index.md": "# Home\n\n[fetch](cmd/fetch.md) [alias](cmd/alias/fetch.md)\n",
        "cmd/fetch.md": "# Fetch\n\n[tc](../tc/index.md)\n",
        "tc/index.md": "# Toolchains\n",
    }))
    assert found["cmd/alias/fetch.md"] == "ok"
    assert found["../tc/index.md"] == "broken"  # from cmd/alias/ it leads to cmd/tc/index.md
