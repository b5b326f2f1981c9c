"""Issue 21, includes: what an included file brings into a page is written in that file. Its
links are reported there (the span is in the included file) and checked from the page that
renders them, as the built site shows them; the headings it brings give the page its ids."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

from linkfix.config import Config
from linkfix.model import Report
from linkfix.pipeline import run_check


def check(tmp_path: Path, config: str, files: dict[str, str]) -> Report:
    """`files`: paths under the project (docs/... for pages)."""
    (tmp_path / "mkdocs.yml").write_text("site_name: test\n" + textwrap.dedent(config))
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    report = asyncio.run(run_check([str(tmp_path / "mkdocs.yml")], Config(offline=True, cache=False)))
    for r in report.results:  # every span holds its URL as written
        span = r.link.span
        assert span.start == span.end or Path(span.path).read_text()[span.start : span.end] == r.link.url, r
    return report


def placed(report: Report, root: Path) -> list[tuple[str, int, str, str]]:
    """(file, line, url, status) of every link, the file relative to the project."""
    return sorted((str(Path(r.link.span.path).resolve().relative_to(root.resolve())), r.link.span.line, r.link.url,
                   r.result.status.value) for r in report.results)


def test_snippet_links_inside_an_html_block_are_placed_in_the_snippet_and_followed_from_the_page(tmp_path):
    """A snippet whose links sit in `<nav markdown>` (no CommonMark reader sees a link there),
    included by pages of one directory: each link is found in the snippet by its text and
    resolved from the including page (was: reported at the include line as raw HTML, 'left as
    written', and broken from the page's URL)."""
    report = check(tmp_path, """\
        markdown_extensions:
          - md_in_html
          - pymdownx.snippets:
              base_path: [docs]
        """, {
            "docs/palettes/links.md": '<nav markdown>\n[Dark](dark.md) |\n[Light](light.md)\n</nav>\n',
            "docs/palettes/dark.md": "--8<--\npalettes/links.md\n--8<--\n\n# Dark\n",
            "docs/palettes/light.md": "# Light\n",
        })
    # twice each: from dark.md, which includes the snippet, and from the snippet, a page too
    assert placed(report, tmp_path) == [("docs/palettes/links.md", 2, "dark.md", "ok")] * 2 + [("docs/palettes/links.md", 3, "light.md", "ok")] * 2


def test_mdx_include_brings_links_and_headings_and_its_links_are_followed_from_the_page(tmp_path):
    """`{!annotations/en/test_main_003.md!}` (mdx_include; the same syntax as markdown-include):
    its text is part of the page as the build renders it, in every environment (mdx_include is
    not a dependency of linkfix). Its links are reported in the included file and resolved from
    the page that includes it, as MkDocs resolves them; its headings are the page's ids."""
    report = check(tmp_path, "markdown_extensions:\n  - mdx_include:\n      base_path: docs_src\n", {
        "docs_src/annotations/en/test_main_003.md": "## Shared heading\n\nSee [the guide](../guide.md) and [nothing](../nothing.md).\n",
        "docs/tutorial/page.md": "# Page\n\n{!annotations/en/test_main_003.md!}\n",
        "docs/guide.md": "# Guide\n",
        "docs/index.md": "[shared](tutorial/page.md#shared-heading)\n",
    })
    assert placed(report, tmp_path) == [
        ("docs/index.md", 1, "tutorial/page.md#shared-heading", "ok"),
        ("docs_src/annotations/en/test_main_003.md", 3, "../guide.md", "ok"),  # docs/guide.md, from docs/tutorial/page.md
        ("docs_src/annotations/en/test_main_003.md", 3, "../nothing.md", "broken"),
    ]


def test_an_include_never_reads_outside_the_project_nor_fetches_a_url(tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("[leak](https://attacker.example/?q=secret)\n")
    project = tmp_path / "project"
    project.mkdir()
    report = check(project, "markdown_extensions:\n  - mdx_include:\n      base_path: docs\n", {
        "docs/index.md": "# Home\n\n{!../../secret.md!}\n\n{!https://attacker.example/x.md!}\n\n{!../.git/config!}\n\n{!inner.md!}\n",
        "docs/inner.md": "[inner](index.md)\n",
        ".git/config": "[remote]\nurl = https://internal.example/\n",
    })
    # inner.md's link twice: included by index.md, and on its own page
    assert placed(report, project) == [("docs/inner.md", 1, "index.md", "ok")] * 2


def test_pages_a_template_plugin_fills_in_have_their_missing_ids_unverified(tmp_path):
    """include-markdown and macros bring text (headings) in when the site is built: a fragment
    into such a page is unverified; into a page without their syntax, exact."""
    report = check(tmp_path, "plugins:\n  - include-markdown\n", {
        "docs/shared.md": "## Shared\n",
        "docs/page.md": '# Page\n\n{% include-markdown "shared.md" %}\n',
        "docs/plain.md": "# Plain\n",
        "docs/index.md": "[shared](page.md#shared) [plain](plain.md#shared)\n",
    })
    assert {r.link.url: (r.result.status.value, str(r.result.reason)) for r in report.results} == {
        "page.md#shared": ("unverified", "build-time-id"), "plain.md#shared": ("broken", "missing-fragment")}


def test_a_macros_include_makes_unverified_only_the_headings_of_the_included_file(tmp_path):
    """macros-plugin's own docs: `{% include 'snippet.md' %}` on advanced.md; a link to a
    heading that no file has is broken (was: every fragment into the page unverified, a miss);
    a block of template code of its own (`{{ macro() }}`) may write any heading."""
    report = check(tmp_path, "plugins:\n  - macros\n", {
        "docs/snippet.md": "## From the snippet\n",
        "docs/advanced.md": "# Advanced\n\n{% include 'snippet.md' %}\n\nText with {{ config.site_name }}.\n",
        "docs/generated.md": "# Generated\n\n{{ render_sections() }}\n",
        "docs/index.md": "[snippet](advanced.md#from-the-snippet) [removed](advanced.md#adding-post-build-files) "
                         "[made](generated.md#anything)\n",
    })
    assert {r.link.url: (r.result.status.value, str(r.result.reason)) for r in report.results} == {
        "advanced.md#from-the-snippet": ("unverified", "build-time-id"), "advanced.md#adding-post-build-files": ("broken", "missing-fragment"),
        "generated.md#anything": ("unverified", "build-time-id")}
