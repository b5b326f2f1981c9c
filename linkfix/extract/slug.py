"""Heading ids exactly as MkDocs makes them by default.

MkDocs renders markdown with Python-Markdown and its `toc` extension, whose default
`slugify` is the rule reproduced here:

1. Unicode NFKD normalisation, then drop every non-ASCII character (`žlutý` -> `zluty`);
   with `unicode=True` (the `slugify_unicode` variant) this step is skipped and letters of
   any script survive.
2. Remove every character that is not a word character, whitespace or a hyphen.
3. Strip surrounding whitespace and lowercase.
4. Collapse each run of whitespace and hyphens into one `-`.

Ids are unique per page: the ids already present in the document (custom `{#id}` attribute
lists on any element) are taken first; then each heading, in document order, keeps its custom
id or gets its slug, and a slug already taken (or empty) gets `_1`, `_2`, ... appended
(`foo_1` taken -> `foo_2`), as `markdown.extensions.toc.unique` does.

Heading text is the heading's rendered text (inline markup removed, entities decoded), with a
trailing attribute list `{#id .class}` removed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

_NOT_WORD = re.compile(r"[^\w\s-]")
_NUMBERED = re.compile(r"^(.*)_([0-9]+)$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Heading:
    """A heading as the id rule sees it: its rendered text and its custom id, if any."""

    text: str
    custom_id: str = ""


def slugify(text: str, *, unicode: bool = False, separator: str = "-") -> str:
    """Python-Markdown's `toc.slugify` (or `slugify_unicode` with unicode=True)."""
    if not unicode:
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = _NOT_WORD.sub("", text).strip().lower()
    return re.sub(rf"[{re.escape(separator)}\s]+", separator, text)


def unique(slug: str, taken: set[str]) -> str:
    """`slug`, or `slug_N` with the smallest free N; records the result in `taken`."""
    if slug in taken or not slug:
        m = _NUMBERED.match(slug)
        base, count = (m.group(1), int(m.group(2))) if m else (slug, 0)
        count += 1
        while f"{base}_{count}" in taken:
            count += 1
        slug = f"{base}_{count}"
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
    return [h.custom_id or unique(slugify(h.text, unicode=unicode), taken) for h in items]
