"""Pages a build script writes into the docs before MkDocs runs, which the repository's
.gitignore keeps out of it (`/docs/api/  # generated at build time`): links into them are
unverified, never broken. Only a literal place the .gitignore names counts."""

from __future__ import annotations

from tests.integration.conftest import check_mkdocs_project

PAGES = {"index.md": "# Home\n\n[API](api/index.md), [module](api/pkg/mod.md#pkg.mod) and [gone](missing.md)\n"}


def _statuses(tmp_path, gitignore: str) -> dict[str, str]:
    report = check_mkdocs_project(tmp_path, "nav:\n  - index.md\n  - api/index.md\n", PAGES, {".gitignore": gitignore})
    return {r.link.url: r.result.status.value for r in report.results}


def test_links_into_a_docs_directory_the_gitignore_lists_are_unverified(tmp_path):
    found = _statuses(tmp_path, "# generated at build time by scripts/docs/\n/docs/api/\nsite/\n")
    assert found["api/index.md"] == found["api/pkg/mod.md#pkg.mod"] == "unverified"
    assert found["missing.md"] == "broken"
    report_detail = check_mkdocs_project(tmp_path, "", PAGES, {".gitignore": "/docs/api/\n"}).results
    assert any("/docs/api/" in r.result.detail for r in report_detail if r.link.url == "api/index.md")


def test_a_glob_or_a_bare_name_in_the_gitignore_names_no_place(tmp_path):
    found = _statuses(tmp_path, "api/\ndocs/api/*.md\n")
    assert found["api/index.md"] == "broken"
    assert found["missing.md"] == "broken"
