"""The attributes of one tag, as the scanner reads them: by lower-cased name, the value as
written and where it starts (formats/html)."""

from __future__ import annotations

import re

from .grammar import _ATTR, _LINK_ATTRS
from .values import unescape_attribute

Attributes = dict[str, re.Match[str]]  # lower-cased name -> its match of grammar._ATTR


# The attributes the scanner reads; no other is kept (one tag of 3 million attributes, 27 MB,
# kept them all: 888 MB).
_READ_ATTRS = frozenset({"id", "name", "href", "rel", "alt", "title", "http-equiv", "content", "style", "disabled",
                         *(attr for attrs in _LINK_ATTRS.values() for attr in attrs)})


def _attributes(text: str, start: int, end: int) -> Attributes:
    """The attributes of one tag the scanner reads, by lower-cased name; the first of
    duplicates wins."""
    attrs: Attributes = {}
    for m in _ATTR.finditer(text, start, end):
        name = m[1].lower()
        if name in _READ_ATTRS and name not in attrs:  # (not setdefault: 20% faster, and a tag's attributes are read for every link)
            attrs[name] = m
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


def _value(attrs: Attributes, name: str) -> str:
    return unescape_attribute(_raw_value(attrs.get(name))[0])


def _never_fetched(attrs: Attributes) -> bool:
    """`<link rel=preconnect href=https://host>` names an origin, not a page, and a
    `<link rel=stylesheet disabled>` is never fetched: nothing to check."""
    rel = set(_value(attrs, "rel").lower().split())
    return bool(rel) and (rel <= {"preconnect", "dns-prefetch"} or ("stylesheet" in rel and "disabled" in attrs))
