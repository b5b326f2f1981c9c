"""The gate: which ranked candidates may be applied without review.

Every candidate stays ranked and is suggested; the confidence says how likely each is right.
What the gate adds is the rule for automatic fixes (`hold_reason`): a confident top candidate
is still held for review when

- it is the home page or a directory page above the dead one (maintainers do redirect there,
  when a page was merged into its section, but so do catch-all redirects), unless the dead
  page's archived text is in it and its content or title agrees;
- it is a section page (a hub: other pages below it) that wins without strong evidence of any
  kind (title, page name, the archived text, a URL rule): hubs share every page's context;
- only its URL speaks for it (its name, a URL rule) and the archived copy speaks against it:
  it holds less than half of the dead page's text, and another candidate holds all of it;
- a runner-up has every kind of evidence the top candidate has (nothing tells them apart);
- a runner-up has the same title as the archived copy and reads more like it (the title, the
  deciding evidence, is shared, and the copy's text is split between them: one holds more of
  its words, the other reads more alike, as a section page and the page carved out of it do);
- its only evidence is a page name other pages of the site share ("reference", "overview").

The reason is kept in the suggestion's evidence (`hold`); `linkfix fix` leaves such links for
review, and the reports say why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: Share of the archived copy's specific words a page above the dead one must hold to be
#: taken as the page it was merged into.
MERGED_COVERAGE = 0.9
#: A similarity this high counts as agreement of that kind of evidence.
AGREES = 0.8
#: Below this share of the copy's specific words and this cosine, a page does not hold the
#: dead page's text (the bar `merged_into` asks of content or title).
HOLDS_LITTLE = 0.5


@dataclass(frozen=True, slots=True, kw_only=True)
class Scored:
    url: str
    key: str  # the page (two URLs of one page share it)
    confidence: float
    features: Mapping[str, float]


def evidence_kinds(features: Mapping[str, float]) -> frozenset[str]:
    """The kinds of strong evidence a candidate has: its name, its title, the archived copy's
    text, a URL rule (a checked or learned rewrite), what the site's own pages call it (they
    link to it by the dead link's name), the dead URL's own redirect."""
    kinds = set()
    if features.get("same_name"):
        kinds.add("name")
    if max(features.get("title_sim", 0.0), features.get("anchor_title", 0.0)) >= AGREES:
        kinds.add("title")
    if features.get("content_cos", 0.0) >= AGREES or features.get("copy_coverage", 0.0) >= MERGED_COVERAGE:
        kinds.add("copy")
    if features.get("rewrite") or features.get("learned"):
        kinds.add("rule")
    if features.get("in_exact"):
        # a sibling page's own link text names it: the site says which of two look-alikes is
        # the page now, which neither its title nor its name can say
        kinds.add("in-links")
    if features.get("redirect"):
        kinds.add("redirect")
    return frozenset(kinds)


def merged_into(features: Mapping[str, float]) -> bool:
    """The page holds the dead page's archived text, and agrees with it in content or title."""
    return features.get("copy_coverage", 0.0) >= MERGED_COVERAGE and (
        features.get("content_cos", 0.0) >= 0.5 or features.get("title_sim", 0.0) >= 0.5
    )


def hold_reason(top: Scored, others: Sequence[Scored]) -> str:
    """Why `top` must not be applied without review ('' when nothing speaks against it)."""
    features = top.features
    kinds = evidence_kinds(features)
    if "redirect" in kinds:
        return ""  # the site's own word
    if features.get("above") and not merged_into(features):
        return "it is a page above the dead one (its section or the home page)"
    if features.get("hub") and not kinds:
        return "it is a section page, and neither its title, its name nor its text agrees strongly"
    rivals = [o for o in others if o.key != top.key]
    if kinds <= {"name", "rule"} and (holder := _holds_the_copy_instead(features, rivals)) is not None:
        return f"only its URL agrees; the archived text is in {holder.url}, not in it"
    if kinds:
        for rival in sorted(rivals, key=lambda o: -o.confidence):
            if kinds <= evidence_kinds(rival.features):
                return f"{rival.url} has the same evidence ({', '.join(sorted(kinds))})"
    if (closer := _same_title_reads_closer(features, rivals)) is not None:
        return f"{closer.url} has the same title and reads more like the archived copy"
    if kinds == {"name"} and not features.get("name_unique"):
        return "only the page name agrees, and it is not known to be the only page of that name"
    return ""


def _holds_the_copy_instead(features: Mapping[str, float], rivals: Sequence[Scored]) -> Scored | None:
    """The rival that holds the dead page's archived text when the top candidate holds little
    of it (None when there is no copy, or the top holds enough)."""
    if not features.get("has_copy"):
        return None
    if features.get("copy_coverage", 0.0) >= HOLDS_LITTLE or features.get("content_cos", 0.0) >= HOLDS_LITTLE:
        return None
    return next((o for o in rivals if o.features.get("copy_coverage", 0.0) >= MERGED_COVERAGE), None)


def _same_title_reads_closer(features: Mapping[str, float], rivals: Sequence[Scored]) -> Scored | None:
    """A rival with the archived copy's title, as the top candidate has, whose text is more
    like the copy's (None when the top has no such title, or reads closest)."""
    if not features.get("title_exact"):
        return None
    cosine = features.get("content_cos", 0.0)
    return next((o for o in rivals if o.features.get("title_exact") and o.features.get("content_cos", 0.0) > cosine), None)
