"""Answer at the level the content moved to: when the dead page became a section of another
page, the suggestion is that page's section (`page#id`), not its top.

Maintainers who merge a page into another often keep its title as the heading of the part it
became ("Install Git" -> "Setup and building#install-git") and redirect there. A candidate page
is answered at one of its sections when that section's heading names the dead page (the archived
copy's title, else the link's words) better than the page's own title does: the page was not
renamed, the dead one moved into it. The heading that decided is said in the evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .pages import Section
from .rank import Known, set_dice
from .terms import normal_terms

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
