"""The fast paths of the markdown extractor against markdown-it's own rules.

`plain_paragraph` takes one-line paragraphs before markdown-it's block rules try them, and
`plain_inline` tokenizes plain inline content (prose, simple links, autolinks, bare URLs,
line breaks) itself. Whatever they accept must come out as exactly the tokens markdown-it
makes, with the same target notes; whatever they do not know must go to markdown-it. Each test
parses a document twice, with our parser and with the same parser without the fast paths, and
compares every token.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.helpers import parseLinkDestination
from markdown_it.rules_core import normalize as stock_normalize
from markdown_it.token import Token

from linkfix import speedups
from linkfix.formats.markdown import extract_markdown
from linkfix.formats.markdown.fastpath import plain_inline
from linkfix.formats.markdown.parser import inline_parser, parser
from linkfix.formats.markdown.tracking import parse_link_destination

TESTS = Path(__file__).resolve().parent.parent.parent
SAMPLES = sorted((TESTS / "golden" / "markdown").glob("*.md")) + sorted((TESTS / "hardening" / "fuzz_inputs" / "markdown").iterdir())


@pytest.fixture(scope="module")
def stock() -> MarkdownIt:
    """Our parser, every block and inline parsed by markdown-it's own rules."""
    md = parser.__wrapped__()
    md.block.ruler.disable("plain_paragraph", ignoreInvalid=True)  # (not there when LINKFIX_PLAIN turned the fast paths off)
    md.core.ruler.enable(["inline", "text_join"])  # markdown-it's own inline parse
    md.core.ruler.at("normalize", stock_normalize)
    return md


def tokens(md: MarkdownIt, text: str) -> list[Token]:
    env: dict = {}
    found = md.parse(text, env)
    if md is parser():  # inline content is parsed as the walk does it
        parse = inline_parser(md, env)
        for token in found:
            if token.type == "inline":
                token.children = parse(token.content)
    return found


def assert_same_tokens(text: str, stock: MarkdownIt) -> None:
    # Token is a dataclass: == compares type, content, attrs, markup, info, level, meta (our
    # target notes) and children.
    assert tokens(parser(), text) == tokens(stock, text)


# Pieces that start, end or break every construct the fast path knows, and the ones it must
# leave to markdown-it.
ATOMS = [
    "a", "word ", " ", "  ", "\t", "\n", "\n   ", "é", "-", "#", ":", "//", "!", "(", ")", "[", "]", "<", ">",
    "*", "_", "`", "~", "&", "&amp;", "\\", "{#id}", "'", '"', "[t](/u)", "[t](/u \"ti\")", "[](/e)", "[t](<a b>)",
    "[t](javascript:x)", "[t](a&amp;b)", "[t][r]", "[t][]", "[r]", "[t][nope]", "![i](/p.png)", "<http://a.b/c>",
    "<me@x.y>", "<javascript:x>", "<b>", "http", "https://x.y/p?q=1", "http://a.b*", "www.x.y", "mailto:",
    "x://", "[a](b(c))", "[a [b](c)](d)", "]: ", "`c`", "` c `", "` c`", "`  `", "``d``", "`a``b`", "\\[", "\\*", "\\\n",
    "\\a", "\\é", "[`c`](/u)", "[a `]` b](/u)", "[`c`][r]", "<http://a`b>", "http://a`b", "[r] x", "[`r`]", "[t][`r`]",
]  # fmt: skip
DEFINITIONS = ["", "[r]: /ref\n\n", "[r]: /ref \"title\"\n\n", "[t]: /t\n[r]: <x y>\n\n[`r`]: /code\n\n"]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    definitions=st.sampled_from(DEFINITIONS),
    body=st.lists(st.sampled_from(ATOMS), max_size=25).map("".join),
    container=st.sampled_from(["", "> ", "- ", "1. ", "# ", "    ", "| a |\n| - |\n| ", "a\n", "> a\n> "]),
)
@example(definitions="", body="a  \nb \nc\n  d", container="")
@example(definitions="[r]: /ref\n\n", body="see [t][r], [t][nope] and [r]", container="")
@example(definitions=DEFINITIONS[3], body='[t](/u "ti") [r](a b) [r] (c) [`r`][] [t]', container="")
@example(definitions="", body="x http://a.b/c*, y://z and https://", container="")
@example(definitions="", body="a-\\-b://c.d and `x\ny` \\\n  z", container="")
def test_fast_path_matches_markdown_it(definitions: str, body: str, container: str, stock: MarkdownIt) -> None:
    assert_same_tokens(definitions + container + body, stock)


# Lines that do or do not start a paragraph of their own, in containers, with CR/LF/NUL.
LINES = [
    "a", "Word [t](/u) x", "b:", "  c", "    d", "\tE", "1. x", "- x", "* x", "> q", "# h", "===", "---", "| a |",
    "|-|", "[r]: /d", "<div>", "```", "~~~", "", " ", "\r", "\0", "é", "Z\u2028",
]  # fmt: skip


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(st.sampled_from(LINES), max_size=12),
    prefix=st.sampled_from(["", "> ", "- ", "  ", "1. ", ">\t"]),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
)
@example(lines=["a", "", "b", "c", "", "Word [t](/u) x"], prefix="", newline="\n")
@example(lines=["- x", "  a", "", "  b"], prefix="", newline="\n")
@example(lines=["a", "- x", "* x", "> q", "a", "===", "a", "---", "Word [t](/u) x", "```", "a", "| a |", "|-|"], prefix="", newline="\n")
def test_block_fast_path_matches_markdown_it(lines: list[str], prefix: str, newline: str, stock: MarkdownIt) -> None:
    text = newline.join(prefix + line if index % 3 else line for index, line in enumerate(lines))
    assert_same_tokens(text, stock)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_fast_path_matches_markdown_it_on_samples(path: Path, stock: MarkdownIt) -> None:
    assert_same_tokens(path.read_bytes().decode("utf-8", "replace").replace("\0", "\ufffd"), stock)


def lines_taken(text: str) -> list[int]:
    """The lines of `text` the one-line paragraph fast path takes."""
    calls = []
    fresh = parser.__wrapped__()
    rule = fresh.block.ruler.__rules__[fresh.block.ruler.__find__("plain_paragraph")].fn

    def spy(state, start_line, end_line, silent):
        taken = rule(state, start_line, end_line, silent)
        calls.append((start_line, taken))
        return taken

    fresh.block.ruler.at("plain_paragraph", spy)
    fresh.parse(text, {})
    return [line for line, taken in calls if taken]


@pytest.mark.skipif(not speedups.ON, reason="LINKFIX_PLAIN: the fast paths are not wired in (what this test spies on)")
def test_block_fast_path_takes_one_line_paragraphs() -> None:
    assert lines_taken("One line.\n\nTwo\nlines.\n\n# Heading\n\nLast [x](/y)") == [0, 7]
    # a line the next one ends: a tight list's items, a line before a quote; not before an underline
    assert lines_taken("- one\n- two [x](/y)\n> quote\n\nTitle\n---\n\nText | cell\n- item\n") == [0, 1, 2, 8]


def test_fast_path_takes_link_dense_prose() -> None:
    md = parser()
    env = {"references": {"R": {"href": "/r", "title": ""}}}
    content = "See [a](http://x.y/a), [b][r] and <https://x.y/c>:\nalso `code` https://x.y/d - done!"
    children = plain_inline(content, md, env)
    assert children is not None
    assert [t.type for t in children if t.type.startswith("link")] == ["link_open", "link_close"] * 4
    assert [t.content for t in children if t.type == "softbreak" or t.type == "text"][-1] == " - done!"


@pytest.mark.parametrize(
    "content",
    ["*em*", "``code``", "`a``b`", "a &amp; b", "![i](/p.png)", "[t](/u \"title\")", "[t][undefined]", "[t](javascript:x)", "a\\é", "`open"],
)
def test_fast_path_leaves_the_rest_to_markdown_it(content: str) -> None:
    assert plain_inline(content, parser(), {}) is None


def test_links_found_through_the_fast_path_are_exact() -> None:
    text = "# T\n\nSee [a](http://x.y/a) and\n  <https://x.y/b>, then https://x.y/c.\n\n[a][r]\n\n[r]: /ref\n"
    document = extract_markdown(text, "t.md")
    assert [link.url for link in document.links] == ["http://x.y/a", "https://x.y/b", "https://x.y/c", "/ref"]
    for link in document.links:
        assert text[link.span.start : link.span.end] == link.url


@settings(deadline=None)
@given(
    text=st.lists(st.sampled_from(["a", "/", "(", ")", "<", ">", "\\", " ", "\n", "\x7f", "\x01", "&amp;", "é", ")x"]), max_size=12).map("".join),
    pos=st.integers(0, 14),
    cut=st.integers(0, 3),
)
def test_link_destination_reads_as_markdown_it_reads_it(text: str, pos: int, cut: int) -> None:
    limit = max(0, len(text) - cut)
    ours, theirs = parse_link_destination(text, pos, limit), parseLinkDestination(text, pos, limit)
    assert (ours.ok, ours.pos, ours.str) == (theirs.ok, theirs.pos, theirs.str)


EXTRA_ATOMS = ["\n\n", "# ", "- ", "&#91;x&#93;(y)", "&lt;a href=x&gt;", "&#123;#id}", "{: #k }", "www.x.org", "WWW.X.ORG", "x@y.org"]


@settings(max_examples=300, deadline=None)
@given(body=st.lists(st.sampled_from(ATOMS + EXTRA_ATOMS), max_size=30).map("".join))
def test_without_the_page_text_prose_with_nothing_to_find_is_not_parsed(body: str) -> None:
    """Inline content that can hold no link, image, raw tag, bare URL or id is not parsed when
    the page's text is not wanted: the links, spans and ids are those of a full reading."""
    def key(document):
        return [(l.url, l.span, l.anchor_text, l.kind, l.reference, l.tag) for l in document.links], document.page.ids, document.page.title

    assert key(extract_markdown(body, "x.md", want_text=False)) == key(extract_markdown(body, "x.md"))


@pytest.mark.skipif(not speedups.ON, reason="LINKFIX_PLAIN: every inline block is parsed")
def test_a_link_free_paragraph_is_not_parsed_when_no_text_is_wanted(monkeypatch) -> None:
    import linkfix.formats.markdown as package

    parsed: list[str] = []
    made = package.inline_parser  # the walk is handed its parser: spy on the one extract_markdown makes

    def spying(md, env):
        parse = made(md, env)
        return lambda content: parsed.append(content) or parse(content)

    monkeypatch.setattr(package, "inline_parser", spying)
    text = "# Title\n\nPlain words, nothing more.\n\nSee [a](b.md) here.\n"
    extract_markdown(text, "x.md", want_text=False)
    assert parsed == ["Title", "See [a](b.md) here."]
    parsed.clear()
    extract_markdown(text, "x.md")
    assert parsed == ["Title", "Plain words, nothing more.", "See [a](b.md) here."]
