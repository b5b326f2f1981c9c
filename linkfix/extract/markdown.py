"""Links of a markdown source, with the exact source span of every link target.

markdown-it-py parses (CommonMark + tables, strikethrough, linkify for bare URLs, front
matter). It only tells where blocks are (line maps), so positions are recovered in two steps:

1. A thin wrapper around markdown-it's own inline rules (link, image, autolink, html_inline,
   linkify) and the block rule for reference definitions records, while parsing, where each
   target sits in the text the rule parsed. Destinations are re-read with markdown-it's own
   helpers, so nested brackets, `<...>` destinations, titles and escapes are handled exactly
   as the parser handled them.
2. That text (a block's content: container markers like `> ` and indentation removed) is
   aligned line by line with the source, and every target is verified against the source:
   `text[span.start:span.end] == link.url` always holds for an exactly located link.

Should a target fail that verification, it is still reported, with a zero-width span at the
best guess and a debug log, so that a patch never edits a wrong slice. The one known case is a
raw HTML attribute value that runs over several lines inside a container (`> ` or list
indentation): no slice of the source holds the value, whose lines the markers interrupt.

Speed: markdown-it's inline parser tries every rule at every punctuation mark, and its block
parser tries every block rule on every paragraph. One-line paragraphs and plain inline content
(prose, simple links, autolinks, bare URLs, code spans, escapes) are tokenized by two fast paths
into exactly the tokens markdown-it would make (tests/extract/test_markdown_fast_path.py checks
them against markdown-it's own rules); everything else is parsed by markdown-it.
"""

from __future__ import annotations

import bisect
import functools
import html
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from types import SimpleNamespace
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.common.utils import mdTrim, normalizeReference, unescapeAll
from markdown_it.helpers import parseLinkDestination
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_core.state_core import StateCore
from markdown_it.rules_inline.linkify import SCHEME_RE
from markdown_it.rules_inline.state_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from ..model import Document, Link, LinkKind, Page, Span
from .context import words_around
from .rawhtml import Tag, scan_tags, srcset_urls
from .slug import Heading, heading_ids

log = logging.getLogger(__name__)

#: Page.text is capped: recovery needs the words of a page, not megabytes of them.
TEXT_LIMIT = 200_000

#: Elements and attributes of raw HTML whose values are links.
LINK_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "iframe": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "script": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
}

_MARK = "linkfix"  # key of our notes in token.meta and in the parser env
_NEWLINE = re.compile(r"\r\n?|\n")
_WHITESPACE = re.compile(r"\s+")
_BLANK = re.compile(r"\s")
_ATX_CLOSING = re.compile(r"[ \t]+#+[ \t]*$|^#+[ \t]*$")
# Python-Markdown attr_list: `{: #id .class key=value}` (the colon is optional).
_ATTR_LIST = re.compile(r"\{:?[ ]*([^}\n ][^}\n]*)\}")
_HEADING_ATTR_LIST = re.compile(r"[ ]+\{:?[ ]*([^}\n ][^\n]*)\}[ ]*$")
_ATTR_ID = re.compile(r"(?:^|\s)#([^\s#.}=]+)")
_CLOSE_A = re.compile(r"</a\s*>", re.IGNORECASE)
_ANCHOR_TOKENS = 200  # inline tokens searched for the `</a>` of a raw `<a>`
_TAG = re.compile(r"<[^>]*>")
_MARKERS_AND_SPACE = re.compile(r"[\s>*+\-0-9.)]*")  # a line of container markers and blanks
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)


# --- parsing, with position notes ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Target:
    """Where a rule found a target, in the source string of the rule's state."""

    start: int
    end: int
    label: str = ""  # raw reference label, for reference-style links
    reference: bool = False


@dataclass(frozen=True, slots=True)
class _Definition:
    label: str  # normalized, as markdown-it keys env["references"]
    raw_label: str
    start: int  # offsets of the destination in the normalized source
    end: int
    line: int  # first line of the definition (0-based)


#: Options markdown-it reads with `options.get(name, default)`, set to those defaults: a
#: missing one costs a KeyError inside OptionsDict on every inline block and every link.
_OPTION_DEFAULTS = {
    "store_labels": False,
    "strikethrough_single_tilde": False,
    "inline_definitions": False,
    "alerts": False,
    "tasklists": False,
}


@functools.cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"linkify": True, **_OPTION_DEFAULTS}).enable(["linkify", "table", "strikethrough"])
    # This parser's own helpers (the module markdown-it shares is left alone): link
    # destinations are read by a regex where markdown-it walks them a character at a time.
    md.helpers = SimpleNamespace(
        parseLinkLabel=md.helpers.parseLinkLabel,
        parseLinkDestination=_parse_link_destination,
        parseLinkTitle=md.helpers.parseLinkTitle,
    )
    md.use(front_matter_plugin)
    # Targets are read from the source as written; markdown-it's own normalisation of hrefs
    # (percent-encoding, punycode) is unused work, and the biggest cost on link-dense pages.
    md.normalizeLink = _as_written  # type: ignore[method-assign]
    md.normalizeLinkText = _as_written  # type: ignore[method-assign]
    # Only URLs with a scheme are bare links: `setup.py` or `user@host` in prose are not.
    md.linkify.set({"fuzzy_link": False, "fuzzy_email": False})
    # The inline linkify rule finds `scheme://...` while parsing, where positions are known.
    # The core rule would add only `mailto:x@y` and `//host` (which we do not check) by
    # rescanning all text after parsing, which is most of the time spent on plain prose.
    md.core.ruler.disable("linkify")
    md.core.ruler.at("normalize", _normalize)
    for name in ("link", "image", "autolink", "html_inline", "linkify"):
        rule = md.inline.ruler.__rules__[md.inline.ruler.__find__(name)]
        fn = _linkify if name == "linkify" else rule.fn
        md.inline.ruler.at(name, _tracking_inline(name, fn), {"alt": list(rule.alt)})
    rule = md.block.ruler.__rules__[md.block.ruler.__find__("reference")]
    md.block.ruler.at("reference", _tracking_definition(rule.fn), {"alt": list(rule.alt)})
    if tuple(md.block.ruler.get_active_rules()) == _FAST_BLOCK_RULES:
        md.block.ruler.before("front_matter", "plain_paragraph", _plain_paragraph)
    else:  # the fast path knows these rule sets only: another markdown-it gets the slow one
        log.debug("markdown-it block rules changed; one-line paragraph fast path disabled")
    if (
        tuple(md.inline.ruler.get_active_rules()) == _FAST_INLINE_RULES
        and tuple(md.inline.ruler2.get_active_rules()) == _FAST_INLINE_RULES2
    ):
        md.core.ruler.at("inline", _inline_blocks)
    else:  # the fast path knows these rule sets only: another markdown-it gets the slow one
        log.debug("markdown-it inline rules changed; plain-paragraph fast path disabled")
    return md


def _as_written(url: str) -> str:
    return url


def _normalize(state: StateCore) -> None:
    """markdown-it's `normalize` core rule (CRLF and CR to LF, NUL to U+FFFD) without its
    regex substitution of every LF by itself."""
    src = state.src
    if "\r" in src:
        src = src.replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in src:
        src = src.replace("\0", "\ufffd")
    state.src = src


class _Destination:
    """What markdown-it's parseLinkDestination returns (its callers read these three)."""

    __slots__ = ("ok", "pos", "str")

    def __init__(self, ok: bool, pos: int, text: str) -> None:
        self.ok, self.pos, self.str = ok, pos, text


# The characters markdown-it's destination loop passes over without a second look.
_PLAIN_DESTINATION = re.compile(r"[^\x00-\x20\x7f()\\]*")


def _parse_link_destination(string: str, pos: int, maximum: int) -> Any:
    """markdown-it's parseLinkDestination, with a fast path for the common destination: no
    `<...>`, no parentheses, no backslash. The loop it replaces stops at the first blank,
    control character or unbalanced `)`, which is where such a run ends; anything else is
    handed to markdown-it's own function."""
    if pos >= maximum or string.startswith("<", pos):
        return parseLinkDestination(string, pos, maximum)
    end = _PLAIN_DESTINATION.match(string, pos, maximum).end()
    if end < maximum and string[end : end + 1] in ("(", "\\"):
        return parseLinkDestination(string, pos, maximum)
    if end == pos:
        return _Destination(False, 0, "")
    return _Destination(True, end, unescapeAll(string[pos:end]))


def _linkify(state: StateInline, silent: bool) -> bool:
    """markdown-it's inline linkify rule, except that it hands linkify-it the text up to the
    next blank instead of the whole rest of the block (quadratic on a long line of URLs).
    A URL never contains a blank, so what is matched is the same."""
    if state.linkLevel > 0 or not state.src.startswith("://", state.pos):
        return False
    found = _bare_url(state.md, state.src, state.pos, state.posMax, state.pending)
    if found is None:
        return False
    url, proto = found
    if not silent:
        state.pending = state.pending[: -len(proto)]
        token = state.push("link_open", "a", 1)
        token.attrs = {"href": url}
        token.markup, token.info = "linkify", "auto"
        state.push("text", "", 0).content = url
        token = state.push("link_close", "a", -1)
        token.markup, token.info = "linkify", "auto"
    state.pos += len(url) - len(proto)
    return True


def _bare_url(md: MarkdownIt, src: str, pos: int, limit: int, pending: str) -> tuple[str, str] | None:
    """(URL, its scheme) of a bare URL whose `://` is at `pos`, the scheme being the end of
    the text markdown-it has pending; None if there is none."""
    if pos + 3 > limit or not src.startswith("://", pos):
        return None
    scheme = SCHEME_RE.search(pending)
    if not scheme:
        return None
    proto = scheme.group(1)
    # While a link label is skipped (silent mode) `pending` is stale: the scheme must really
    # be in front of `pos`, and the rule must move forward, or markdown-it raises RuntimeError.
    if not src.startswith(proto, pos - len(proto)):
        return None
    blank = _BLANK.search(src, pos, limit)
    link = md.linkify.match_at_start(src[pos - len(proto) : blank.start() if blank else limit])
    if not link:
        return None
    url = link.url.rstrip("*")  # a trailing '*' belongs to emphasis
    if len(url) <= len(proto) or not md.validateLink(url):
        return None
    return url, proto


# --- fast paths for plain paragraphs --------------------------------------------------------

#: The block rules the one-line paragraph fast path was written against.
_FAST_BLOCK_RULES = (
    "front_matter", "table", "code", "fence", "blockquote", "hr", "list", "reference",
    "html_block", "heading", "lheading", "paragraph",
)  # fmt: skip


def _plain_paragraph(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's `paragraph` rule for the commonest block: one line, starting with an
    ASCII letter, not indented as code, followed by a blank line or the end. No rule before
    `paragraph` takes such a line (each needs a marker character first, an indented line,
    or a second non-blank line), so markdown-it would try and reject them all."""
    line = start_line + 1
    pos = state.bMarks[start_line] + state.tShift[start_line]
    if (
        silent
        or pos >= state.eMarks[start_line]
        or not ("a" <= state.src[pos] <= "z" or "A" <= state.src[pos] <= "Z")
        or state.sCount[start_line] - state.blkIndent >= 4
        or (line < state.lineMax and not state.isEmpty(line))
    ):
        return False
    # What `paragraph` does with a block of one line.
    content = mdTrim(state.getLines(start_line, line, state.blkIndent, False))
    state.line = line
    state.push("paragraph_open", "p", 1).map = [start_line, line]
    token = state.push("inline", "", 0)
    token.content = content
    token.map = [start_line, line]
    token.children = []
    state.push("paragraph_close", "p", -1)
    return True


#: The inline rules (and post-processing rules) the fast path below was written against.
_FAST_INLINE_RULES = (
    "text", "linkify", "newline", "escape", "backticks", "strikethrough", "emphasis",
    "link", "image", "autolink", "html_inline", "entity",
)  # fmt: skip
_FAST_INLINE_RULES2 = ("balance_pairs", "strikethrough", "emphasis", "fragments_join")

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


def _inline_blocks(state: StateCore) -> None:
    """markdown-it's core `inline` rule, but content made only of prose, `[text](url)`,
    `[text][ref]`, `[ref]`, `<scheme:url>`, bare `scheme://` URLs, `code`, backslash escapes and line
    breaks is tokenized here, in one regex pass, into exactly the tokens markdown-it's inline
    parser makes of it (with our target notes): on link-dense pages that parser is most of
    the time spent. Anything else (emphasis, raw HTML, entities, images, titles, nested or
    unusual links and code spans) goes to markdown-it."""
    md, env = state.md, state.env
    for token in state.tokens:
        if token.type == "inline":
            if token.children is None:
                token.children = []
            children = _plain_inline(token.content, md, env)
            if children is None:
                md.inline.parse(token.content, md, env, token.children)
            else:
                token.children.extend(children)


def _plain_inline(src: str, md: MarkdownIt, env: dict[str, Any]) -> list[Token] | None:
    """The inline tokens of `src`, or None when it is not plain (see `_inline_blocks`).

    `pending` is markdown-it's pending text: what a token push turns into a text token
    first, and where the linkify rule looks for a URL's scheme."""
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
            found = _bare_url(md, src, pos, size, pending)
            if found is None:
                pending += m.group()  # no URL here: markdown-it's text goes on
                pos = m.end()
                continue
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
            if kind == "bare":
                url, proto = found
                pending = pending[: -len(proto)]
                end = pos + len(url) - len(proto)
                attrs, label, markup = {"href": url}, url, "linkify"
                target = _Target(pos - len(proto), end)
            elif kind == "auto":
                url = m.group("auto")
                if not md.validateLink(url):
                    return None
                attrs, label, markup = {"href": url}, url, "autolink"
                target = _Target(m.start() + 1, m.end() - 1)
            elif kind == "dest":
                href = unescapeAll(m.group("dest"))
                if not md.validateLink(href):
                    return None
                attrs, label, markup = {"href": href}, m.group("label"), ""
                target = _Target(m.start("dest"), m.end("dest"))
            else:  # `[text][ref]`, `[text][]`, `[text]`: a link when `ref` or `text` is defined
                raw = m.group("ref") or m.group("label")
                definition = env.get("references", {}).get(normalizeReference(raw))
                if not definition:
                    return None
                attrs, label, markup = {"href": definition["href"]}, m.group("label"), ""
                if definition["title"]:
                    attrs["title"] = definition["title"]
                target = _Target(pos, pos, label=raw, reference=True)
            info = "auto" if markup else ""
            new = [Token("link_open", "a", 1, attrs=attrs, markup=markup, info=info, meta={_MARK: target})]
            if kind in ("dest", "ref", "short") and "`" in label:  # prose and code spans
                inner = _plain_inline(label, md, env)
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


#: The character each tracked inline rule starts at; the rule itself rejects any other, and
#: markdown-it tries every rule at every punctuation mark of the text.
_RULE_STARTS = {"link": "[", "image": "!", "autolink": "<", "html_inline": "<", "linkify": ":"}


def _tracking_inline(name: str, rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    marker = _RULE_STARTS[name]

    def tracked(state: StateInline, silent: bool) -> bool:
        if state.src[state.pos] != marker:
            return False
        start, pending, first = state.pos, state.pending, len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent:
            token = next((t for t in state.tokens[first:] if t.type in ("link_open", "image", "html_inline")), None)
            target = _target(name, state, start, pending) if token is not None else None
            if target is not None:
                token.meta[_MARK] = target
        return True

    return tracked


def _target(name: str, state: StateInline, start: int, pending: str) -> _Target | None:
    end = state.pos
    if name == "autolink":
        return _Target(start + 1, end - 1)
    if name == "html_inline":
        return _Target(start, end)
    if name == "linkify":
        scheme = SCHEME_RE.search(pending)
        return _Target(start - len(scheme.group(1)), end) if scheme else None
    return _link_target(state, start + (name == "image"), end, nested=name == "image")


def _link_target(state: StateInline, label_start: int, end: int, *, nested: bool) -> _Target | None:
    """Re-read `[label](dest "title")` / `[label][ref]` the way markdown-it's link rule does."""
    src, limit, helpers = state.src, state.posMax, state.md.helpers
    label_end = helpers.parseLinkLabel(state, label_start, not nested)
    if label_end < 0:
        return None
    pos = label_end + 1
    if pos < limit and src[pos] == "(":
        inline = _inline_destination(src, pos + 1, limit, helpers)
        if inline is not None and inline[2] == end:
            start, stop = inline[0], inline[1]
            if stop - start >= 2 and src[start] == "<" and src[stop - 1] == ">":
                start, stop = start + 1, stop - 1
            return _Target(start, stop)
    label = ""
    if pos < limit and src[pos] == "[":
        second_end = helpers.parseLinkLabel(state, pos)
        if second_end >= 0:
            label = src[pos + 1 : second_end]
    return _Target(label_start, label_start, label=label or src[label_start + 1 : label_end], reference=True)


def _inline_destination(src: str, pos: int, limit: int, helpers: Any) -> tuple[int, int, int] | None:
    """(dest start, dest end, end after ')') of an inline link's parenthesised part."""
    pos = _skip_space(src, pos, limit)
    if pos >= limit:
        return None
    start = stop = pos
    result = helpers.parseLinkDestination(src, pos, limit)
    if result.ok:
        stop = pos = result.pos
        before_title = pos
        pos = _skip_space(src, pos, limit)
        title = helpers.parseLinkTitle(src, pos, limit)
        if pos < limit and before_title != pos and title.ok:
            pos = _skip_space(src, title.pos, limit)
    if pos >= limit or src[pos] != ")":
        return None
    return start, stop, pos + 1


def _skip_space(src: str, pos: int, limit: int) -> int:
    while pos < limit and src[pos] in " \t\n":
        pos += 1
    return pos


def _tracking_definition(rule: Callable[..., bool]) -> Callable[..., bool]:
    def tracked(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        if not rule(state, start_line, end_line, silent):
            return False
        if not silent:
            definition = _definition(state, start_line, state.line)
            if definition is not None:
                state.env.setdefault(_MARK, []).append(definition)
        return True

    return tracked


def _definition(state: StateBlock, first: int, stop: int) -> _Definition | None:
    """Re-read `[label]: dest` from the lines the reference rule consumed."""
    pieces: list[str] = []
    offsets: list[int] = []  # offset of each piece in `string`
    starts: list[int] = []  # offset of each piece in the normalized source
    size = 0
    for line in range(first, stop):
        begin = state.bMarks[line] + state.tShift[line]
        piece = state.src[begin : state.eMarks[line] + 1]
        pieces.append(piece)
        offsets.append(size)
        starts.append(begin)
        size += len(piece)
    string = "".join(pieces)
    pos = 1
    while pos < size and string[pos] != "]":
        pos += 2 if string[pos] == "\\" else 1
    if pos >= size:
        return None
    raw_label = string[1:pos]
    pos = pos + 2  # past "]:"
    while pos < size and string[pos] in " \t\n":
        pos += 1
    result = state.md.helpers.parseLinkDestination(string, pos, size)
    if not result.ok:
        return None
    start, end = pos, result.pos
    if end - start >= 2 and string[start] == "<" and string[end - 1] == ">":
        start, end = start + 1, end - 1
    piece = bisect.bisect_right(offsets, start) - 1
    shift = starts[piece] - offsets[piece]
    return _Definition(normalizeReference(raw_label), raw_label, start + shift, end + shift, first)


# --- the source, and where things are in it -----------------------------------------------


class _Source:
    """The text as given, its lines, and the map from markdown-it's normalized text to it.

    markdown-it turns CRLF/CR into LF and NUL into U+FFFD before parsing; lines are the same,
    so a normalized offset maps to the same line and column of the original.
    """

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.bom = 1 if text.startswith("\ufeff") else 0
        # What markdown-it sees, at the original's offsets (NUL -> U+FFFD keeps lengths).
        self.shadow = text.replace("\0", "\ufffd")
        if "\r" in text:
            self.starts = [self.bom]
            self.ends: list[int] = []
            for m in _NEWLINE.finditer(text, self.bom):
                self.ends.append(m.start())
                self.starts.append(m.end())
            self.ends.append(len(text))
            self.normalized: list[int] = []
            size = 0
            for start, end in zip(self.starts, self.ends):
                self.normalized.append(size)
                size += end - start + 1
        else:  # every line break is one LF: the same lists, from the line lengths
            steps = [len(line) + 1 for line in text[self.bom :].split("\n")]
            self.starts = list(accumulate(steps[:-1], initial=self.bom))
            self.ends = [start + step - 1 for start, step in zip(self.starts, steps)]
            self.normalized = list(accumulate(steps[:-1], initial=0))

    def line_text(self, line: int) -> str:
        return self.shadow[self.starts[line] : self.ends[line]]

    def from_normalized(self, offset: int) -> int:
        line = bisect.bisect_right(self.normalized, offset) - 1
        return self.starts[line] + offset - self.normalized[line]

    def line_of(self, offset: int) -> int:
        return max(0, bisect.bisect_right(self.starts, offset) - 1)

    def span(self, start: int, end: int) -> Span:
        line = self.line_of(start)
        return Span(path=self.path, line=line + 1, column=start - self.starts[line] + 1, start=start, end=end)

    def find_near(self, raw: str, expected: int | None, line: int) -> int | None:
        """The occurrence of `raw` on `line` nearest to `expected`."""
        if line >= len(self.starts):
            return None
        lo, hi = self.starts[line], self.ends[line]
        if expected is not None and lo <= expected and self.shadow.startswith(raw, expected, hi):
            return expected
        if not raw:
            return None
        anchor = lo if expected is None else min(max(expected, lo), hi)
        after = self.shadow.find(raw, anchor, hi)
        before = self.shadow.rfind(raw, lo, min(hi, anchor + len(raw) - 1))
        hits = [h for h in (after, before) if h >= 0]
        return min(hits, key=lambda h: abs(h - anchor)) if hits else None


class _Block:
    """A block's content (what markdown-it parsed inline) aligned with its source lines."""

    def __init__(self, source: _Source, content: str, first_line: int, cursors: dict[int, int]) -> None:
        self.source = source
        self.content = content
        # markdown-it strips a paragraph's content with str.strip(): leading source lines of
        # Unicode whitespace only (\v, \f, U+2028 ...), after any container markers, vanish,
        # so the content starts further down.
        first = content.split("\n", 1)[0]
        if first.strip():
            while (
                first_line + 1 < len(source.starts)
                and first not in source.line_text(first_line)
                and _MARKERS_AND_SPACE.fullmatch(source.line_text(first_line))
            ):
                first_line += 1
        self.first_line = first_line
        self.offsets: list[int] = []  # where each content line starts in `content`
        self.origins: list[int | None] = []  # where it starts in the source, if found
        offset = 0
        for index, piece in enumerate(content.split("\n")):
            line = first_line + index
            self.offsets.append(offset)
            self.origins.append(_align(source, piece, line, cursors))
            offset += len(piece) + 1

    def expected(self, offset: int) -> tuple[int, int | None]:
        """(source line, expected source offset) of a content offset."""
        index = max(0, bisect.bisect_right(self.offsets, offset) - 1)
        origin = self.origins[index]
        return self.first_line + index, None if origin is None else origin + offset - self.offsets[index]

    def locate(self, raw: str, offset: int) -> tuple[int, int] | None:
        """Source span where `raw`, found at `offset` of the content, is written."""
        line, expected = self.expected(offset)
        if "\n" in raw:
            return self._locate_lines(raw, line, expected)
        found = self.source.find_near(raw, expected, line)
        if found is not None:
            return found, found + len(raw)
        if "|" in raw:
            # In table cells markdown-it drops the backslash of `\|` before parsing the cell.
            written = raw.replace("|", "\\|")
            found = self.source.find_near(written, expected, line)
            if found is not None:
                return found, found + len(written)
        return None

    def _locate_lines(self, raw: str, line: int, expected: int | None) -> tuple[int, int] | None:
        """A value that spans lines (a quoted raw HTML attribute): its first line is found
        on `line`, the rest must follow in the source as written (any line break style)."""
        first = raw[: raw.index("\n")]
        start = self.source.find_near(first, expected, line) if first else expected
        if start is None:
            return None
        written = re.compile(r"(?:\r\n?|\n)".join(map(re.escape, raw.split("\n"))))
        m = written.match(self.source.shadow, start)
        return (start, m.end()) if m else None


def _line_ends(text: str) -> Iterable[int]:
    """Where a content line may end in its source line: at the end, before trailing blanks,
    before an ATX heading's closing `#`s."""
    yield len(text)
    stripped = text.rstrip()
    yield len(stripped)
    if stripped.endswith("#"):
        yield len(_ATX_CLOSING.sub("", stripped).rstrip())


def _align(source: _Source, piece: str, line: int, cursors: dict[int, int]) -> int | None:
    """Source offset where a content line starts: content lines are the source line minus
    container markers/indentation in front, and minus trailing blanks or an ATX closing
    sequence behind; table cells sit left to right on their row."""
    if line >= len(source.starts) or not piece:
        return None
    text = source.line_text(line)
    cursor = cursors.get(line, 0)
    column = None
    for end in _line_ends(text):
        if end - len(piece) >= cursor and text.startswith(piece, end - len(piece), end):
            column = end - len(piece)
            break
    if column is None:
        found = text.find(piece, cursor)
        if found < 0:
            # Tabs partly expanded to spaces in front: align on the rest.
            rest = piece.lstrip(" ")
            found = text.find(rest, cursor) if rest else -1
            if found < 0:
                return None
            found -= len(piece) - len(rest)
        column = found
    cursors[line] = column + len(piece)
    return source.starts[line] + column


# --- walking the tokens --------------------------------------------------------------------


@dataclass(slots=True)
class _Found:
    """A link before its page exists (Link needs the finished Page)."""

    url: str
    kind: LinkKind
    start: int
    end: int
    order: int  # where the occurrence is, for document order
    anchor_text: str = ""
    tag: str = ""
    reference: str = ""
    words: tuple[int, int] | None = None  # range of the page text the context is taken around


class _Text:
    """Page text, whitespace-collapsed as it is written, so that positions stay valid."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.space = True

    def add(self, text: str) -> tuple[int, int]:
        if self.size >= TEXT_LIMIT:
            return self.size, self.size
        # Only a blank is both printable and whitespace: most text needs no collapsing.
        if not text.isprintable() or "  " in text:
            text = _WHITESPACE.sub(" ", text)
        if self.space:
            text = text.lstrip(" ")
        text = text[: TEXT_LIMIT - self.size]
        start = self.size
        if text:
            self.parts.append(text)
            self.size += len(text)
            self.space = text.endswith(" ")
        return start, self.size

    def value(self) -> str:
        return "".join(self.parts).rstrip()


@dataclass
class _Walk:
    source: _Source
    env: dict[str, Any]
    text: _Text = field(default_factory=_Text)
    found: list[_Found] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    first_h1: str | None = None
    ids: set[str] = field(default_factory=set)  # raw HTML ids: not seen by Python-Markdown
    attr_ids: set[str] = field(default_factory=set)  # attr_list ids on non-heading elements
    cursors: dict[int, int] = field(default_factory=dict)
    uses: set[str] = field(default_factory=set)  # reference labels used
    # normalized label -> its definitions in document order, with their source spans
    definitions: dict[str, list[tuple[_Definition, int, int]]] = field(default_factory=dict)

    def add(self, found: _Found) -> None:
        self.found.append(found)

    def exact(
        self, raw: str, where: tuple[int, int] | None, what: str, line: int, guess: int | None = None
    ) -> tuple[int, int]:
        """A verified span for `raw`, or a zero-width one at the best guess."""
        if where is not None:
            return where
        if guess is None:
            guess = self.source.starts[min(line, len(self.source.starts) - 1)]
        log.debug("%s:%d: could not locate %s %r exactly", self.source.path, line + 1, what, raw)
        return guess, guess


def extract_markdown(text: str, path: str) -> Document:
    """Every link of a markdown source, each with its exact source span, and its page."""
    source = _Source(text, path)
    env: dict[str, Any] = {}
    tokens = _parser().parse(source.shadow[source.bom :], env)
    walk = _Walk(source=source, env=env)
    _collect_definitions(walk)
    front_title = ""
    heading_level = ""
    for token in tokens:
        if token.type == "front_matter":
            front_title = _front_matter_title(token.content, path)
        elif token.type == "heading_open":
            heading_level = token.tag
        elif token.type == "heading_close":
            heading_level = ""
            walk.text.add(" ")
        elif token.type == "inline" and token.map:
            _inline(walk, token, heading_level)
        elif token.type == "html_block" and token.map:
            _html_block(walk, token)
        elif token.type in ("fence", "code_block"):
            walk.text.add(f" {token.content} ")
        elif token.nesting == -1:
            walk.text.add(" ")
    _unused_definitions(walk)

    ids = heading_ids(walk.headings, reserved=walk.attr_ids)
    page_text = walk.text.value()
    page = Page(
        path=path,
        title=front_title or walk.first_h1 or "",
        text=page_text,
        ids=frozenset(ids) | walk.attr_ids | walk.ids,
    )
    walk.found.sort(key=lambda f: f.order)
    links = tuple(
        Link(
            url=f.url,
            kind=f.kind,
            span=source.span(f.start, f.end),
            page=page,
            anchor_text=f.anchor_text,
            context=words_around(page_text, *f.words) if f.words else "",
            tag=f.tag,
            reference=f.reference,
        )
        for f in walk.found
    )
    return Document(page=page, links=links)


def _front_matter_title(content: str, path: str) -> str:
    try:
        data = yaml.safe_load(content)
    except yaml.YAMLError as exc:
        log.debug("%s: front matter is not valid YAML: %s", path, exc)
        return ""
    title = data.get("title") if isinstance(data, dict) else None
    return str(title).strip() if isinstance(title, (str, int, float)) and not isinstance(title, bool) else ""


def _collect_definitions(walk: _Walk) -> None:
    # The normalized -> original map is exact within a line, and a destination never spans
    # lines, so definition spans need no search.
    for definition in walk.env.get(_MARK, ()):
        start = walk.source.from_normalized(definition.start)
        walk.definitions.setdefault(definition.label, []).append(
            (definition, start, start + definition.end - definition.start)
        )


def _unused_definitions(walk: _Walk) -> None:
    """One link per definition nobody uses (duplicates of a label are never used)."""
    for label, definitions in walk.definitions.items():
        for index, (definition, start, end) in enumerate(definitions):
            if index == 0 and label in walk.uses:
                continue
            walk.add(
                _Found(
                    url=walk.source.text[start:end],
                    kind=LinkKind.REFERENCE,
                    start=start,
                    end=end,
                    order=start,
                    reference=definition.raw_label,
                )
            )


def _inline(walk: _Walk, token: Token, heading_level: str) -> None:
    block = _Block(walk.source, token.content, token.map[0], walk.cursors)
    children = token.children or []
    closes = _link_closes(children)
    custom_id = _take_heading_attributes(children) if heading_level else ""
    text = walk.text
    before = text.size
    index = 0
    while index < len(children):
        child = children[index]
        kind = child.type
        if kind == "link_open":
            close = closes.get(index, len(children))
            anchor = _plain(children[index + 1 : close])
            words = (text.size, text.size + len(anchor))
            target = child.meta.get(_MARK)
            if target is not None:
                _link(walk, block, target, child, anchor, words)
        elif kind == "image":
            alt = _plain(child.children or [])
            words = text.add(alt)
            target = child.meta.get(_MARK)
            if target is not None:
                _link(walk, block, target, child, alt, words, image=True)
        elif kind == "html_inline":
            target = child.meta.get(_MARK)
            if target is not None:
                following = index + 1
                _raw_html(
                    walk,
                    child.content,
                    target.start,
                    block,
                    lambda tag: _alt(tag) if tag.name in ("img", "source") else _until_close_a(children, following),
                )
        elif kind in ("text", "code_inline"):
            text.add(child.content)
            if not heading_level:
                _attr_list_ids(walk, child.content if kind == "text" else "")
        elif kind in ("softbreak", "hardbreak"):
            text.add(" ")
        index += 1
    if heading_level:
        _heading(walk, _plain(children), custom_id, heading_level)
    elif text.size > before:
        text.add(" ")


def _link_closes(children: Sequence[Token]) -> dict[int, int]:
    closes: dict[int, int] = {}
    stack: list[int] = []
    for index, child in enumerate(children):
        if child.type == "link_open":
            stack.append(index)
        elif child.type == "link_close" and stack:
            closes[stack.pop()] = index
    return closes


def _plain(children: Iterable[Token]) -> str:
    """Rendered text of inline tokens: text, code, image alt; markup and raw HTML dropped."""
    parts: list[str] = []
    for child in children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(_plain(child.children or []))
    return _WHITESPACE.sub(" ", "".join(parts)).strip()


def _until_close_a(children: Sequence[Token], start: int) -> str:
    """Rendered text of the siblings up to the next `</a>`: the text of a raw `<a>`.
    Looks a bounded number of tokens ahead, so that thousands of unclosed `<a>` stay linear."""
    for stop in range(start, min(len(children), start + _ANCHOR_TOKENS)):
        if children[stop].type == "html_inline" and _CLOSE_A.match(children[stop].content):
            return _plain(children[start:stop])
    return ""


def _link(
    walk: _Walk,
    block: _Block,
    target: _Target,
    token: Token,
    anchor: str,
    words: tuple[int, int],
    *,
    image: bool = False,
) -> None:
    line, expected = block.expected(target.start)
    order = expected if expected is not None else walk.source.starts[min(line, len(walk.source.starts) - 1)]
    if target.reference:
        label = normalizeReference(target.label)
        definitions = walk.definitions.get(label)
        if not definitions:
            log.debug("%s:%d: reference [%s] has no definition", walk.source.path, line + 1, target.label)
            return
        walk.uses.add(label)
        _, start, end = definitions[0]
        walk.add(
            _Found(
                url=walk.source.text[start:end],
                kind=LinkKind.REFERENCE,
                start=start,
                end=end,
                order=order,
                anchor_text=anchor,
                reference=target.label,
                words=words,
            )
        )
        return
    raw = block.content[target.start : target.end]
    if token.markup == "autolink" and ":" not in raw:
        # An email autolink `<me@example.com>`: its URL (mailto:) is not written anywhere,
        # and mail addresses are not checked.
        return
    where = block.locate(raw, target.start)
    start, end = walk.exact(raw, where, "link target", line)
    if image:
        kind = LinkKind.IMAGE
    elif token.markup == "autolink":
        kind = LinkKind.AUTOLINK
    elif token.markup == "linkify":
        kind = LinkKind.BARE
    else:
        kind = LinkKind.INLINE
    walk.add(
        _Found(
            url=walk.source.text[start:end] if end > start else raw,
            kind=kind,
            start=start,
            end=end,
            order=order,
            anchor_text=anchor,
            words=words,
        )
    )


def _raw_html(
    walk: _Walk, fragment: str, base: int, block: _Block, text_of: Callable[[Tag], str]
) -> None:
    """Links and ids of a raw HTML fragment found at content offset `base` of `block`."""
    for tag in scan_tags(fragment):
        if tag.closing:
            continue
        if tag.name == "img" and tag.get("alt"):
            walk.text.add(f" {html.unescape(tag.get('alt').value)} ")
        for attribute in tag.attributes:
            if attribute.name == "id" or (attribute.name == "name" and tag.name == "a"):
                if attribute.value:
                    walk.ids.add(attribute.value)
            if attribute.name not in LINK_ATTRIBUTES.get(tag.name, ()):
                continue
            if attribute.name == "srcset":
                pieces = [(attribute.start + a, attribute.start + b) for a, b in srcset_urls(attribute.value)]
            else:
                pieces = [(attribute.start, attribute.end)]
            anchor = text_of(tag)
            words = (walk.text.size, walk.text.size)
            for start, end in pieces:
                raw = fragment[start:end]
                line, expected = block.expected(base + start)
                where = block.locate(raw, base + start)
                order = expected if expected is not None else walk.source.starts[min(line, len(walk.source.starts) - 1)]
                span_start, span_end = walk.exact(raw, where, "HTML attribute", line, guess=order)
                walk.add(
                    _Found(
                        url=walk.source.text[span_start:span_end] if span_end > span_start else raw,
                        kind=LinkKind.HTML,
                        start=span_start,
                        end=span_end,
                        order=order,
                        anchor_text=anchor,
                        tag=f"{tag.name}[{attribute.name}]",
                        words=words,
                    )
                )


def _html_block(walk: _Walk, token: Token) -> None:
    content = token.content
    block = _Block(walk.source, content, token.map[0], walk.cursors)

    def text_of(tag: Tag) -> str:
        if tag.name in ("img", "source"):
            return _alt(tag)
        close = _CLOSE_A.search(content, tag.end, tag.end + 4000) if tag.name == "a" else None
        inner = content[tag.end : close.start()] if close else ""
        return _WHITESPACE.sub(" ", html.unescape(_TAG.sub(" ", inner))).strip()

    _raw_html(walk, content, 0, block, text_of)
    walk.text.add(" " + html.unescape(_TAG.sub(" ", _COMMENT.sub(" ", content))) + " ")


def _take_heading_attributes(children: list[Token]) -> str:
    """Remove a trailing `{#id .class}` from a heading's text; return the id it sets."""
    last = children[-1] if children else None
    if last is None or last.type != "text":
        return ""
    m = _HEADING_ATTR_LIST.search(last.content)
    if not m:
        return ""
    last.content = last.content[: m.start()]
    ids = _ATTR_ID.findall(m.group(1))
    return ids[-1] if ids else ""


def _heading(walk: _Walk, text: str, custom_id: str, level: str) -> None:
    walk.headings.append(Heading(text=text, custom_id=custom_id))
    if level == "h1" and walk.first_h1 is None:
        walk.first_h1 = text


def _attr_list_ids(walk: _Walk, text: str) -> None:
    if "{" in text:
        for m in _ATTR_LIST.finditer(text):
            walk.attr_ids.update(_ATTR_ID.findall(m.group(1)))


def _alt(tag: Tag) -> str:
    alt = tag.get("alt")
    return html.unescape(alt.value) if alt else ""
