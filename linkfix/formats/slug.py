"""Heading ids exactly as MkDocs makes them by default.

MkDocs renders markdown with Python-Markdown and its `toc` extension: a heading's slug is
`markdown.extensions.toc.slugify` of its text (`slugify_unicode` keeps letters of any script),
used here as it is, imported on first use (the import costs more than extracting a page).

Ids are unique per page: the ids already present in the document (custom `{#id}` attribute
lists on any element) are taken first; then each heading, in document order, keeps its custom
id or gets its slug, and a slug already taken (or empty) gets `_1`, `_2`, ... appended
(`foo_1` taken -> `foo_2`), as `markdown.extensions.toc.unique` does.

Heading text is the heading's rendered text (inline markup removed, entities decoded), with a
trailing attribute list `{#id .class}` removed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

_NUMBERED = re.compile(r"^(.*)_([0-9]+)$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Heading:
    """A heading as the id rule sees it: its rendered text and its custom id, if any."""

    text: str
    custom_id: str = ""


def slugify(text: str, *, unicode: bool = False, separator: str = "-") -> str:
    """Python-Markdown's `toc.slugify` (or `slugify_unicode` with unicode=True)."""
    return _toc_slugify(unicode)(text, separator)


@functools.cache
def _toc_slugify(unicode: bool) -> Callable[[str, str], str]:
    from markdown.extensions import toc

    return toc.slugify_unicode if unicode else toc.slugify


def unique(slug: str, taken: set[str], skips: dict[str, str] | None = None) -> str:
    """`toc.unique`: `slug`, or `slug_N` with the smallest free N; records it in `taken`.

    toc.unique tries N = 1, 2, ... each time, which is quadratic on a page of 100,000
    headings with the same text. `skips` (kept across calls for one `taken`) remembers, for
    each slug that was taken, the slug its search ended at: every one in between was taken,
    and stays so, so the next search for it starts there."""
    if slug and slug not in taken:
        taken.add(slug)
        return slug
    passed = []
    while slug in taken or not slug:
        passed.append(slug)
        known = skips.get(slug) if skips is not None else None
        if known is not None:
            slug = known
            continue
        m = _NUMBERED.match(slug)
        slug = f"{m.group(1)}_{int(m.group(2)) + 1}" if m else f"{slug}_1"
    if skips is not None:
        for start in passed:
            skips[start] = slug
    taken.add(slug)
    return slug


def heading_ids(
    headings: Iterable[Heading | str],
    *,
    reserved: Iterable[str] = (),
    unicode: bool = False,
) -> list[str]:
    """The id of each heading, in order, as MkDocs' toc extension assigns them.

    `reserved` holds ids that other elements of the page already carry (attribute lists on
    paragraphs, links, ...); custom heading ids are reserved automatically.
    """
    items = [h if isinstance(h, Heading) else Heading(text=h) for h in headings]
    taken = set(reserved) | {h.custom_id for h in items if h.custom_id}
    skips: dict[str, str] = {}
    return [h.custom_id or unique(slugify(h.text, unicode=unicode), taken, skips) for h in items]
