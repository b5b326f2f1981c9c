"""What one file's walk over markdown-it's tokens has found so far: the links (`Found`, before
their page exists), the page text (`PageText`) and the ids and headings (`Walk`), with the
verified spans `Walk.exact` gives."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from ...model import LinkKind, Span
from ..slug import Heading
from .source import Source
from .tracking import Definition

log = logging.getLogger(__name__.rpartition(".")[0] + ".walk")  # part of the walk: its messages go out under the walk's name

#: Page.text is capped: recovery needs the words of a page, not megabytes of them.
TEXT_LIMIT = 200_000

_WHITESPACE = re.compile(r"\s+")


@dataclass(slots=True)
class Found:
    """A link before its page exists (Link needs the finished Page)."""

    url: str
    kind: LinkKind
    span: Span
    order: int  # where the occurrence is, for document order
    anchor_text: str = ""
    tag: str = ""
    reference: str = ""
    words: tuple[int, int] | None = None  # range of the page text the context is taken around


class PageText:
    """Page text, whitespace-collapsed as it is written, so that positions stay valid."""

    def __init__(self, *, limit: int = TEXT_LIMIT) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.space = True
        self.limit = limit  # 0: no page text wanted

    def add(self, text: str) -> tuple[int, int]:
        if self.size >= self.limit:
            return self.size, self.size
        # Only a blank is both printable and whitespace: most text needs no collapsing.
        if not text.isprintable() or "  " in text:
            text = _WHITESPACE.sub(" ", text)
        if self.space:
            text = text.lstrip(" ")
        text = text[: self.limit - self.size]
        start = self.size
        if text:
            self.parts.append(text)
            self.size += len(text)
            self.space = text.endswith(" ")
        return start, self.size

    def value(self) -> str:
        return "".join(self.parts).rstrip()


@dataclass
class Walk:
    """What one file's walk has found so far (the file may be walked in several sections)."""

    source: Source
    env: dict[str, Any]
    max_links: int
    text: PageText = field(default_factory=PageText)
    dropped: bool = False  # a link was left out: the file has more than `max_links`
    found: list[Found] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    first_h1: str | None = None
    front_title: str = ""
    ids: set[str] = field(default_factory=set)  # raw HTML ids: not seen by Python-Markdown
    attr_ids: set[str] = field(default_factory=set)  # attr_list ids on non-heading elements
    cursors: dict[int, int] = field(default_factory=dict)
    uses: set[str] = field(default_factory=set)  # reference labels used
    # normalized label -> its definitions in document order, with their source spans
    definitions: dict[str, list[tuple[Definition, Span]]] = field(default_factory=dict)

    @property
    def full(self) -> bool:
        return len(self.found) >= self.max_links

    def add(self, found: Found) -> None:
        if self.full:
            self.dropped = True
            return
        self.found.append(found)

    def exact(
        self, raw: str, where: tuple[int, int] | None, what: str, line: int, guess: int | None = None
    ) -> tuple[int, int]:
        """A verified span for `raw`, or a zero-width one at the best guess."""
        if where is not None:
            return where
        if guess is None:
            guess = self.source.starts[min(line, len(self.source.starts) - 1)]
        log.debug("%s:%d: could not locate %s %r exactly", self.source.path, line + 1, what, raw)
        return guess, guess
