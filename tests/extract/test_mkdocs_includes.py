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
