"""Put each rendered link on the place in the source where its target is written.

Python-Markdown keeps no source positions, so a rendered link is matched with a candidate
(`candidates`) by its target: when a target is rendered as many times as it is written, the
n-th rendering is the n-th place (document order is kept by both). When the counts differ (the
same URL in a code sample, a footnote moved to the end, a reference used from two places),
the page is rendered once more with a marker appended to each of those targets: the marker
each rendered link carries names its place exactly.

A rendered link that has no place after this is not written in the page: the caller decides
(made by an extension, or brought in by an include).
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Callable, Sequence

from ...model import Link
from .candidates import key_of

#: Appended to a target for the marked rendering: letters and digits only, so that it stays
#: inside every kind of target (bare URLs included) and nothing escapes or encodes it.
_MARK = "Zlfx{}xflZ"
_MARKED = re.compile(r"Zlfx(\d+)xflZ")

#: Renders marked source text; returns the rendered links' targets, in document order.
Rerender = Callable[[str], Sequence[str]]


def place(rendered: Sequence[Link], found: Sequence[Link], text: str, rerender: Rerender | None = None) -> list[Link | None]:
    """For each rendered link (its `url` as rendered), the candidate it was written as, or None."""
    keys = [link.url.strip() for link in rendered]
    by_key: dict[str, list[int]] = defaultdict(list)
    for index, candidate in enumerate(found):
        by_key[key_of(candidate)].append(index)
    wanted: dict[str, list[int]] = defaultdict(list)
    for index, key in enumerate(keys):
        wanted[key].append(index)

    placed: list[Link | None] = [None] * len(rendered)
    unsure: set[str] = set()
    for key, indices in wanted.items():
        places = by_key.get(key, [])
        if not places:
            continue
        if len(places) == len(indices):
            for index, at in zip(indices, places):
                placed[index] = found[at]
        else:
            unsure.add(key)
    if unsure:
        chosen = _by_markers(keys, found, by_key, unsure, text, rerender) if rerender is not None else None
        for key in unsure:
            indices, places = wanted[key], by_key[key]
            if chosen is None:  # in order, as far as they go
                for index, at in zip(indices, places):
                    placed[index] = found[at]
            else:
                for index in indices:
                    if index in chosen:
                        placed[index] = found[chosen[index]]
    return placed


def _by_markers(keys: list[str], found: Sequence[Link], by_key: dict[str, list[int]], unsure: set[str],
                text: str, rerender: Rerender) -> dict[int, int]:
    """Rendered index -> candidate index, for the links of the `unsure` targets, read from a
    rendering of `text` with a marker after each of their candidate places."""
    spans: dict[tuple[int, int], list[int]] = defaultdict(list)  # a place -> its candidates (uses)
    for key in unsure:
        for at in by_key[key]:
            spans[(found[at].span.start, found[at].span.end)].append(at)
    ordered = sorted(spans)
    pieces, last = [], 0
    for number, (_, end) in enumerate(ordered):
        pieces += [text[last:end], _MARK.format(number)]
        last = end
    pieces.append(text[last:])
    marked_keys: list[str] = []
    marks: list[int | None] = []
    for url in rerender("".join(pieces)):
        numbers = _MARKED.findall(url)
        marked_keys.append(_MARKED.sub("", url).strip())
        marks.append(int(numbers[0]) if numbers else None)
    chosen: dict[int, int] = {}
    uses: dict[tuple[int, int], int] = defaultdict(int)
    matcher = difflib.SequenceMatcher(None, keys, marked_keys, autojunk=False)
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            index, mark = block.a + offset, marks[block.b + offset]
            if mark is None or mark >= len(ordered) or keys[index] not in unsure:
                continue
            where = ordered[mark]
            candidates = spans[where]
            chosen[index] = candidates[min(uses[where], len(candidates) - 1)]
            uses[where] += 1
    return chosen
