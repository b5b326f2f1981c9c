"""Fast paths for plain paragraphs, tokenized into exactly the tokens markdown-it would make.

markdown-it's inline parser tries every rule at every punctuation mark, and its block parser
tries every block rule on every paragraph. One-line paragraphs and plain inline content (prose,
simple links, autolinks, bare URLs, code spans, escapes) are tokenized here instead
(tests/extract/markdown/test_fastpath.py checks them against markdown-it's own rules);
everything else is parsed by markdown-it. The `markdown` speed trick (linkfix.speedups):
with LINKFIX_PLAIN set, parser.py wires none of it in.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference, unescapeAll
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.token import Token

from .gfm import EMAIL_HINT, WWW_START
from .tracking import MARK, Target, bare_url

_trim: Callable[[str], str]
try:  # markdown-it-py >= 4.3 trims paragraphs with the CommonMark whitespace set
    from markdown_it.common.utils import mdTrim

    _trim = mdTrim
except ImportError:  # 3.x trims with str.strip (as its paragraph rule does)
    _trim = str.strip

#: The block rules the one-line paragraph fast path was written against.
FAST_BLOCK_RULES = (
    "front_matter", "table", "code", "fence", "blockquote", "hr", "list", "reference",
    "html_block", "heading", "lheading", "paragraph",
)  # fmt: skip


def plain_paragraph(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's `paragraph` rule for the commonest block: one line, starting with an
    ASCII letter, not indented as code, followed by a blank line, the end, or a line that ends
    a paragraph (`_ends_paragraph`: the next item of a list, a quote, a fence). No rule before
    `paragraph` takes such a line (each needs a marker character first, an indented line, a
    `|` for a table, or a second line that continues it), so markdown-it would try and reject
    them all."""
    line = start_line + 1
    pos = state.bMarks[start_line] + state.tShift[start_line]
    if (
        silent
        or pos >= state.eMarks[start_line]
        or not ("a" <= state.src[pos] <= "z" or "A" <= state.src[pos] <= "Z")
        or state.sCount[start_line] - state.blkIndent >= 4
        or (line < state.lineMax and not state.isEmpty(line) and not _ends_paragraph(state, start_line, line))
    ):
        return False
    # What `paragraph` does with a block of one line.
    content = _trim(state.getLines(start_line, line, state.blkIndent, False))
    state.line = line
    state.push("paragraph_open", "p", 1).map = [start_line, line]
    token = state.push("inline", "", 0)
    token.content = content
    token.map = [start_line, line]
    token.children = []
    state.push("paragraph_close", "p", -1)
    return True


def _ends_paragraph(state: StateBlock, start_line: int, line: int) -> bool:
    """Whether `line` ends a paragraph begun on `start_line` (the line before) as markdown-it's
    `paragraph` rule sees it, and `lheading` makes no heading of the two: not a continuation
    (indented past code, or a blockquote's lazy line), not a setext underline, and a line one of
    the paragraph's terminator rules (run silent, as `paragraph` runs them) would start. A `|`
    in the first line leaves it to `table`, which may take both lines."""
    if state.src.find("|", state.bMarks[start_line] + state.tShift[start_line], state.eMarks[start_line]) >= 0:
        return False
    if state.sCount[line] - state.blkIndent > 3 or state.sCount[line] < 0:
        return False
    pos, end = state.bMarks[line] + state.tShift[line], state.eMarks[line]
    if state.sCount[line] >= state.blkIndent and pos < end and state.src[pos] in "-=" \
            and state.skipSpaces(state.skipCharsStr(pos, state.src[pos])) >= end:
        return False  # `lheading`'s underline
    parent = state.parentType
    state.parentType = "paragraph"
    try:
        return any(rule(state, line, state.lineMax, True) for rule in state.md.block.ruler.getRules("paragraph"))
    finally:
        state.parentType = parent


# What a link, an image, a raw tag, an autolink, a bare URL or an id needs in inline content: a
# `[`, a `<`, a `:` (scheme), a `{` (attr_list), a `&` (an entity may spell any of these), an `@`
# (a bare e-mail address, GFM's email autolink) or `www.`.
_MAY_MARK = re.compile(r"[\[<:{&@]|www\.")


def holds_no_link(content: str) -> bool:
    """Whether inline content can make no link, image, raw tag, autolink, bare URL or id: when
    the page's text is not wanted either, there is nothing to parse it for."""
    return _MAY_MARK.search(content) is None


#: The inline rules (and post-processing rules) the fast path below was written against.
FAST_INLINE_RULES = (
    "text", "linkify", "www_autolink", "email_autolink", "newline", "escape", "backticks", "strikethrough", "emphasis",
    "link", "image", "autolink", "html_inline", "entity",
)  # fmt: skip
FAST_INLINE_RULES2 = ("balance_pairs", "strikethrough", "emphasis", "fragments_join")

# Text no inline rule acts on: no character any of the rules above starts at (`[` `]` `!`
# `<` `&` `\` backtick `~` `_` `*`, newline), except `:` not followed by `//` (linkify needs
# `scheme://`) and `!` not followed by `[` (an image needs both). markdown-it adds such text
# to its pending text unchanged, whatever it is.
_PROSE_CHAR = r"(?:[^\[\]!<&\\`~_*\n:]|:(?!//)|!(?!\[))"
_PROSE = r"[^\[\]!<&\\`~_*\n:]*(?:(?::(?!//)|!(?!\[))[^\[\]!<&\\`~_*\n:]*)*"  # _PROSE_CHAR*, unrolled
# A code span between single backticks: markdown-it's closer is the next lone backtick.
_CODE = r"`[^`]+`(?!`)"
_LABEL = rf"{_PROSE}(?:{_CODE}{_PROSE})*"
_PLAIN_PIECE = re.compile(
    rf"(?P<text>{_PROSE_CHAR}{_PROSE})"
    rf"|\[(?P<label>{_LABEL})\](?:\((?P<dest>[^\x00-\x20\x7f()\\<]+)\)|\[(?P<ref>{_LABEL})\]|(?P<short>)(?![(\[]))"
    r"|<(?P<auto>[a-zA-Z][a-zA-Z0-9+.\-]{1,31}:[^<>\x00-\x20]*)>"
    r"|(?P<newline>\n)[ \t]*"
    r"|(?P<bare>://)"
    r"|`(?P<code>[^`]+)`(?!`)"  # _CODE
    r"|\\(?P<escape>[!-/:-@\[-`{-~])"  # the ASCII punctuation markdown-it unescapes
    r"|\\(?P<break>\n)[ \t]*"
)


def plain_inline(src: str, md: MarkdownIt, env: dict[str, Any]) -> list[Token] | None:
    """The inline tokens of `src` when it is made only of prose, `[text](url)`, `[text][ref]`,
    `[ref]`, `<scheme:url>`, bare `scheme://` URLs, `code`, backslash escapes and line breaks:
    exactly the tokens markdown-it's inline parser makes of it (with our target notes), in one
    regex pass; on link-dense pages that parser is most of the time spent. None for anything
    else (emphasis, raw HTML, entities, images, titles, nested or unusual links and code
    spans), which markdown-it parses.

    `pending` is markdown-it's pending text: what a token push turns into a text token
    first, and where the linkify rule looks for a URL's scheme."""
    if "www." in src and WWW_START.search(src):  # a GitHub `www.` autolink: markdown-it's rules (gfm.py)
        return None
    if "@" in src and EMAIL_HINT.search(src):  # a GitHub e-mail autolink: markdown-it's rules (gfm.py)
        return None
    tokens: list[Token] = []
    pending = ""
    pos, size = 0, len(src)
    while pos < size:
        m = _PLAIN_PIECE.match(src, pos)
        if m is None:
            return None
        kind = m.lastgroup
        if kind == "text":
            pending += m.group()
            pos = m.end()
            continue
        if kind == "bare":
            found = bare_url(md, src, pos, size, pending)
            if found is None:
                pending += m.group()  # no URL here: markdown-it's text goes on
                pos = m.end()
                continue
            url, proto = found
        new: list[Token]
        end = m.end()
        if kind == "newline":  # markdown-it's `newline` rule
            if pending.endswith("  "):
                pending = pending.rstrip(" ")
                new = [Token("hardbreak", "br", 0)]
            else:
                pending = pending[:-1] if pending.endswith(" ") else pending
                new = [Token("softbreak", "br", 0)]
        elif kind == "break":  # a backslash at the end of a line
            new = [Token("hardbreak", "br", 0)]
        elif kind == "escape":  # text_join merges it into the text around it
            char = m.group("escape")
            new = [Token("text_special", "", 0, content=char, markup="\\" + char, info="escape")]
        elif kind == "code":
            content = m.group("code").replace("\n", " ")
            if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
                content = content[1:-1]
            new = [Token("code_inline", "code", 0, content=content, markup="`")]
        else:
            attrs: dict[str, str | int | float]  # a Token's attributes
            if kind == "bare":
                pending = pending[: -len(proto)]
                end = pos + len(url) - len(proto)
                attrs, label, markup = {"href": url}, url, "linkify"
                target = Target(pos - len(proto), end)
            elif kind == "auto":
                url = m.group("auto")
                if not md.validateLink(url):
                    return None
                attrs, label, markup = {"href": url}, url, "autolink"
                target = Target(m.start() + 1, m.end() - 1)
            elif kind == "dest":
                href = unescapeAll(m.group("dest"))
                if not md.validateLink(href):
                    return None
                attrs, label, markup = {"href": href}, m.group("label"), ""
                target = Target(m.start("dest"), m.end("dest"))
            else:  # `[text][ref]`, `[text][]`, `[text]`: a link when `ref` or `text` is defined
                raw = m.group("ref") or m.group("label")
                definition = env.get("references", {}).get(normalizeReference(raw))
                if not definition:
                    return None
                attrs, label, markup = {"href": definition["href"]}, m.group("label"), ""
                if definition["title"]:
                    attrs["title"] = definition["title"]
                target = Target(pos, pos, label=raw, reference=True)
            info = "auto" if markup else ""
            new = [Token("link_open", "a", 1, attrs=attrs, markup=markup, info=info, meta={MARK: target})]
            if kind in ("dest", "ref", "short") and "`" in label:  # prose and code spans
                inner = plain_inline(label, md, env)
                if inner is None:
                    return None
                for token in inner:
                    token.level = 1
                new += inner
            elif label:
                new.append(Token("text", "", 0, level=1, content=label))
            new.append(Token("link_close", "a", -1, markup=markup, info=info))
        if pending:
            tokens.append(Token("text", "", 0, content=pending))
            pending = ""
        tokens += new
        pos = end
    if pending:
        tokens.append(Token("text", "", 0, content=pending))
    return tokens


