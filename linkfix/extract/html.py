"""Links, fragment targets and page text from HTML, with exact source positions.

A DOM parser throws away where things were written, and a patch must edit exactly the bytes
of one attribute value, so this is a scanner over the raw text instead: compiled regexes that
follow the WHATWG tokenizer where it decides what is a tag (quoted `>`, unquoted values,
comments, raw-text elements, an unterminated tag swallowing the rest of the file).
`benchmarks/html_parsers.py` measures it against html.parser, selectolax and lxml.

Two passes, chosen by `want_text`:
- fast (`want_text=False`): one regex skips text, comments and uninteresting tags in C and
  stops only at tags that can carry a link or an `id`; no page text, no contexts.
- full (`want_text=True`): runs of text and ordinary tags, to build the visible text, the
  anchor texts (inline tags do not break words, block tags do) and each link's context.

Positions: `Link.span` covers the attribute value exactly as written (no quotes, entities
still encoded); `Link.url` is the value with character references decoded the way a browser
decodes attributes. A patcher must therefore re-encode (at least `&`) what it writes back.
Leading/trailing whitespace of a URL attribute is outside the span (browsers strip it).

Deliberate choices: empty URLs and `<link rel=preconnect|dns-prefetch>` (origins, not pages)
are not links; `javascript:`, `mailto:`, `data:` are reported and left to resolution;
`<noscript>` content is parsed (what a client without scripts sees); `<template>` content and
`<iframe>` fallback content are not; a tag that never ends swallows the rest of the file,
as in browsers; only `\n` counts as a line break for `Span.line`.
"""

from __future__ import annotations

import html
import logging
import os
import re
from bisect import bisect_right
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import repeat
from html.entities import html5 as _HTML5_ENTITIES

from ..model import Document, Link, LinkKind, Page, Span
from .context import words_around

__all__ = ["extract_html", "extract_html_many", "unescape_attribute"]

logger = logging.getLogger(__name__)

# --- the tokenizer, as regex pieces -------------------------------------------------------
# HTML whitespace is these five characters only; `\s` would also split on U+00A0 and friends.
_WS = r"\t\n\f\r "  # for patterns
_SPACES = "\t\n\f\r "  # for str methods
_TAG_NAME = rf"[a-zA-Z][^{_WS}/>]*+"
# The value after `=`. An unterminated quote must fail the tag (the spec runs it to EOF).
_VALUE = rf"""(?:"[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+|(?=>))"""
# Where a tag ends: the first `>` outside a quoted value. Possessive all the way down, so a
# tag that never ends costs one linear scan, never backtracking.
_TAG_BODY = rf"""(?:[^>"'=]++|=[{_WS}]*+{_VALUE}|["'])*+"""
# The same, refusing an `id` attribute: such tags must reach Python even when their element
# cannot carry a link. `data-id=` also refuses; that only costs a needless attribute parse.
_BODY_WITHOUT_ID = rf"""(?:[^>"'=iI]++|[iI](?![dD][{_WS}]*+=)|=[{_WS}]*+{_VALUE}|["'])*+"""

_COMMENT = r"<!--(?:-?>|.*?--!?>|.*\Z)"
# Inside HTML a CDATA section is a bogus comment ending at the first `>`; like html.parser
# (and XHTML/SVG authors) we run it to `]]>`. Neither reading yields links from inside it.
_CDATA = r"<!\[CDATA\[.*?(?:\]\]>|\Z)"
_BOGUS = r"<[!?][^>]*+(?:>|\Z)"
_BOGUS_END = r"</(?:>|[^a-zA-Z>][^>]*+(?:>|\Z)|\Z)"

# Elements whose tags reach Python in the fast pass: link carriers, raw-text elements (their
# content must be skipped, not scanned) and <template> (its content is not in the document).
_LINK_ATTRS: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "script": ("src",),
    "iframe": ("src",),
    "frame": ("src",),
    "embed": ("src",),
    "track": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "object": ("data",),
}
_LINK_LABELS = {name: tuple((attr, f"{name}[{attr}]") for attr in attrs) for name, attrs in _LINK_ATTRS.items()}
# Content that is never markup. noscript is parsed as markup: a client without scripts (and
# so this checker) sees what is inside it.
_RAW_TEXT = frozenset({"script", "style", "xmp", "iframe", "noembed", "noframes", "title", "textarea"})
_SPECIAL = frozenset({*_LINK_ATTRS, *_RAW_TEXT, "base", "meta", "plaintext", "template"})


def _names_pattern(names: frozenset[str]) -> str:
    """A case-insensitive alternation grouped by first letter, so that sre rejects most tags
    on their first character (measurably faster than `(?i:a|area|...)`)."""
    by_first: dict[str, list[str]] = {}
    for name in sorted(names, key=len, reverse=True):
        by_first.setdefault(name[0], []).append(name[1:])
    branches = []
    for first, rests in sorted(by_first.items()):
        tails = "|".join(_any_case(rest) for rest in rests if rest)
        optional = "?" if "" in rests else ""
        branches.append(_any_case(first) + (f"(?:{tails}){optional}" if tails else ""))
    return "(?:" + "|".join(branches) + ")"


def _any_case(word: str) -> str:
    return "".join(f"[{c.lower()}{c.upper()}]" for c in word)


_SPECIAL_NAMES = _names_pattern(_SPECIAL)
_TEMPLATE = _any_case("template")

# Fast pass: everything the loop `(...)*+` eats stays in C; a match ends at the next tag that
# Python must see (special element, or an element with an id), at a tag that never ends, or
# at the end of the text. Start tags come first among the alternatives: they are most common.
_FAST = re.compile(
    rf"""(?:[^<]++
        |<(?!{_SPECIAL_NAMES}[{_WS}/>]){_TAG_NAME}{_BODY_WITHOUT_ID}>
        |</(?!{_TEMPLATE}[{_WS}/>]){_TAG_NAME}{_TAG_BODY}>
        |{_COMMENT}|{_CDATA}|{_BOGUS}|{_BOGUS_END}
        |<(?![a-zA-Z!?/])
    )*+
    (?:<(?P<name>{_TAG_NAME})(?P<body>{_TAG_BODY})>
      |</(?P<end>{_TEMPLATE})(?=[{_WS}/>]){_TAG_BODY}>
      |(?P<eof><)
      |\Z)""",
    re.S | re.X,
)

# Tags that do not break a word: `foo<b>bar</b>` reads "foobar". Every other tag does.
_INLINE = frozenset(
    "a abbr b bdi bdo cite code data del dfn em font i ins kbd mark q s samp small span strike "
    "strong sub sup time tt u var wbr".split()
)

# Full pass: a run of text, comments and inline tags comes back as one match, and so does a
# run of other ordinary tags (a word break); the tags that matter to links, ids, the title and
# anchor texts come back one at a time.
_FULL_SPECIAL = _SPECIAL | {"h1"}
_FULL = re.compile(
    rf"""(?P<text>(?:[^<]++
        |<(?={_names_pattern(_INLINE - _FULL_SPECIAL)}[{_WS}/>]){_TAG_NAME}{_BODY_WITHOUT_ID}>
        |</(?={_names_pattern(_INLINE - _FULL_SPECIAL)}[{_WS}/>]){_TAG_NAME}{_TAG_BODY}>
        |{_COMMENT}|{_CDATA}|{_BOGUS}|{_BOGUS_END}
        |<(?![a-zA-Z!?/])
    )++)
    |(?P<block>(?:<(?!{_names_pattern(_FULL_SPECIAL)}[{_WS}/>]){_TAG_NAME}{_BODY_WITHOUT_ID}>
        |</(?!{_names_pattern(frozenset({"a", "h1", "template"}))}[{_WS}/>]){_TAG_NAME}{_TAG_BODY}>
        |[{_WS}]++
    )++)
    |<(?P<name>{_TAG_NAME})(?P<body>{_TAG_BODY})>
    |</(?P<end>{_TAG_NAME}){_TAG_BODY}>
    |(?P<eof><)""",
    re.S | re.X,
)
# The markup inside a run of text (same grammar, so it splits the run the same way).
_MARKUP = re.compile(rf"</?{_TAG_NAME}{_TAG_BODY}>|{_COMMENT}|{_CDATA}|{_BOGUS}|{_BOGUS_END}", re.S)

# Group 1 is the name, group 2 the value as written, quotes included.
_ATTR = re.compile(
    rf"""[{_WS}/]*+([^{_WS}/>][^{_WS}/>=]*+)
    (?:[{_WS}]*+=[{_WS}]*+("[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+)?)?""",
    re.X,
)

# For the fast pass's anchor texts: where an <a> ends.
_ANCHOR_END = re.compile(rf"</?[aA](?=[{_WS}/>])")
_MAX_ANCHOR_SCAN = 4000  # characters after <a ...> searched for its end

_ID_HINT = re.compile(rf"[iI][dD][{_WS}]*=")
_MAX_ANCHOR = 500  # characters of element text kept as a link's anchor text
_RAW_TEXT_END = {name: re.compile(rf"</{name}(?=[{_WS}/>])", re.I) for name in _RAW_TEXT}

# --- attribute values ---------------------------------------------------------------------

# Names are capped at 32 characters like html.unescape's, so that `&` + a megabyte of
# letters costs one bounded lookup.
_CHARREF = re.compile(r"&(?:#([0-9]++);?|#[xX]([0-9a-fA-F]++);?|([a-zA-Z][a-zA-Z0-9]{0,31};?))")


def _numeric(match: re.Match[str]) -> str:
    decimal, hexadecimal = match.group(1), match.group(2)
    digits = (decimal if decimal is not None else hexadecimal).lstrip("0") or "0"
    # Past 8 digits it is out of Unicode's range anyway, and int() of a 5000-digit string
    # raises ValueError (the int max-str-digits limit): html.unescape crashes on "&#1111...;".
    code = int(digits, 10 if decimal is not None else 16) if len(digits) <= 8 else 0x110000
    return html.unescape(f"&#{min(code, 0x110000)};")  # the spec's replacements (NUL, C1, ...)


def _named(match: re.Match[str], attribute: bool) -> str:
    ref = match.group(3)
    if ref in _HTML5_ENTITIES:
        if ref.endswith(";"):
            return _HTML5_ENTITIES[ref]
        # A legacy name without ';' right before '=' or an alphanumeric stays literal in an
        # attribute: "?a=1&copy=2" keeps "&copy" (html.unescape would make it "©").
        after = match.string[match.end() : match.end() + 1]
        if attribute and (after == "=" or after.isalnum()):
            return match.group(0)
        return _HTML5_ENTITIES[ref]
    # The longest legacy name it starts with: "&notit" -> "¬it" (in text).
    for cut in range(len(ref) - 1, 1, -1):
        name = ref[:cut]
        if name in _HTML5_ENTITIES:
            following = ref[cut]
            if attribute and (following == "=" or following.isalnum()):
                return match.group(0)
            return _HTML5_ENTITIES[name] + ref[cut:]
    return match.group(0)


def _replace_attr_charref(match: re.Match[str]) -> str:
    return _named(match, True) if match.group(3) is not None else _numeric(match)


def _replace_text_charref(match: re.Match[str]) -> str:
    return _named(match, False) if match.group(3) is not None else _numeric(match)


def unescape_attribute(value: str) -> str:
    """Decode character references as the HTML spec does inside an attribute value."""
    if "&" not in value:
        return value
    return _CHARREF.sub(_replace_attr_charref, value)


def _unescape_text(value: str) -> str:
    """Decode character references as in text content (html.unescape, without its crash)."""
    return _CHARREF.sub(_replace_text_charref, value) if "&" in value else value


class _DecodedValue:
    """An attribute value decoded, mapping offsets in the decoded text back to the raw one,
    so that a URL found in the decoded value (srcset, meta refresh) gets its raw span."""

    __slots__ = ("text", "_decoded_at", "_raw_at")

    def __init__(self, raw: str) -> None:
        pieces: list[str] = []
        # One breakpoint per reference: where it starts in the decoded and in the raw text,
        # and where the text after it starts in both.
        self._decoded_at: list[tuple[int, int]] = [(0, 0)]
        self._raw_at: list[tuple[int, int]] = [(0, 0)]
        pos = decoded = 0
        for m in _CHARREF.finditer(raw):
            pieces.append(raw[pos : m.start()])
            decoded += m.start() - pos
            replacement = _replace_attr_charref(m)
            pieces.append(replacement)
            self._decoded_at.append((decoded, decoded + len(replacement)))
            self._raw_at.append((m.start(), m.end()))
            decoded += len(replacement)
            pos = m.end()
        pieces.append(raw[pos:])
        self.text = "".join(pieces)

    def raw_offset(self, index: int) -> int:
        i = bisect_right(self._decoded_at, (index, len(self.text) + 1)) - 1
        (start, end), (raw_start, raw_end) = self._decoded_at[i], self._raw_at[i]
        if index < end:
            return raw_start  # inside a reference's replacement: the whole reference
        return raw_end + (index - end)


def _collapse(text: str) -> str:
    return " ".join(_unescape_text(text).split())


# --- srcset and meta refresh --------------------------------------------------------------

_SRCSET_SKIP = re.compile(rf"[{_WS},]*+")
_SRCSET_URL = re.compile(rf"[^{_WS}]++")
_SRCSET_DESCRIPTORS = re.compile(r"(?:[^,(]++|\([^)]*+\)?)*+")


def _srcset_urls(value: str) -> list[tuple[int, int]]:
    """(start, end) of each candidate URL, per the spec's "parse a srcset attribute"."""
    found: list[tuple[int, int]] = []
    pos, size = 0, len(value)
    while True:
        pos = _SRCSET_SKIP.match(value, pos).end()
        if pos >= size:
            return found
        end = _SRCSET_URL.match(value, pos).end()
        url_end = end
        while url_end > pos and value[url_end - 1] == ",":
            url_end -= 1  # "a.png," has no descriptors; the commas are separators
        if url_end > pos:
            found.append((pos, url_end))
        if url_end == end:  # descriptors follow, up to a comma outside parentheses
            end = _SRCSET_DESCRIPTORS.match(value, end).end()
        pos = end


_REFRESH_TIME = re.compile(rf"[{_WS}]*+(?:[0-9]++|(?=\.))[0-9.]*+")
_REFRESH_SEPARATOR = re.compile(rf"[{_WS}]*+[;,]?[{_WS}]*+")
_REFRESH_URL_PREFIX = re.compile(rf"[uU][rR][lL][{_WS}]*+=[{_WS}]*+")


def _refresh_url(content: str) -> tuple[int, int] | None:
    """(start, end) of the URL in a meta refresh `content`, per the spec's refresh parsing."""
    time = _REFRESH_TIME.match(content)
    if time is None:
        return None
    pos = time.end()
    if pos < len(content) and content[pos] not in ";," + _SPACES:
        return None  # "5x; url=..." is not a refresh at all
    pos = _REFRESH_SEPARATOR.match(content, pos).end()
    prefix = _REFRESH_URL_PREFIX.match(content, pos)
    if prefix:
        pos = prefix.end()
    start, end = pos, len(content)
    if start < end and content[start] in "\"'":
        start += 1
        closing = content.find(content[start - 1], start)
        end = closing if closing != -1 else end
    while end > start and content[end - 1] in _SPACES:
        end -= 1
    return (start, end) if end > start else None


# --- the scan -----------------------------------------------------------------------------

# A link seen by the scan, before its Page exists (links refer to their page):
# (start, end, url, tag, anchor text, start and end of its place in the page text).
_Found = tuple[int, int, str, str, str, int, int]


def _attributes(text: str, start: int, end: int) -> dict[str, re.Match[str]]:
    """Attributes of one tag by lower-cased name; the first of duplicates wins."""
    attrs: dict[str, re.Match[str]] = {}
    for m in _ATTR.finditer(text, start, end):
        attrs.setdefault(m.group(1).lower(), m)
    return attrs


def _raw_value(m: re.Match[str] | None) -> tuple[str, int]:
    """An attribute's value as written, without quotes, and the offset where it starts."""
    if m is None:
        return "", -1
    value = m.group(2)
    if value is None:
        return "", m.end()
    if value[0] in "\"'":
        return value[1:-1], m.start(2) + 1
    return value, m.start(2)


def _value(attrs: dict[str, re.Match[str]], name: str) -> str:
    return unescape_attribute(_raw_value(attrs.get(name))[0])


def _only_resource_hint(attrs: dict[str, re.Match[str]]) -> bool:
    """`<link rel=preconnect href=https://host>` names an origin, not a page: nothing to check."""
    rel = set(_value(attrs, "rel").lower().split())
    return bool(rel) and rel <= {"preconnect", "dns-prefetch"}


class _Scan:
    """Mutable state of one file's scan; never leaves this module."""

    __slots__ = (
        "text", "want_text", "found", "ids", "title", "base", "template_depth",
        "pieces", "length", "space_pending", "anchor", "h1_piece", "h1",
    )  # fmt: skip

    def __init__(self, text: str, want_text: bool) -> None:
        self.text = text
        self.want_text = want_text
        self.found: list[_Found] = []
        self.ids: set[str] = set()
        self.title: str | None = None
        self.base: str | None = None
        self.template_depth = 0  # inside <template>: inert content, not part of the page
        # Page text (full pass only), built so that `length` is the offset of the next char.
        self.pieces: list[str] = []
        self.length = 0
        self.space_pending = False
        # The open <a>: (index of its first link in `found`, its link count, text offset,
        # index into `pieces`); joining all pieces per anchor would be quadratic.
        self.anchor: tuple[int, int, int, int] | None = None
        self.h1_piece: int | None = None
        self.h1: str | None = None

    def add_text(self, raw: str, *, markup: bool = True) -> None:
        if self.template_depth:
            return
        if markup and "<" in raw:
            raw = _MARKUP.sub("", raw)
        words = _unescape_text(raw).split()
        if raw[:1].isspace():
            self.space_pending = True
        if words:
            if self.space_pending and self.length:
                self.pieces.append(" ")
                self.length += 1
            joined = " ".join(words)
            self.pieces.append(joined)
            self.length += len(joined)
            self.space_pending = raw[-1:].isspace()

    def close_anchor(self) -> None:
        if self.anchor is None:
            return
        first, count, text_start, piece = self.anchor
        self.anchor = None
        words = " ".join("".join(self.pieces[piece:]).split())
        if len(words) > _MAX_ANCHOR:  # an <a> never closed would hold the rest of the page
            words = words[: words.rfind(" ", 0, _MAX_ANCHOR) + 1 or _MAX_ANCHOR].rstrip()
        text_end = min(self.length, text_start + 1 + len(words))
        for index in range(first, first + count):
            start, end, url, tag, anchor, _, _ = self.found[index]
            self.found[index] = (start, end, url, tag, words or anchor, text_start, text_end)

    def start_tag(self, name: str, body_start: int, body_end: int, tag_end: int) -> int:
        """Handle one start tag; return where scanning resumes."""
        if name == "template":
            if not self.template_depth and _ID_HINT.search(self.text, body_start, body_end):
                self.add_id(_attributes(self.text, body_start, body_end))  # the element is in the page
            self.template_depth += 1
            return tag_end
        if name in _RAW_TEXT:
            return self.raw_text(name, body_start, body_end, tag_end)
        if name == "plaintext":  # everything after it is text, to the end of the file
            if self.want_text:
                self.add_text(self.text[tag_end:], markup=False)
            return len(self.text)
        if self.template_depth:
            return tag_end
        if self.want_text:
            if name == "a":
                self.close_anchor()  # an <a> closes the one still open
            if name not in _INLINE:
                self.space_pending = True
            if name == "h1" and self.h1_piece is None:
                self.h1_piece = len(self.pieces)
        if name in _LINK_ATTRS or name == "base" or name == "meta":
            self.element(name, _attributes(self.text, body_start, body_end), tag_end)
        elif _ID_HINT.search(self.text, body_start, body_end):
            self.add_id(_attributes(self.text, body_start, body_end))
        return tag_end

    def add_id(self, attrs: dict[str, re.Match[str]]) -> None:
        value = _value(attrs, "id")
        if value:
            self.ids.add(value)

    def end_tag(self, name: str) -> None:
        if name == "template":
            self.template_depth = max(0, self.template_depth - 1)
            return
        if not self.want_text or self.template_depth:
            return
        if name == "a":
            self.close_anchor()
        elif name == "h1" and self.h1_piece is not None and self.h1 is None:
            self.h1 = " ".join("".join(self.pieces[self.h1_piece :]).split())[:_MAX_ANCHOR]
        if name not in _INLINE:
            self.space_pending = True

    def raw_text(self, name: str, body_start: int, body_end: int, tag_end: int) -> int:
        if not self.template_depth and name in _LINK_ATTRS:
            self.element(name, _attributes(self.text, body_start, body_end), tag_end)
        closing = _RAW_TEXT_END[name].search(self.text, tag_end)
        content_end = closing.start() if closing else len(self.text)
        if name == "title" and self.title is None and not self.template_depth:
            self.title = _collapse(self.text[tag_end:content_end])
        elif self.want_text and name in ("textarea", "xmp"):
            self.add_text(self.text[tag_end:content_end], markup=False)
        return content_end

    def element(self, name: str, attrs: dict[str, re.Match[str]], tag_end: int) -> None:
        """Links, ids and <base> of one element that can carry them."""
        if "id" in attrs:
            self.add_id(attrs)
        if name == "a" and "name" in attrs:
            value = _value(attrs, "name")
            if value:
                self.ids.add(value)
        if name == "base":
            if self.base is None and "href" in attrs:
                self.base = _value(attrs, "href").strip(_SPACES)
            return
        if name == "meta":
            self.refresh(attrs)
            return
        if name == "link" and "rel" in attrs and _only_resource_hint(attrs):
            return
        # Element text for <a> (the full pass fills it in at </a>), else alt, else title.
        anchor = self.quick_anchor(tag_end) if name == "a" and not self.want_text else ""
        if not anchor and ("alt" in attrs or "title" in attrs):
            anchor = _collapse(_value(attrs, "alt") or _value(attrs, "title"))
        first = len(self.found)
        for attr, label in _LINK_LABELS[name]:
            if attr not in attrs:
                continue
            raw, start = _raw_value(attrs[attr])
            if attr == "srcset":
                decoded = _DecodedValue(raw) if "&" in raw else None
                for lo, hi in _srcset_urls(decoded.text if decoded else raw):
                    self.add_decoded_link(raw, decoded, lo, hi, label, start, anchor)
                continue
            # Browsers strip leading/trailing whitespace from URL attributes; an empty
            # value points at the page itself and has nothing to check.
            url = raw.strip(_SPACES)
            if url:
                if len(url) != len(raw):
                    start += len(raw) - len(raw.lstrip(_SPACES))
                self.add_link(url, label, start, anchor)
        if name == "a" and self.want_text and len(self.found) > first:
            self.anchor = (first, len(self.found) - first, self.length, len(self.pieces))

    def quick_anchor(self, tag_end: int) -> str:
        """The fast pass's anchor text: the raw text up to `</a>` (or the next `<a>`) with its
        markup dropped. Reports show it for broken links; it costs ~12% of the fast pass."""
        limit = min(len(self.text), tag_end + _MAX_ANCHOR_SCAN)
        end = _ANCHOR_END.search(self.text, tag_end, limit)
        raw = self.text[tag_end : end.start() if end else limit]
        if "<" in raw:
            # Every tag separates words here (the full pass knows inline from block); a tag
            # cut by the end of the slice is dropped.
            cut = raw.rfind("<")
            if cut > raw.rfind(">"):
                raw = raw[:cut]
            raw = _MARKUP.sub(" ", raw)
        return _collapse(raw)[:_MAX_ANCHOR]

    def refresh(self, attrs: dict[str, re.Match[str]]) -> None:
        if _value(attrs, "http-equiv").strip(_SPACES).lower() != "refresh" or "content" not in attrs:
            return
        raw, start = _raw_value(attrs["content"])
        decoded = _DecodedValue(raw) if "&" in raw else None
        where = _refresh_url(decoded.text if decoded else raw)
        if where is not None:
            self.add_decoded_link(raw, decoded, where[0], where[1], "meta[content]", start, "")

    def add_link(self, raw: str, tag: str, start: int, anchor: str, url: str | None = None) -> None:
        here = self.length + 1 if self.space_pending and self.length else self.length
        if url is None:
            url = unescape_attribute(raw)
        self.found.append((start, start + len(raw), url, tag, anchor, here, here))

    def add_decoded_link(
        self, raw: str, decoded: _DecodedValue | None, lo: int, hi: int, tag: str, start: int, anchor: str
    ) -> None:
        """The URL at [lo:hi] of an attribute value (decoded, when it has references)."""
        if decoded is None:
            self.add_link(raw[lo:hi], tag, start + lo, anchor)
        else:
            raw_lo, raw_hi = decoded.raw_offset(lo), decoded.raw_offset(hi)
            self.add_link(raw[raw_lo:raw_hi], tag, start + raw_lo, anchor, url=decoded.text[lo:hi])


def _scan_fast(scan: _Scan) -> None:
    text, pos, size, match = scan.text, 0, len(scan.text), _FAST.match
    while pos < size:
        m = match(text, pos)
        kind = m.lastgroup
        if kind == "body":
            pos = scan.start_tag(m.group("name").lower(), m.start("body"), m.end("body"), m.end())
        elif kind == "end":
            scan.end_tag("template")
            pos = m.end()
        else:
            return  # end of text, or a tag that never ends: the rest of the file is inside it


def _scan_full(scan: _Scan) -> None:
    text, pos, size, match = scan.text, 0, len(scan.text), _FULL.match
    while pos < size:
        m = match(text, pos)
        kind = m.lastgroup
        if kind == "text":
            scan.add_text(m.group())
            pos = m.end()
        elif kind == "block":
            scan.space_pending = True
            pos = m.end()
        elif kind == "body":
            pos = scan.start_tag(m.group("name").lower(), m.start("body"), m.end("body"), m.end())
        elif kind == "end":
            scan.end_tag(m.group("end").lower())
            pos = m.end()
        else:
            break  # a tag that never ends: the rest of the file is inside it
    scan.close_anchor()


# Everything of one page as plain values (cheap to pickle between processes):
# title, text, ids, base, and per link (start, end, line, column, url, tag, anchor, context).
_Row = tuple[int, int, int, int, str, str, str, str]
_Scanned = tuple[str, str, frozenset[str], str, list[_Row]]


def _scan_page(text: str, want_text: bool) -> _Scanned:
    scan = _Scan(text, want_text)
    if want_text:
        _scan_full(scan)
    else:
        _scan_fast(scan)
    page_text = "".join(scan.pieces)
    rows: list[_Row] = []
    # Lines are counted forward from the previous link only: on a 10 MB one-line page,
    # looking back to the start of the line for every link would be quadratic.
    line, line_start, counted_to = 1, 0, 0
    for start, end, url, tag, anchor, text_start, text_end in sorted(scan.found):  # a srcset may precede its src
        newlines = text.count("\n", counted_to, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", counted_to, start) + 1
        counted_to = start
        context = words_around(page_text, text_start, text_end) if want_text else ""
        rows.append((start, end, line, start - line_start + 1, url, tag, anchor, context))
    return scan.title or scan.h1 or "", page_text, frozenset(scan.ids), scan.base or "", rows


def _document(path: str, scanned: _Scanned) -> Document:
    title, page_text, ids, base, rows = scanned
    page = Page(path=path, title=title, text=page_text, ids=ids, base=base)
    html_kind = LinkKind.HTML
    links = tuple(
        Link(
            url=url,
            kind=html_kind,
            span=Span(path=path, line=line, column=column, start=start, end=end),
            page=page,
            anchor_text=anchor,
            context=context,
            tag=tag,
        )
        for start, end, line, column, url, tag, anchor, context in rows
    )
    logger.debug("%s: %d links, %d ids", path, len(links), len(ids))
    return Document(page=page, links=links)


def extract_html(text: str, path: str, *, want_text: bool = True) -> Document:
    """Every link, fragment target and (when `want_text`) the visible text of one HTML page.

    Never raises on bad markup: whatever a browser would not read as a tag is text.
    `want_text=False` skips the page text, the h1 title fallback and the contexts, and takes
    an `<a>`'s anchor text from its raw content; about 2.5x faster (the offline checker).
    """
    return _document(path, _scan_page(text, want_text))


# Below this much text a process pool costs more than it saves (~0.1 s to start two workers).
_POOL_MIN_CHARS = 4_000_000


def extract_html_many(
    pages: Sequence[tuple[str, str]], *, want_text: bool = False, workers: int | None = None
) -> list[Document]:
    """`extract_html` over many `(text, path)` pages, in `workers` processes when that pays.

    Measured on python3.11-doc (530 pages, 50 M characters) on 2 cores: 2.1-2.6 s instead of
    3.4-4.1 s. Workers send back plain tuples, cheap to pickle; the Documents are built here.
    Small inputs, `workers=1`, or a pool that cannot start or dies: one process, same result.
    Reading files stays with the caller, which knows how to decode them and report failures.
    """
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers > 1 and len(pages) > 1 and sum(len(text) for text, _ in pages) >= _POOL_MIN_CHARS:
        texts = [text for text, _ in pages]
        chunk = max(1, len(pages) // (workers * 8))  # small chunks even out one huge page
        try:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                # Documents are built while the workers scan the next pages.
                scanned = pool.map(_scan_page, texts, repeat(want_text), chunksize=chunk)
                return [_document(path, result) for (_, path), result in zip(pages, scanned)]
        except (OSError, BrokenProcessPool) as exc:
            logger.warning("extraction processes failed (%s); extracting in this process", exc)
    return [extract_html(text, path, want_text=want_text) for text, path in pages]
