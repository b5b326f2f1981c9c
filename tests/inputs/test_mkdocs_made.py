"""Issue 21: what a MkDocs build makes that the docs sources do not show. Theme files, plugin
files and pages are published files when they can be known without the project's code; what
cannot be known here (a theme not installed, a gen-files script) is `unverified`, never broken."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from linkfix.config import Config
from linkfix.model import Report
from linkfix.pipeline import run_check


def check(tmp_path: Path, config: str, files: dict[str, str]) -> Report:
    """`files`: paths under the project (docs/... for pages)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: test\n" + textwrap.dedent(config))
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return asyncio.run(run_check([str(tmp_path / "mkdocs.yml")], Config(offline=True, cache=False)))


def outcomes(report: Report) -> dict[str, tuple[str, str]]:
    return {r.link.url: (r.result.status.value, str(r.result.reason)) for r in report.results}


# -- the theme ---------------------------------------------------------------------------------

def test_the_builtin_themes_static_files_and_templates_are_published(tmp_path):
    """`img/favicon.ico` comes from the `mkdocs` theme (was: broken), `sitemap.xml` and
    `404.html` are rendered by every build; a file no theme has stays broken."""
    got = outcomes(check(tmp_path, "", {"docs/index.md": """\
        ![icon](img/favicon.ico) [map](sitemap.xml) [zipped](sitemap.xml.gz) [404](404.html)
        [search](search/search_index.json) [nothing](img/nothing.png)
        """}))
    assert got == {"img/favicon.ico": ("ok", ""), "sitemap.xml": ("ok", ""), "sitemap.xml.gz": ("ok", ""), "404.html": ("ok", ""),
                   "search/search_index.json": ("ok", ""), "img/nothing.png": ("broken", "missing-file")}


def test_readthedocs_theme_and_a_custom_dir(tmp_path):
    got = outcomes(check(tmp_path, "theme:\n  name: readthedocs\n  custom_dir: overrides\n", {
        "overrides/extra/logo.svg": "<svg/>",
        "overrides/main.html": "{% extends 'base.html' %}",
        "docs/index.md": "[css](css/theme.css) [logo](extra/logo.svg) [template](main.html)\n"}))
    assert got == {"css/theme.css": ("ok", ""), "extra/logo.svg": ("ok", ""), "main.html": ("broken", "missing-file")}


def test_a_theme_that_is_installed_and_one_that_is_not(tmp_path):
    pytest.importorskip("material")
    got = outcomes(check(tmp_path / "material", "theme: material\n", {
        "docs/index.md": "[js](assets/javascripts/bundle.js.map) [icon](assets/images/favicon.png) [gone](assets/gone.png)\n"}))
    assert got["assets/images/favicon.png"] == ("ok", "")
    assert got["assets/gone.png"] == ("broken", "missing-file")
    got = outcomes(check(tmp_path / "absent", "theme: not-installed-theme\n", {
        "docs/index.md": "[css](css/palettes/dark.css) [page](gone.md)\n"}))
    assert got == {"css/palettes/dark.css": ("unverified", "build-time-file"), "gone.md": ("broken", "missing-file")}


def test_the_hint_for_a_theme_that_is_not_installed_names_the_package(tmp_path):
    # (a file of the theme's own list, css/palettes/dark.css, is made: tests/mkdocs/test_theme_files.py)
    report = check(tmp_path, "theme: terminal\n", {"docs/index.md": "[css](css/palettes/my-own.css)\n"})
    (result,) = report.results
    assert "mkdocs-terminal" in result.result.detail and "additional_dependencies" in result.result.detail


def test_a_theme_that_is_not_installed_is_known_without_importing_mkdocs_theme(tmp_path):
    """mkdocs.theme brings most of MkDocs (click, jinja2): a one-page check of a project whose
    theme is not installed (pre-commit's environment) does without it, with the same outcome."""
    check(tmp_path, "theme: not-installed-theme\n", {"docs/index.md": "[css](css/palettes/dark.css)\n"})
    code = ("import asyncio, sys; from linkfix.config import Config; from linkfix.pipeline import run_check; "
            f"report = asyncio.run(run_check([{str(tmp_path / 'mkdocs.yml')!r}], Config(offline=True, cache=False))); "
            "print([r.result.status.value for r in report.results], 'mkdocs.theme' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['unverified'] False"


# -- plugins -----------------------------------------------------------------------------------

def test_files_plugins_write_whatever_the_pages_say(tmp_path):
    got = outcomes(check(tmp_path, "site_url: https://x.dev/\nplugins:\n  - search\n  - llmstxt:\n      full_output: llms-full.txt\n", {
        "docs/index.md": "[llms](https://x.dev/llms.txt) [full](/llms-full.txt) [gone](https://x.dev/llms-gone.txt)\n"}))
    assert got == {"https://x.dev/llms.txt": ("ok", ""), "/llms-full.txt": ("ok", ""),
                   "https://x.dev/llms-gone.txt": ("broken", "missing-file")}


def test_monorepo_puts_other_projects_docs_under_their_names(tmp_path):
    got = outcomes(check(tmp_path, """\
        nav:
          - Intro: index.md
          - API:
            - v1: '!include ./v1/mkdocs.yml'
          - Components: '*include ./components/*/mkdocs.yml'
        plugins:
          - monorepo
        """, {
        "v1/mkdocs.yml": "site_name: versions/v1\nnav:\n  - Reference: reference.md\n",
        "v1/docs/reference.md": "# Reference\n",
        "components/a/mkdocs.yml": "site_name: Component A\n",
        "components/a/docs/README.md": "# A\n",
        "docs/index.md": "[v1](./versions/v1/reference.md) [a](/component-a/) [v2](./versions/v2/reference.md)\n",
    }))
    # the nav's `index.md` is checked as a link (check/mkdocs_nav.py); its `!include`s are not pages
    assert got == {"./versions/v1/reference.md": ("ok", ""), "/component-a/": ("ok", ""),
                   "./versions/v2/reference.md": ("broken", "missing-file"), "index.md": ("ok", "")}


def test_gen_files_pages_are_made_or_unverified_by_the_paths_the_scripts_write(tmp_path):
    """The scripts are the project's code: not run. What they write is read from their
    `mkdocs_gen_files.open` calls: `f"sample/{n}-bottles.md"` over a constant range is five
    pages; `f"reference/{module}.md"` over names made at run time is any page under reference/
    (unverified); other links stay exact (since 2026-12-02, issue 44.7: before, every link to a
    name the script spells was unverified)."""
    report = check(tmp_path, "plugins:\n  - gen-files:\n      scripts:\n        - docs/gen_pages.py\n", {
        "docs/gen_pages.py": """\
            import mkdocs_gen_files

            for total in range(19, 100, 20):
                with mkdocs_gen_files.open(f"sample/{total}-bottles.md", "w") as f:
                    print("bottles", file=f)
            for module in modules():
                with mkdocs_gen_files.open(f"reference/{module}.md", "w") as f:
                    f.write(module)
            """,
        "docs/index.md": "[99](sample/99-bottles.md) [100](sample/100-bottles.md) [cli](reference/cli/) [gone](gone.md)\n"})
    got = outcomes(report)
    assert got == {"sample/99-bottles.md": ("ok", ""), "sample/100-bottles.md": ("broken", "missing-file"),
                   "reference/cli/": ("unverified", "build-time-file"), "gone.md": ("broken", "missing-file")}
    detail = next(r.result.detail for r in report.results if r.link.url == "reference/cli/")
    assert "docs/gen_pages.py" in detail and "--trust-project-code" in detail


def test_material_blog_pages_are_computed_from_its_config(tmp_path):
    """Post URLs (`{date}/{slug}`), archive, category and pagination pages, as the blog plugin
    makes them: a full URL to any of them works (was: 'not a URL of the built site'); a
    category with no post, and a post's URL before the plugin moved it, stay broken."""
    posts = {f"docs/blog/posts/post-{n}.md": f"---\ndate: 2024-0{1 + n % 2}-{10 + n}\ncategories: [Release Notes]\n---\n\n# Post number {n}\n"
             for n in range(12)}
    got = outcomes(check(tmp_path, "site_url: https://x.dev/\nplugins:\n  - blog\n", {
        **posts,
        "docs/blog/posts/img/chart.png": "",
        "docs/blog/index.md": "# Blog\n",
        "docs/index.md": """\
            [post](https://x.dev/blog/2024/02/11/post-number-1/) [by file](blog/posts/post-1.md)
            [year](https://x.dev/blog/archive/2024/) [category](https://x.dev/blog/category/release-notes/)
            [page 2](https://x.dev/blog/page/2/) [chart](https://x.dev/blog/img/chart.png)
            [no category](https://x.dev/blog/category/nope/) [old place](blog/posts/post-1/)
            """}))
    assert got == {
        "https://x.dev/blog/2024/02/11/post-number-1/": ("ok", ""), "blog/posts/post-1.md": ("ok", ""),
        "https://x.dev/blog/archive/2024/": ("ok", ""), "https://x.dev/blog/category/release-notes/": ("ok", ""),
        "https://x.dev/blog/page/2/": ("ok", ""), "https://x.dev/blog/img/chart.png": ("ok", ""),
        "https://x.dev/blog/category/nope/": ("broken", "missing-file"),
        "blog/posts/post-1/": ("broken", "missing-file"),
    }


# -- mkdocs-static-i18n ------------------------------------------------------------------------

I18N = """\
    site_url: https://x.dev/
    plugins:
      - i18n:
          docs_structure: {structure}
          languages:
            - locale: en
              default: true
              name: English
            - locale: ja
              name: 日本語
            - locale: de
              name: Deutsch
              build: false
    """


def test_i18n_folder_structure(tmp_path):
    """openai-agents: `ja/agents.md` links `ref/lifecycle.md`, which only the default language
    has: the ja build publishes the default's in its place (was: 'no such file')."""
    got = outcomes(check(tmp_path, I18N.format(structure="folder"), {
        "docs/ref/lifecycle.md": "# Lifecycle\n\n## Hooks\n",
        "docs/assets/chart.png": "",
        "docs/index.md": "# Home\n",
        "docs/ja/index.md": "# ホーム\n",
        "docs/de/index.md": "# Start\n",
        "docs/ja/agents.md": """\
            [lifecycle](ref/lifecycle.md#hooks) [chart](../assets/chart.png) [gone](ref/gone.md)
            [ja url](https://x.dev/ja/ref/lifecycle/) [home](https://x.dev/ja/) [de](https://x.dev/de/)
            """}))
    assert got == {"ref/lifecycle.md#hooks": ("ok", ""), "../assets/chart.png": ("ok", ""), "ref/gone.md": ("broken", "missing-file"),
                   "https://x.dev/ja/ref/lifecycle/": ("ok", ""), "https://x.dev/ja/": ("ok", ""),
                   "https://x.dev/de/": ("excluded", "outside-build")}


def test_i18n_suffix_structure(tmp_path):
    got = outcomes(check(tmp_path, I18N.format(structure="suffix"), {
        "docs/index.md": "# Home\n\n[ja page](https://x.dev/ja/setup/) [ja only](https://x.dev/ja/only/) [en only](/only/)\n",
        "docs/index.ja.md": "# ホーム\n",
        "docs/setup.md": "# Setup\n",
        "docs/only.ja.md": "# のみ\n",
    }))
    assert got == {"https://x.dev/ja/setup/": ("ok", ""), "https://x.dev/ja/only/": ("ok", ""), "/only/": ("broken", "missing-file")}


def test_with_the_trust_gen_files_scripts_run_and_their_pages_are_known(tmp_path):
    """--trust-project-code: the scripts run as the plugin runs them; a page they do not write
    is broken again, as in the build."""
    pytest.importorskip("mkdocs_gen_files")
    files = {"docs/gen_pages.py": """\
            import mkdocs_gen_files

            for total in range(19, 100, 20):
                with mkdocs_gen_files.open(f"sample/{total}-bottles.md", "w") as f:
                    print("bottles", file=f)
            """,
             "docs/index.md": "[99](sample/99-bottles.md) [98](sample/98-bottles.md)\n"}
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - gen-files:\n      scripts:\n        - docs/gen_pages.py\n")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    report = asyncio.run(run_check([str(tmp_path / "mkdocs.yml")], Config(offline=True, cache=False, trust_project_code=True)))
    assert outcomes(report) == {"sample/99-bottles.md": ("ok", ""), "sample/98-bottles.md": ("broken", "missing-file")}
