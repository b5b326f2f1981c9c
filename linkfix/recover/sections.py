"""Answer at the level the content moved to: when the dead page became a section of another
page, the suggestion is that page's section (`page#id`), not its top.

Maintainers who merge a page into another often keep its title as the heading of the part it
became ("Install Git" -> "Setup and building#install-git") and redirect there. A candidate page
is answered at one of its sections when that section's heading names the dead page (the archived
copy's title, else the link's words) better than the page's own title does: the page was not
renamed, the dead one moved into it. Else, when exactly one of its sections has the dead page's
name as its id (`settings.html` -> `reference/api.html#settings`, `architecture.html` ->
`internals.html#architecture`: API pages merged into a reference page keep their names as ids,
one-word titles included, which say nothing as headings), it is answered there — unless the
candidate has that name itself, or is titled like it or like the dead page (a page renamed where
it stands keeps its title). The heading that decided is said in the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TypeVar

from ..urls import page_name
from .pages import Section
from .rank import Known, set_dice
from .terms import normal_terms

_SEPARATORS = re.compile(r"[-_\s.]+")
_Answer = TypeVar("_Answer")

#: A heading at least this close (Dice of normalised words) to the dead page's title names it.
SECTION_AGREES = 0.8


def best_section(known: Known, sections: Sequence[Section]) -> tuple[Section, float] | None:
    """The section whose heading is closest to the dead page's title, and how close; None when
    nothing names it (or the title is one word: "Overview" heads sections of many pages)."""
    reference = set(normal_terms(known.copy_title)) if known.copy_title else set(known.anchor_terms)
    if len(reference) < 2:
        return None
    scored = [(set_dice(reference, set(normal_terms(s.heading))), s) for s in sections]
    if not scored:
        return None
    best, section = max(scored, key=lambda pair: pair[0])  # the first of equals: the page's order
    return (section, best) if best >= SECTION_AGREES else None


def moved_to_section(features: Mapping[str, float]) -> bool:
    """Does a section heading name the dead page better than the candidate's title does?"""
    return features.get("heading_sim", 0.0) >= SECTION_AGREES and features.get("heading_sim", 0.0) > max(
        features.get("title_sim", 0.0), features.get("anchor_title", 0.0))


def section_named_like(dead_url: str, sections: Sequence[Section], *, candidate_url: str, candidate_title: str,
                       copy_title: str) -> Section | None:
    """The one section of a candidate whose id is the dead page's name, or None (none, several,
    or the candidate is the dead page renamed: its name, or a title that is the name or the dead
    page's title)."""
    name = _name_key(page_name(dead_url))
    if not name or name == _name_key(page_name(candidate_url)) or name == _name_key(candidate_title):
        return None
    if copy_title and normal_terms(copy_title) == normal_terms(candidate_title):
        return None
    same = [s for s in sections if _name_key(s.id) == name]
    return same[0] if len(same) == 1 else None


def answered_section(by_heading: _Answer | None, by_name: _Answer | None, features: Mapping[str, float]) -> _Answer | None:
    """The section a candidate is answered at: the one whose heading names the dead page when it
    names it better than the page's title does, else the one with the dead page's name."""
    if by_heading is not None and moved_to_section(features):
        return by_heading
    return by_name


def _name_key(text: str) -> str:
    return _SEPARATORS.sub("-", text.lower()).strip("-")
