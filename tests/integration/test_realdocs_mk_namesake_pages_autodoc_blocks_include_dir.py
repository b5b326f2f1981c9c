"""Three MkDocs build rules real projects showed (the projects are at the end of
benchmarks/realdocs_projects.yaml): a page and its namesake directory's index share one URL,
autodoc blocks on consecutive lines each make their id, and the macros plugin's include_dir is
opened from where the build runs. Each test is a small project written here, checked like
`linkfix check --offline mkdocs.yml`."""

from __future__ import annotations

from .conftest import check_mkdocs_project, worst_status_by_url


# powertools: docs/core/metrics.md beside docs/core/metrics/index.md, and 7 links to
# ./core/metrics.md called broken ("MkDocs leaves it out: it conflicts with core/metrics/index.md").
# MkDocs 1.6 compares destinations only within one directory: it builds both pages to
# core/metrics/index.html, with no warning, and the one it writes last (metrics/index.md, met
# after the files of core/) is what the URL shows. A link to either page works; its fragment is
# one of the page the URL shows (checked with mkdocs 1.6.1 on this very project).
def test_a_page_and_the_index_of_its_namesake_directory_share_one_url(tmp_path):
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "", {
        "index.md": """\
            # Home

            [c](c.md) [c index](c/index.md) [shown](c.md#only-index) [hidden](c.md#only-c)
            """,
        "c.md": "# C\n\n## Only c\n",
        "c/index.md": "# C index\n\n## Only index\n",
    }))
    assert found["c.md"] == "ok"
    assert found["c/index.md"] == "ok"
    assert found["c.md#only-index"] == "ok"
    assert found["c.md#only-c"] == "broken"  # the URL shows c/index.md, which has no such heading


# mesop: api/page.md lists `::: mesop.features.page.page`, `::: mesop.security.security_policy.SecurityPolicy`
# and `::: mesop.events.events.LoadEvent` on three lines in a row, with `show_root_heading: true`;
# 3 links to `#mesop.security.security_policy.SecurityPolicy` were unverified (build-time ids).
# Python-Markdown makes the three lines one paragraph, but mkdocstrings takes each `:::` line as
# a block of its own (the unindented rest after a block's line is parsed again), so each object's
# id is as sure as a lone block's.
def test_autodoc_blocks_on_consecutive_lines_each_make_their_id(tmp_path):
    found = worst_status_by_url(check_mkdocs_project(tmp_path, """\
        plugins:
          - mkdocstrings:
              handlers:
                python:
                  options:
                    show_root_heading: true
        """, {
        "api.md": "# API\n\n::: pkg.mod.first\n::: pkg.mod.Second\n::: pkg.mod.third\n",
        "index.md": "# Home\n\n[second](api.md#pkg.mod.Second) [third](api.md#pkg.mod.third) [none](api.md#pkg.mod.Fourth)\n",
    }))
    assert found["api.md#pkg.mod.Second"] == "ok"
    assert found["api.md#pkg.mod.third"] == "ok"
    assert found["api.md#pkg.mod.Fourth"] == "unverified"  # a member or heading a block may make


# external-secrets: hack/api-docs/mkdocs.yml (docs_dir: ../../docs) is built from the repository
# root (`mkdocs build -f hack/api-docs/mkdocs.yml`), and the macros plugin's `include_dir:
# docs/snippets` is opened from there, as Jinja opens any relative path. Looked for from the
# config's directory only, the included files were unreadable, and 2 links to headings that no
# page has were unverified ("a file the page's template includes ... may add headings").
def test_macros_include_dir_from_where_the_project_builds(tmp_path, monkeypatch):
    import asyncio
    import subprocess

    from linkfix.config import Config
    from linkfix.pipeline import run_check

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    files = {
        "hack/api-docs/mkdocs.yml": "site_name: t\ndocs_dir: ../../docs\nplugins:\n  - macros:\n      include_dir: docs/snippets\n",
        "docs/index.md": "# Home\n\n{% include 'part.md' %}\n\n[in](#from-the-include) [out](#nowhere)\n",
        "docs/snippets/part.md": "## From the include\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    report = asyncio.run(run_check(["hack/api-docs/mkdocs.yml"], Config(offline=True, cache=False)))
    found = worst_status_by_url(report)
    assert found["#nowhere"] == "broken"  # read: no included file has that heading
    assert found["#from-the-include"] == "unverified"  # the included file's heading: made when the site is built
