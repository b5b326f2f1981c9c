"""Link targets decoded as the page's renderer decodes a link of their kind: CommonMark (spec
examples 20, 21, 603, 631) for plain markdown, Python-Markdown for the pages of an MkDocs project."""

from __future__ import annotations

import asyncio
import textwrap

import markdown
import pytest
from markdown_it import MarkdownIt

from linkfix.config import Config
from linkfix.formats import extract_html, extract_markdown
from linkfix.formats.markdown.targets import markdown_target
from linkfix.model import Dialect, LinkKind
from linkfix.pipeline import run_check

# (markdown, the link's kind): escapes, references and backslashes in every kind of link.
WRITTEN = [
    (r"[x](a\_b\*c)", LinkKind.INLINE),
    (r"[x](a\/b\?c\=d)", LinkKind.INLINE),
    (r"[x](<a\/b\_c>)", LinkKind.INLINE),
    ("[x](a&amp;b&#42;c&copy=1&ampx;)", LinkKind.INLINE),
    (r"![i](a\/b\_c.png)", LinkKind.IMAGE),
    ("[x][r]\n\n[r]: a\\/b\\_c&amp;d", LinkKind.REFERENCE),
    (r"<https://example.com?find=\*>", LinkKind.AUTOLINK),  # spec example 20
    (r"<https://x.org/a\-b\.c\!d\#e\+f\\g\qh>", LinkKind.AUTOLINK),
    (r"<https://x.org/a\/b\?c\&amp;d\~e>", LinkKind.AUTOLINK),
    ('<a href="/bar\\/)">', LinkKind.HTML),  # spec example 21
    ('<a href="\\*">', LinkKind.HTML),  # spec example 631
    ('<a href="a&#46;md&amp;x">', LinkKind.HTML),
]


def _written(text: str, kind: LinkKind) -> str:
    links = [link for link in extract_markdown(text, "page.md").links if link.kind is kind]
    assert len(links) == 1, links
    return links[0].url


@pytest.mark.parametrize(("text", "kind"), WRITTEN)
def test_python_markdown_targets_are_what_python_markdown_renders(text, kind):
    rendered = extract_html(markdown.markdown(text), "page.html").links
    assert len(rendered) == 1
    assert markdown_target(_written(text, kind), kind, Dialect.PYTHON_MARKDOWN) == rendered[0].url


@pytest.mark.parametrize(("text", "kind"), [(text, kind) for text, kind in WRITTEN if "&" not in text or kind is not LinkKind.AUTOLINK])
def test_commonmark_targets_are_what_markdown_it_renders(text, kind):
    # markdown-it percent-encodes the href of a markdown link (a kept backslash as %5C), as its
    # normalizeLink does; raw HTML it passes through as written.
    md = MarkdownIt("commonmark")
    rendered = extract_html(md.render(text), "page.html").links
    assert len(rendered) == 1
    target = markdown_target(_written(text, kind), kind, Dialect.COMMONMARK)
    assert (target if kind is LinkKind.HTML else md.normalizeLink(target)) == rendered[0].url


def test_commonmark_autolinks_keep_backslashes_and_decode_references():
    # Spec example 20 and 603: no backslash escapes in an autolink. A complete reference is
    # decoded, as cmark (GitHub) does and the spec says of URLs (markdown-it leaves it as written).
    assert markdown_target(r"https://example.com?find=\*", LinkKind.AUTOLINK, Dialect.COMMONMARK) == r"https://example.com?find=\*"
    assert markdown_target(r"https://example.com/\[\\", LinkKind.AUTOLINK, Dialect.COMMONMARK) == "https://example.com/\\[\\\\"
    assert markdown_target("https://x.org/?a&amp;b&#42;", LinkKind.AUTOLINK, Dialect.COMMONMARK) == "https://x.org/?a&b*"


def test_bare_urls_are_as_written_in_commonmark():
    # markdown-it's linkify and cmark-gfm's autolink extension alike: no escapes, no references.
    text = r"see https://x.org/a\_b&amp;c\*d end"
    assert markdown_target(_written(text, LinkKind.BARE), LinkKind.BARE, Dialect.COMMONMARK) == r"https://x.org/a\_b&amp;c\*d"


def _results(tmp_path, pages: dict[str, str], *, mkdocs: bool) -> list[tuple[str, str, str, str]]:
    """(url as written, kind, target checked, status) of every link of `pages`, checked offline."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in pages.items():
        (docs / name).write_text(textwrap.dedent(text))
    target = str(docs)
    if mkdocs:
        (tmp_path / "mkdocs.yml").write_text("site_name: test\n")
        target = str(tmp_path / "mkdocs.yml")
    report = asyncio.run(run_check([target], Config(offline=True, cache=False)))
    return sorted((r.link.url, r.link.kind.value, r.resolved, r.result.status.value) for r in report.results)


PAGE = """\
    # Page

    See <https://example.com?find=\\*> and [inline](a\\_b.md) and [defined][d].

    Spec example 603: <https://example.com/\\[\\>

    [d]: a\\_b.md
    """


def test_a_plain_markdown_page_is_decoded_as_commonmark(tmp_path):
    found = _results(tmp_path, {"index.md": PAGE, "a_b.md": "# A\n"}, mkdocs=False)
    assert [(url, kind, status) for url, kind, _, status in found if url == "a\\_b.md"] == [
        ("a\\_b.md", "inline", "ok"), ("a\\_b.md", "reference", "ok")]  # `\_` is `_` in both
    assert [(url, checked) for url, kind, checked, _ in found if kind == "autolink"] == [
        ("https://example.com/\\[\\", "https://example.com/\\[\\"), ("https://example.com?find=\\*", "https://example.com?find=\\*")]


def test_an_mkdocs_page_is_decoded_as_python_markdown(tmp_path):
    found = _results(tmp_path, {"index.md": PAGE, "a_b.md": "# A\n"}, mkdocs=True)
    # Python-Markdown keeps a definition's backslashes: `a\_b.md` is no file; the inline link's `\_` is `_`.
    assert [(url, kind, status) for url, kind, _, status in found if url == "a\\_b.md"] == [
        ("a\\_b.md", "inline", "ok"), ("a\\_b.md", "reference", "broken")]
    # Example 603 is no link for Python-Markdown: its `\>` is an escaped `>`, the autolink has no end.
    assert [(url, checked) for url, kind, checked, _ in found if kind == "autolink"] == [
        ("https://example.com?find=\\*", "https://example.com?find=*")]
