"""Reproductions of what four more MkDocs projects nobody here had run linkfix on showed (branch
mk-fresh4, issue 21). Each test is a small project written here, checked like `linkfix check
--offline mkdocs.yml`."""

from __future__ import annotations

from .conftest import check_mkdocs_project, worst_status_by_url


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
