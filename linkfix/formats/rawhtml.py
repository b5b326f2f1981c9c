"""A small, forgiving scanner for the raw HTML fragments found inside markdown.

It only needs what link extraction needs: tag names, attribute values and the exact offsets of
those values in the fragment, so that a patch can rewrite one attribute value in the markdown
source. A hand-written single pass (no regex backtracking, no DOM) keeps it linear on hostile
input; comments and the bodies of <script>/<style> are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .matching import match_end

_TAG_OPEN = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)")
_ATTR_NAME = re.compile(r"[^\s\"'>/=<]+")
_UNQUOTED = re.compile(r"[^\s>]*")
_SPACE = re.compile(r"\s*")
_RAW_TEXT = frozenset({"script", "style", "textarea", "title"})
_RAW_TEXT_END = {name: re.compile(rf"</{name}", re.IGNORECASE) for name in _RAW_TEXT}


@dataclass(frozen=True, slots=True, kw_only=True)
class Attribute:
    name: str  # lowercased
    value: str  # as written (entities not decoded)
    start: int  # offset of the value in the fragment: fragment[start:end] == value
    end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Tag:
    name: str  # lowercased
    closing: bool
    start: int  # offset of '<'
    end: int  # offset just after '>' (or the end of the fragment for an unterminated tag)
    attributes: tuple[Attribute, ...] = ()

    def get(self, name: str) -> Attribute | None:
        return next((a for a in self.attributes if a.name == name), None)


def scan_tags(fragment: str) -> Iterator[Tag]:
    """Every start/end tag of `fragment`, in order."""
    size = len(fragment)
    pos = 0
    while pos < size:
        lt = fragment.find("<", pos)
        if lt < 0:
            return
        if fragment.startswith("<!--", lt):
            close = fragment.find("-->", lt + 4)
            pos = size if close < 0 else close + 3
            continue
        m = _TAG_OPEN.match(fragment, lt)
        if not m:
            pos = lt + 1
            continue
        tag, pos = _read_tag(fragment, m, lt)
        yield tag
        if tag.name in _RAW_TEXT and not tag.closing:
            # The body of these elements is text, not markup: a '<a' inside a script is no link.
            end_tag = _RAW_TEXT_END[tag.name].search(fragment, pos)
            pos = end_tag.start() if end_tag else size


def _read_tag(fragment: str, m: re.Match[str], lt: int) -> tuple[Tag, int]:
    size = len(fragment)
    pos = m.end()
    attributes: list[Attribute] = []
    while pos < size:
        pos = match_end(_SPACE, fragment, pos)
        if pos >= size:
            break
        ch = fragment[pos]
        if ch == ">":
            pos += 1
            break
        if ch == "<":
            break  # an unterminated tag: let the next tag start here
        if ch == "/":
            pos += 1
            continue
        name = _ATTR_NAME.match(fragment, pos)
        if not name:
            pos += 1  # a stray quote or '=': skip it, as browsers do
            continue
        pos = match_end(_SPACE, fragment, name.end())
        if pos < size and fragment[pos] == "=":
            pos = match_end(_SPACE, fragment, pos + 1)
            if pos < size and fragment[pos] in "\"'":
                quote = fragment[pos]
                close = fragment.find(quote, pos + 1)
                close = size if close < 0 else close
                start, end = pos + 1, close
                pos = min(size, close + 1)
            else:
                start, end = pos, match_end(_UNQUOTED, fragment, pos)
                pos = end
            attributes.append(
                Attribute(name=name.group().lower(), value=fragment[start:end], start=start, end=end)
            )
        else:
            attributes.append(Attribute(name=name.group().lower(), value="", start=pos, end=pos))
    tag = Tag(
        name=m.group(2).lower(), closing=bool(m.group(1)), start=lt, end=pos, attributes=tuple(attributes)
    )
    return tag, pos


_SRCSET_URL = re.compile(r"[^\s,][^\s]*")


def srcset_urls(value: str) -> list[tuple[int, int]]:
    """(start, end) of each image URL in a srcset value, per the HTML candidate-string rules."""
    found: list[tuple[int, int]] = []
    pos = 0
    size = len(value)
    while pos < size:
        m = _SRCSET_URL.search(value, pos)
        if not m:
            break
        start, end = m.start(), m.end()
        # A URL ending in commas has no descriptor; the commas separate candidates.
        while end > start and value[end - 1] == ",":
            end -= 1
        if end > start:
            found.append((start, end))
        if end < m.end():
            pos = m.end()
            continue
        # Skip the descriptors up to the next comma.
        comma = value.find(",", m.end())
        pos = size if comma < 0 else comma + 1
    return found
