"""The fast pass's anchor text, made from what the scan kept of it when a link is kept."""

from __future__ import annotations

from .grammar import _MARKUP, _MAX_ANCHOR
from .values import _collapse, unescape_attribute

# A link's anchor text as the scan gives it: the text, or the fast pass's raw text of its <a>,
# its alt and title as written (anchor_text makes the text of those).
Anchor = str | tuple[str, str, str]


def anchor_text(anchor: Anchor) -> str:
    """A link's anchor text: as the scan gave it, or from the fast pass's (raw text of the <a>,
    its alt and title as written): that text with its markup dropped (every tag separates words
    here, where the full pass knows inline from block; a tag cut by the end of the slice is
    dropped) and collapsed, else the alt or title. Made only for the links a result keeps (most
    are not): made for every link, it was a large part of the fast pass's time."""
    if isinstance(anchor, str):
        return anchor
    raw, alt, title = anchor
    if "<" in raw:
        cut = raw.rfind("<")
        if cut > raw.rfind(">"):
            raw = raw[:cut]
        raw = _MARKUP.sub(" ", raw)
    return _collapse(raw)[:_MAX_ANCHOR] or _collapse(unescape_attribute(alt) or unescape_attribute(title))
