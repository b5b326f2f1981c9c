"""URLs in CSS: `url(...)` (background images, fonts, `@import url(...)`, cursors, masks) and the
string form of `@import "x.css"`, with the exact place of each in the text.

Read as CSS tokenizes: comments and strings other than an `@import`'s are skipped (`content:
"url(x)"` names no file), a quoted URL runs to its closing quote, an unquoted one to `)` (one
with a blank, a quote or `(` inside is a bad URL, which loads nothing: not reported). Escapes
(`\\29`, `\\)`) are decoded in the URL, not in its span, which covers the URL as written. An
empty `url()` loads nothing and is left out, as lychee does. Everything is matched by possessive
patterns: a megabyte without a closing `)` or quote costs one linear scan.

Who calls: formats/html for `<style>` elements and `style="..."` attributes, and `extract_css`
for a stylesheet file (its links of kind CSS, spans exact as everywhere).
"""

from __future__ import annotations

import re

from ..model import Document, Link, LinkKind, Page, make_span
from .limits import MAX_LINKS, links_left_out

_WS = r"\t\n\f\r "
_ESCAPE = r"\\(?:[0-9a-fA-F]{1,6}[\t\n\f\r ]?|.)"
_TOKENS = re.compile(
    rf"""/\*.*?(?:\*/|\Z)
    |(?<![\w-])[uU][rR][lL]\([{_WS}]*+
        (?:"(?P<double>(?:[^"\\\n]++|{_ESCAPE})*+)"|'(?P<single>(?:[^'\\\n]++|{_ESCAPE})*+)'
          |(?P<bare>(?:[^){_WS}"'(\\]++|{_ESCAPE})*+))[{_WS}]*+\)
    |@[iI][mM][pP][oO][rR][tT][{_WS}]++
        (?:"(?P<idouble>(?:[^"\\\n]++|{_ESCAPE})*+)"|'(?P<isingle>(?:[^'\\\n]++|{_ESCAPE})*+)')
    |"(?:[^"\\\n]++|{_ESCAPE})*+"?|'(?:[^'\\\n]++|{_ESCAPE})*+'?""",
    re.S | re.X,
)
_GROUPS = (("double", "url()"), ("single", "url()"), ("bare", "url()"), ("idouble", "@import"), ("isingle", "@import"))
_ESCAPES = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[\t\n\f\r ]?|(\n)|(.))", re.S)


def css_urls(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, str, str]]:
    """(start, end, url, how) of each URL in `text[start:end]`: `text[start:end]` is the URL
    as written, `url` with its escapes decoded, `how` 'url()' or '@import'."""
    found: list[tuple[int, int, str, str]] = []
    stop = len(text) if end is None else end
    for match in _TOKENS.finditer(text, start, stop):
        for group, how in _GROUPS:
            lo = match.start(group)
            if lo >= 0:
                hi = match.end(group)
                if hi > lo:
                    raw = text[lo:hi]
                    found.append((lo, hi, unescape_css(raw) if "\\" in raw else raw, how))
                break
    return found


def unescape_css(raw: str) -> str:
    """A CSS string or URL with its escapes decoded (`\\28` is `(`; an escaped newline goes)."""
    return _ESCAPES.sub(_unescaped, raw)


def _unescaped(match: re.Match[str]) -> str:
    number, newline, char = match.groups()
    if number is not None:
        code = int(number, 16)
        return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    return "" if newline is not None else char


def extract_css(text: str, path: str, *, max_links: int = MAX_LINKS) -> Document:
    """The links of a stylesheet file (its `url()`s and `@import`s)."""
    page = Page(path=path)
    links: list[Link] = []
    line, line_start, counted_to = 1, 0, 0
    found = css_urls(text)
    for start, end, url, how in found[:max_links]:
        newlines = text.count("\n", counted_to, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", counted_to, start) + 1
        counted_to = start
        links.append(Link(url=url, kind=LinkKind.CSS, span=make_span(path, line, start - line_start + 1, start, end), page=page, tag=how))
    return Document(page=page, links=tuple(links), warnings=(links_left_out(max_links),) if len(found) > max_links else ())
