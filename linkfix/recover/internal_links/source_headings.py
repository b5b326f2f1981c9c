"""What a page's source says of its headings: its title (`# Configuration`), and the headings
that set an id of their own (`## Environment variables { #env-vars }`).

A link written to the id a heading's text makes (`#environment-variables`) is broken once the
heading is given an id of its own (Python-Markdown's attr_list `{ #env-vars }`, or raw HTML
`<h2 id="env-vars">`): the id the text would make exists nowhere. `custom_heading` finds the
heading whose text reads as the missing id, in the page's source; `title` is the page's first h1
(for a page whose title was not read: the ids-only extraction skips it). Pure string work: the
caller reads the file.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ...formats.slug import slugify
from .names import id_key

# An ATX heading ending in an attribute list: `## Text {: #id .class }` (the colon is optional).
_ATX = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*\{:?([^{}]*)\}[ \t]*$")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_ATTR_ID = re.compile(r"(?:^|\s)#([^\s#{}]+)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX_ATTRIBUTES = re.compile(r"[ \t]*\{:?[^{}]*\}[ \t]*$")
_HTML_HEADING = re.compile(r"<h[1-6]\b[^>]*?\bid\s*=\s*[\"']([^\"']+)[\"'][^>]*>(.*?)</h[1-6]\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]*>")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


@dataclass(frozen=True, slots=True, kw_only=True)
class CustomId:
    """A heading whose own id differs from the one its text makes."""

    text: str  # the heading's words
    id: str  # the id it has
    rivals: int = 0  # other headings whose text reads as the same id


def custom_heading(fragment: str, source: str) -> CustomId | None:
    """The heading of `source` (markdown or HTML) whose text makes the id `fragment` but which
    has an id of its own; None when there is none."""
    wanted = id_key(fragment)
    if not wanted:
        return None
    found = [(text, own) for text, own in _headings_with_ids(source)
             if own != fragment and wanted in (id_key(slugify(text)), id_key(text))]
    if not found:
        return None
    text, own = found[0]
    return CustomId(text=text, id=own, rivals=len({o for _, o in found}) - 1)


def title(source: str) -> str:
    """The words of the first `# h1` of a markdown source ('' when it has none)."""
    for line in _outside_code(source):
        h1 = _H1.match(line)
        if h1:
            return _plain(_ATX_ATTRIBUTES.sub("", h1.group(1)))
    return ""


def _headings_with_ids(source: str) -> list[tuple[str, str]]:
    """(text, id) of the headings that set their id, markdown ones outside fenced code."""
    found = []
    for line in _outside_code(source):
        heading = _ATX.match(line)
        if heading:
            ids = _ATTR_ID.findall(heading.group(2))
            if ids:
                found.append((_plain(heading.group(1)), ids[-1]))
    found += [(_plain(text), own) for own, text in _HTML_HEADING.findall(source)]
    return [(text, own) for text, own in found if text]


def _outside_code(source: str) -> Iterator[str]:
    """The lines of a markdown source that are not in fenced code."""
    fence = ""
    for line in source.splitlines():
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        yield line


def _plain(markup: str) -> str:
    """A heading's words: links as their text, tags and markdown emphasis or code marks dropped."""
    text = _TAG.sub(" ", _LINK.sub(r"\1", markup))
    return " ".join(html.unescape(text).replace("`", " ").replace("*", " ").split())
