"""Attribute values: character references decoded as a browser decodes them, with a map back
to raw offsets, and the URLs inside `srcset` and a meta refresh `content`.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from html.entities import html5 as _HTML5_ENTITIES

from ..matching import match_end
from .grammar import _SPACES, _WS

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

    __slots__ = ("_decoded_at", "_raw_at", "text")

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
        (_, end), (raw_start, raw_end) = self._decoded_at[i], self._raw_at[i]
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
        pos = match_end(_SRCSET_SKIP, value, pos)
        if pos >= size:
            return found
        end = match_end(_SRCSET_URL, value, pos)  # value[pos] is no blank: the skip above ends there
        url_end = end
        while url_end > pos and value[url_end - 1] == ",":
            url_end -= 1  # "a.png," has no descriptors; the commas are separators
        if url_end > pos:
            found.append((pos, url_end))
        if url_end == end:  # descriptors follow, up to a comma outside parentheses
            end = match_end(_SRCSET_DESCRIPTORS, value, end)
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
    pos = match_end(_REFRESH_SEPARATOR, content, pos)
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


