"""A scanned HTML page's links, each made only when it is asked for.

An offline check of a built site keeps no record of a link that works (check.gather): on
python3.11-doc, 175k links of which a handful are kept. Making a Link and its Span for each of
them was a fifth of the checking process's time (issue 26); the check reads a scanned page's
URLs straight from its rows (`resolved`) and makes the Link of a row only when a result is
kept (`links[i]`). Anything else that iterates the links gets them all, made once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from sys import intern
from typing import Any, TypeVar, overload

from ...model import Link, LinkKind, Page, make_link, make_span
from .anchor import Anchor, anchor_text

T = TypeVar("T")

# Per link: (start, end, line, column, url, tag, anchor text, context), as html.scan_page gives it.
Row = tuple[int, int, int, int, str, str, Anchor, str]


def link_of_row(path: str, page: Page, row: Row) -> Link:
    """The Link of one row of the page at `path`."""
    start, end, line, column, url, tag, anchor, context = row
    if not isinstance(anchor, str):  # made for the links kept only (most are not)
        anchor = anchor_text(anchor)
    # One string per repeated URL and anchor text: a site repeats its URLs and anchor texts on
    # every page (its navigation, its index), and one string each, not one per link, keeps a
    # third of them (python3.11-doc: 55k distinct URLs and 31k anchor texts among 175k links,
    # ~17 MB of 160) and lets copies of a site share them. make_link and make_span: Link(...)
    # and Span(...) without the dataclass __init__.
    # A <style> element's text is CSS (no references decoded); everything else an attribute.
    kind = LinkKind.CSS if tag == "style" else LinkKind.HTML
    return make_link(intern(url), kind, make_span(path, line, column, start, end), page, intern(anchor), context, tag)


class ScannedLinks(Sequence[Link]):
    """The links of the page at `path` (its Page `page`), from its scan's `rows`."""

    __slots__ = ("_made", "_page", "_path", "_rows")

    def __init__(self, path: str, page: Page, rows: Sequence[Row]) -> None:
        self._path = path
        self._page = page
        self._rows = rows
        self._made: list[Link | None] = [None] * len(rows)

    def resolved(self, resolve: Callable[[str, bool], T]) -> list[T]:
        """`resolve(url, as_written)` of each link, without making the Links: `as_written`,
        whether MkDocs leaves it as written, is true of raw HTML with a place in the source
        (every scanned link has one)."""
        return [resolve(row[4], row[0] != row[1]) for row in self._rows]

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> Link: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Link, ...]: ...

    def __getitem__(self, index: int | slice) -> Link | tuple[Link, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self._rows))))
        link = self._made[index]
        if link is None:
            link = self._made[index] = link_of_row(self._path, self._page, self._rows[index])
        return link

    def __iter__(self) -> Iterator[Link]:
        return (self[i] for i in range(len(self._rows)))

    # A Document compares and hashes by its links' values: as the tuple of them would.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"ScannedLinks({self._path!r}, {len(self._rows)} links)"

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (a worker, the cache) as the plain tuple
        return tuple, (tuple(self),)
