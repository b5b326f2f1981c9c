"""Links a page may show once a hook that is not run here has rewritten it.

A project hook that rewrites a page's Markdown (`on_page_markdown`) can decide what is a link:
dirty-equals' hook strips options Python-Markdown's fences do not take (```` ```py lint="skip" ````);
rendered without it, the fence is not one, the next fence's closing line opens a code block,
and every link after it is code. Reporting only what this rendering shows would drop those links
silently. So on such a page, a link the CommonMark reading sees (the fences as the author wrote
them) where the rendering shows none is kept too. The check treats it as every link on the page
the hook may change: a working target is ok (a reader is not misled either way), a broken one is
unverified with the hint to run the hook, never broken.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ...formats.markdown import extract_markdown
from ...model import Link, Page


def links_a_rewrite_may_show(text: str, path: str, page: Page, shown: Sequence[Link]) -> list[Link]:
    """The links of the page `text` (file `path`) that the CommonMark reading sees, the
    rendering (`shown`: its links, placed) does not, and the page's rewrite may change."""
    if not page.rewritten_by:
        return []
    spans = sorted((link.span.start, link.span.end) for link in shown if link.span.path == path)
    kept = []
    for link in extract_markdown(text, path, want_text=False).links:
        if _overlaps(spans, link.span.start, link.span.end):
            continue
        candidate = replace(link, page=page)
        if page.rewrites(candidate):  # before where the rewrite starts, this rendering is the build's
            kept.append(candidate)
    return kept


def _overlaps(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) overlaps one of `spans` (sorted), or is the same empty place."""
    return any((s < end and start < e) or (s, e) == (start, end) for s, e in spans)
