"""Links of a markdown source, with the exact source span of every link target.

markdown-it-py parses (CommonMark + tables, strikethrough, linkify for bare URLs, front
matter): `parser` builds it, `tracking` notes where each target sits in the text a rule parsed,
`fastpath` tokenizes plain paragraphs without markdown-it's rule loop, `source` maps a block's
content back to the file, `walk` turns the tokens into links, page text and heading ids, and
`sections` cuts very large files so that memory stays bounded.

Limits per file (hostile input stays linear in time and bounded in memory): at most MAX_LINKS
links are kept (the document's `warnings` say so when more were left out), TEXT_LIMIT
characters of page text, and inline content longer than `parser.INLINE_PIECE` characters is
parsed in pieces.
"""

from __future__ import annotations

from typing import Any

from ...model import Document, Link, Page
from ..context import words_around
from ..limits import MAX_LINKS, links_left_out
from ..slug import heading_ids
from .parser import inline_parser, parser
from .sections import section_bounds
from .source import Source
from .walk import TEXT_LIMIT, Walk, finish, walk_tokens

__all__ = ["MAX_LINKS", "TEXT_LIMIT", "extract_markdown"]

def extract_markdown(text: str, path: str, *, want_text: bool = True, max_links: int = MAX_LINKS) -> Document:
    """Every link of a markdown source, each with its exact source span, and its page.

    With `want_text=False` the page text and the links' contexts (which only recovery uses)
    are left empty; links, anchor texts, ids and the title are the same.
    """
    md = parser()
    env: dict[str, Any] = {}
    shadow = text.replace("\0", "\ufffd")
    walk: Walk | None = None
    line_base, line_start = 0, 0
    for start, end in section_bounds(text):
        source = Source(text, path, shadow=shadow, start=start, end=end, line_base=line_base, column_base=start - line_start)
        if walk is None:
            walk = Walk(source=source, env=env, max_links=max_links)
            if not want_text:
                walk.text.limit = 0
        else:
            walk.source, walk.cursors = source, {}
        walk_tokens(walk, md.parse(source.parsed(), env), inline_parser(md, env))
        line_base += len(source.starts) - 1
        if len(source.starts) > 1:
            line_start = source.starts[-1]
    assert walk is not None
    finish(walk)

    ids = heading_ids(walk.headings, reserved=walk.attr_ids)
    page_text = walk.text.value()
    page = Page(
        path=path,
        title=walk.front_title or walk.first_h1 or "",
        text=page_text,
        ids=frozenset(ids) | walk.attr_ids | walk.ids,
    )
    links = tuple(
        Link(
            url=f.url,
            kind=f.kind,
            span=f.span,
            page=page,
            anchor_text=f.anchor_text,
            context=words_around(page_text, *f.words) if f.words and want_text else "",
            tag=f.tag,
            reference=f.reference,
        )
        for f in walk.found
    )
    warnings = (links_left_out(max_links),) if walk.dropped else ()
    return Document(page=page, links=links, warnings=warnings)
