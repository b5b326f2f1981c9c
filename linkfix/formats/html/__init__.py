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
are not links, except an `<img>` with no source at all (an empty or missing `src`, no
`srcset`, no `<source srcset>` in its `<picture>`, no lazy-loading `data-src`): it is reported
with an empty URL, the only empty one, which the checker calls broken; `javascript:`,
`mailto:`, `data:` are reported and left to resolution;
`<noscript>` content is parsed (what a client without scripts sees); `<template>` content and
`<iframe>` fallback content are not; a tag that never ends swallows the rest of the file,
as in browsers; only `\n` counts as a line break for `Span.line`.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Sequence
from itertools import repeat

from ...model import Document, Link, Page
from ..context import words_around
from ..css import css_urls
from ..limits import MAX_LINKS, links_left_out
from .anchor import Anchor
from .attributes import Attributes, _attributes, _never_fetched, _raw_value, _value
from .grammar import (
    _ANCHOR_END,
    _FAST,
    _FULL,
    _ID_HINT,
    _INLINE,
    _LAZY_SOURCE,
    _LINK_ATTRS,
    _LINK_LABELS,
    _MARKUP,
    _MAX_ANCHOR,
    _MAX_ANCHOR_SCAN,
    _RAW_TEXT,
    _RAW_TEXT_END,
    _SPACES,
    _URL_HINT,
)
from .scanned import Row, ScannedLinks, link_of_row
from .values import _collapse, _DecodedValue, _refresh_url, _srcset_urls, _unescape_text, unescape_attribute

__all__ = ["Scanned", "document_of_scan", "extract_html", "extract_html_many", "scan_page", "unescape_attribute"]

logger = logging.getLogger(__name__)

# A link seen by the scan, before its Page exists (links refer to their page):
# (start, end, url, tag, anchor text, start and end of its place in the page text).
_Found = tuple[int, int, str, str, Anchor, int, int]


class _Scan:
    """Mutable state of one file's scan; never leaves this module."""

    __slots__ = (
        "anchor",
        "base",
        "dropped",
        "found",
        "h1",
        "h1_piece",
        "ids",
        "length",
        "max_links",
        "picture",
        "pieces",
        "space_pending",
        "template_depth",
        "text",
        "title",
        "want_text",
    )  # fmt: skip

    def __init__(self, text: str, want_text: bool, max_links: int = MAX_LINKS) -> None:
        self.text = text
        self.want_text = want_text
        self.max_links = max_links
        self.dropped = False  # a link was left out: more than max_links
        self.found: list[_Found] = []
        self.ids: set[str] = set()
        self.title: str | None = None
        self.base: str | None = None
        self.template_depth = 0  # inside <template>: inert content, not part of the page
        self.picture: int | None = None  # in a <picture> before its <img>: how many <source srcset> it has
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
            self.element(name, _attributes(self.text, body_start, body_end), tag_end, body_start, body_end)
            return tag_end
        if name == "picture":
            self.picture = 0
        if _ID_HINT.search(self.text, body_start, body_end) or _URL_HINT.search(self.text, body_start, body_end):
            attrs = _attributes(self.text, body_start, body_end)
            self.add_id(attrs)
            if "style" in attrs:
                self.style_links(name, attrs["style"])
        return tag_end

    def add_id(self, attrs: Attributes) -> None:
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
        if name == "style" and not self.template_depth:
            for start, end, url, _ in css_urls(self.text, tag_end, content_end):  # raw text: no references to decode
                self.add_link(self.text[start:end], "style", start, "", url=url)
        if name == "title" and self.title is None and not self.template_depth:
            self.title = _collapse(self.text[tag_end:content_end])
        elif self.want_text and name in ("textarea", "xmp"):
            self.add_text(self.text[tag_end:content_end], markup=False)
        return content_end

    def element(self, name: str, attrs: Attributes, tag_end: int, body_start: int = 0, body_end: int = 0) -> None:
        """Links, ids and <base> of one element that can carry them (`body_start`..`body_end`:
        its attributes, for an <img>)."""
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
        if name == "link" and "rel" in attrs and _never_fetched(attrs):
            return
        if "style" in attrs:
            self.style_links(name, attrs["style"])
        # Element text for <a> (the full pass fills it in at </a>), else alt, else title.
        anchor: Anchor
        if name == "a" and not self.want_text:
            # Made into text only when the link is kept (anchor_text, from scanned.link_of_row):
            # most are not. Sphinx gives most <a> a title.
            anchor = (self.quick_anchor(tag_end), _raw_value(attrs.get("alt"))[0], _raw_value(attrs.get("title"))[0])
        elif "alt" in attrs or "title" in attrs:
            anchor = _collapse(_value(attrs, "alt") or _value(attrs, "title"))
        else:
            anchor = ""
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
        elif name == "source" and self.picture is not None and len(self.found) > first:
            self.picture += 1
        elif name == "img":
            self.sourceless_image(attrs, first, anchor, body_start, body_end)

    def sourceless_image(self, attrs: Attributes, first: int, anchor: Anchor, body_start: int, body_end: int) -> None:
        """An <img> that gave no URL: a broken image for every reader, reported as a link with
        an empty URL (the only empty one the scan reports: check.local calls it broken) on its
        empty `src` or, with none, right after `<img`. Not when its <picture> has a <source
        srcset> for it, nor when a lazy-loading script fills it in (`data-src`, `data-srcset`)."""
        in_picture, self.picture = self.picture, None
        if len(self.found) > first or self.dropped or in_picture or _LAZY_SOURCE.search(self.text, body_start, body_end):
            return
        start = _raw_value(attrs.get("src"))[1]
        self.add_link("", "img[src]", start if start >= 0 else body_start, anchor)

    def style_links(self, name: str, style: re.Match[str]) -> None:
        """The CSS URLs of a `style="..."` attribute (references decoded first, as a browser
        does before the CSS is read)."""
        raw, start = _raw_value(style)
        if "(" not in raw:
            return
        decoded = _DecodedValue(raw) if "&" in raw else None
        for lo, hi, url, _ in css_urls(decoded.text if decoded else raw):
            if decoded is not None:
                lo, hi = decoded.raw_offset(lo), decoded.raw_offset(hi)
            self.add_link(raw[lo:hi], f"{name}[style]", start + lo, "", url=url)

    def quick_anchor(self, tag_end: int) -> str:
        """The fast pass's anchor text, raw: the text up to `</a>` (or the next `<a>`), markup
        and all (`anchor_text` makes the text)."""
        limit = min(len(self.text), tag_end + _MAX_ANCHOR_SCAN)
        end = _ANCHOR_END.search(self.text, tag_end, limit)
        return self.text[tag_end : end.start() if end else limit]

    def refresh(self, attrs: Attributes) -> None:
        if _value(attrs, "http-equiv").strip(_SPACES).lower() != "refresh" or "content" not in attrs:
            return
        raw, start = _raw_value(attrs["content"])
        decoded = _DecodedValue(raw) if "&" in raw else None
        where = _refresh_url(decoded.text if decoded else raw)
        if where is not None:
            self.add_decoded_link(raw, decoded, where[0], where[1], "meta[content]", start, "")

    def add_link(self, raw: str, tag: str, start: int, anchor: Anchor, url: str | None = None) -> None:
        if len(self.found) >= self.max_links:
            self.dropped = True
            return
        here = self.length + 1 if self.space_pending and self.length else self.length
        if url is None:
            url = unescape_attribute(raw)
        self.found.append((start, start + len(raw), url, tag, anchor, here, here))

    def add_decoded_link(
        self, raw: str, decoded: _DecodedValue | None, lo: int, hi: int, tag: str, start: int, anchor: Anchor
    ) -> None:
        """The URL at [lo:hi] of an attribute value (decoded, when it has references)."""
        if decoded is None:
            self.add_link(raw[lo:hi], tag, start + lo, anchor)
        else:
            raw_lo, raw_hi = decoded.raw_offset(lo), decoded.raw_offset(hi)
            self.add_link(raw[raw_lo:raw_hi], tag, start + raw_lo, anchor, url=decoded.text[lo:hi])


def _where(found: _Found) -> int:
    return found[0]


def _scan_fast(scan: _Scan) -> None:
    text, pos, size, match = scan.text, 0, len(scan.text), _FAST.match
    while pos < size:
        m = match(text, pos)
        assert m is not None  # the grammar matches anywhere: at worst a lone `<`, or the end
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
        assert m is not None  # the grammar matches anywhere: at worst a lone `<`
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
Scanned = tuple[str, str, frozenset[str], str, list[Row], bool]


def scan_page(text: str, want_text: bool, max_links: int = MAX_LINKS) -> Scanned:
    scan = _Scan(text, want_text, max_links)
    if want_text:
        _scan_full(scan)
    else:
        _scan_fast(scan)
    page_text = "".join(scan.pieces)
    rows: list[Row] = []
    # Lines are counted forward from the previous link only: on a 10 MB one-line page,
    # looking back to the start of the line for every link would be quadratic.
    line, line_start, counted_to = 1, 0, 0
    for start, end, url, tag, anchor, text_start, text_end in sorted(scan.found, key=_where):  # a srcset may precede its src
        newlines = text.count("\n", counted_to, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", counted_to, start) + 1
        counted_to = start
        context = words_around(page_text, text_start, text_end) if want_text else ""
        rows.append((start, end, line, start - line_start + 1, url, tag, anchor, context))
    return scan.title or scan.h1 or "", page_text, frozenset(scan.ids), scan.base or "", rows, scan.dropped


def document_of_scan(path: str, scanned: Scanned, *, links_on_demand: bool = False) -> Document:
    """The Document of a page scanned by `scan_page` (perhaps in another process), at `path`.
    `links_on_demand`: its links are a ScannedLinks, each made when first asked for (a check
    that keeps only the results of broken links needs few of them)."""
    title, page_text, ids, base, rows, dropped = scanned
    page = Page(path=path, title=title, text=page_text, ids=ids, base=base)
    links: Sequence[Link] = ScannedLinks(path, page, rows) if links_on_demand else tuple(link_of_row(path, page, row) for row in rows)
    logger.debug("%s: %d links, %d ids", path, len(links), len(ids))
    return Document(page=page, links=links, warnings=(links_left_out(len(links)),) if dropped else ())


def extract_html(text: str, path: str, *, want_text: bool = True, max_links: int = MAX_LINKS) -> Document:
    """Every link (the first `max_links`), fragment target and (when `want_text`) the visible
    text of one HTML page.

    Never raises on bad markup: whatever a browser would not read as a tag is text.
    `want_text=False` skips the page text, the h1 title fallback and the contexts, and takes
    an `<a>`'s anchor text from its raw content; about 2.5x faster (the offline checker).
    """
    return document_of_scan(path, scan_page(text, want_text, max_links))


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
        # Imported here: concurrent.futures.process brings multiprocessing, pickle and tempfile,
        # a tenth of the start-up of a one-page check that never starts a pool.
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        texts = [text for text, _ in pages]
        chunk = max(1, len(pages) // (workers * 8))  # small chunks even out one huge page
        try:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                # Documents are built while the workers scan the next pages.
                scanned = pool.map(scan_page, texts, repeat(want_text), chunksize=chunk)
                return [document_of_scan(path, result) for (_, path), result in zip(pages, scanned)]
        except (OSError, BrokenProcessPool) as exc:
            logger.warning("extraction processes failed (%s); extracting in this process", exc)
    return [extract_html(text, path, want_text=want_text) for text, path in pages]
