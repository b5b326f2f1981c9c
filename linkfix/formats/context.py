"""The words around a link: what recovery uses as the link's local context.

Shared by the markdown and HTML extractors so that both describe a link's surroundings the
same way: up to `words` whitespace-separated words before the link, the link's own text, and up
to `words` words after it, joined by single spaces.
"""

from __future__ import annotations

# Looking further than this many characters per wanted word is never needed for prose, and
# bounds the work on hostile input (one 5 MB line without spaces).
_WINDOW_PER_WORD = 32


def words_around(text: str, start: int, end: int, words: int = 12) -> str:
    """Up to `words` words before and after `text[start:end]`, plus that range's own words.

    Offsets are clamped to the text, so approximate positions are fine. A word cut by the
    window edge is dropped rather than shown half.
    """
    if not text or words < 0:
        return ""
    size = len(text)
    start = max(0, min(start, size))
    end = max(start, min(end, size))
    window = max(1, words) * _WINDOW_PER_WORD
    lo = max(0, start - window)
    hi = min(size, end + window)

    middle = text[start:end].split()
    if not words:
        return " ".join(middle)
    # Split off only the words wanted: when there are more, the rest (with any word the
    # window edge cut) is one piece, dropped.
    before = text[lo:start].rsplit(None, words)
    if len(before) > words:
        before = before[1:]
    else:
        if lo > 0 and before and not text[lo - 1].isspace() and not text[lo].isspace():
            before = before[1:]  # cut by the window edge
        # (no more than `words` are left: all are kept; slicing by len - words wrapped around)
    after = text[end:hi].split(None, words)
    if len(after) > words:
        after = after[:words]
    elif hi < size and after and not text[hi - 1].isspace() and not text[hi].isspace():
        after = after[:-1]
    return " ".join(before + middle + after)
