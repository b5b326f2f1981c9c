"""What the site's own pages call each candidate: the text of their links to it (in-link
anchor text), from the pages a recovery has already read. A renamed page keeps being linked
by its old name ("Install Git") from its siblings long after its title changed ("Setup and
building"), so a sibling's link named exactly like the dead link, or like the dead page's
archived title, points at where that content lives now. No page is fetched for this."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..urls import page_identity, same_site
from .pages import WebPage
from .terms import normal_terms


def link_names(pages: Iterable[WebPage], site_of: str) -> dict[str, set[frozenset[str]]]:
    """Page identity -> the normalised term sets of the link texts pointing at it from the
    content (not the navigation) of the read pages of `site_of`'s site. A page's links to
    itself are left out: its own table of contents says nothing new."""
    names: dict[str, set[frozenset[str]]] = {}
    seen: set[str] = set()
    for page in pages:
        source = page_identity(page.url)
        if not page.ok or source in seen or not same_site(site_of, page.url):
            continue
        seen.add(source)
        for href, text in page.content_links:
            target = page_identity(href)
            terms = frozenset(normal_terms(text))
            if target != source and terms:
                names.setdefault(target, set()).add(terms)
    return names


def dead_names(anchor_text: str, anchor_weak: bool, copy_title: str) -> tuple[frozenset[str], ...]:
    """What the dead page was called: the link's anchor (unless weak: "here", "docs") and the
    archived copy's title (without the site's furniture), as normalised term sets."""
    names = [frozenset(normal_terms(copy_title))]
    if not anchor_weak:
        names.append(frozenset(normal_terms(anchor_text)))
    return tuple(n for n in names if n)


def named_as(names: dict[str, set[frozenset[str]]], url: str, references: Sequence[frozenset[str]]) -> float:
    """1.0 when another page of the site links to `url` with exactly the words of one of the
    references (the dead link's anchor, the archived copy's title), else 0.0."""
    given = names.get(page_identity(url))
    return 1.0 if given and any(ref in given for ref in references if ref) else 0.0
