"""Where link targets are written in a page's source: the candidates a rendered link is placed on.

The CommonMark reader finds targets with exact spans (escapes, entities, reference
definitions, raw HTML attributes, bare URLs). Python-Markdown's block extensions indent their
content by four spaces (`!!! note`, `=== "Tab"`, `??? tip`, ...), which CommonMark reads as an
indented code block; so the reader also runs over a *shadow* of the text in which every
four-column step of indentation starts with `>`: the same offsets, the content now a block
quote, its links visible. What no reader sees (a link Python-Markdown accepts and CommonMark
does not, e.g. a target with spaces) is found by `search`, by the text of the target itself.

Candidates are more than the rendered links (code samples, unused definitions): the placing
(`place`) keeps only those that match a rendered link.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ...formats.markdown import extract_markdown
from ...formats.markdown.targets import markdown_target
from ...model import Dialect, Link, LinkKind

_INDENT = re.compile(r"[ \t]*")
# A line after which an indented line starts a code block for CommonMark (not a paragraph
# that the indented line would continue): ATX headings, fences, thematic breaks.
_ENDS_BLOCK = re.compile(r"[ ]{0,3}(?:#{1,6}(?:[ \t]|$)|```|~~~|(?:[-*_][ \t]*){3,}$)")


def shadow(text: str) -> str:
    """`text` with the indentation of the lines CommonMark would read as an indented code block
    turned into block quote markers, one per four columns (offsets unchanged). An indented line
    that continues a paragraph (a footnote's second line) is left alone: CommonMark reads it."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    state = "blank"  # blank, text (a paragraph goes on), code (an indented block goes on)
    for line in lines:
        indent = _INDENT.match(line).group()  # type: ignore[union-attr]
        if not line.strip():
            state = "blank"
            out.append(line)
        elif _columns(indent) < 4:
            state = "block" if _ENDS_BLOCK.match(line) else "text"
            out.append(line)
        elif state == "text":
            out.append(line)
        else:
            state = "code"
            out.append(_quoted(indent) + line[len(indent):])
    return "".join(out)


def _columns(indent: str) -> int:
    columns = 0
    for char in indent:
        columns += 4 - columns % 4 if char == "\t" else 1
    return columns


def _quoted(indent: str) -> str:
    """`indent` with a `>` at the start of each four columns (a tab is four columns)."""
    out, column = [], 0
    for index, char in enumerate(indent):
        width = 4 - column % 4 if char == "\t" else 1
        out.append(">" if column % 4 == 0 and _columns(indent[index:]) + column % 4 >= 4 else char)
        column += width
    return "".join(out)


def key_of(link: Link) -> str:
    """The target as Python-Markdown renders it (its escapes and the references decoded, as for
    the link's kind), to compare a candidate with a rendered link."""
    return markdown_target(link.url, link.kind, Dialect.PYTHON_MARKDOWN).strip()


def candidates(text: str, path: str) -> list[Link]:
    """Every link target the CommonMark reader finds in the shadow of `text`, each place once
    per use (a reference definition used twice is two candidates with one span)."""
    found = extract_markdown(shadow(text), path, want_text=False).links
    return sorted((link for link in found if _exact(text, link)), key=lambda link: link.span.start)


def _exact(text: str, link: Link) -> bool:
    return link.span.start < link.span.end and text[link.span.start : link.span.end] == link.url


@dataclass(frozen=True, slots=True)
class Spot:
    """A target found by its text: where, and how it is written there."""

    start: int
    end: int
    kind: LinkKind


_KIND_BEFORE = (
    (re.compile(r"!\[[^\]\n]*\]\(\s*<?$"), LinkKind.IMAGE),
    (re.compile(r"\]\(\s*<?$"), LinkKind.INLINE),
    (re.compile(r"^[ \t>]*\[[^\]\n]+\]:[ \t]*<?$", re.MULTILINE), LinkKind.REFERENCE),
    (re.compile(r"=[ \t]*[\"']?$"), LinkKind.HTML),
    (re.compile(r"<$"), LinkKind.AUTOLINK),
)


_SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")


def search(text: str, url: str, *, start: int = 0, taken: set[tuple[int, int]] | frozenset[tuple[int, int]] = frozenset()) -> Spot | None:
    """The first place after `start` where `url` (as rendered) is written as a link target:
    spelled as it renders, with `&` as `&amp;`, or (for `mailto:`) as the bare address."""
    spellings = [url, html.escape(url, quote=False)]
    if url.startswith("mailto:"):
        spellings.append(url[len("mailto:") :])
    for spelling in dict.fromkeys(s for s in spellings if s):
        for at in _occurrences(text, spelling, start):
            if (at, at + len(spelling)) in taken:
                continue
            line_start = text.rfind("\n", 0, at) + 1
            before = text[line_start:at]
            for pattern, kind in _KIND_BEFORE:
                if pattern.search(before):
                    return Spot(at, at + len(spelling), kind)
            if _SCHEME.match(url) and (not before or before[-1].isspace() or before[-1] in "(*_"):
                return Spot(at, at + len(spelling), LinkKind.BARE)  # linkified by an extension (magiclink)
    return None


def _occurrences(text: str, needle: str, start: int) -> Iterator[int]:
    at = text.find(needle, start)
    while at >= 0:
        yield at
        at = text.find(needle, at + 1)
