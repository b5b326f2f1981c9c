"""The gate: which ranked candidates may be applied without review.

Every candidate stays ranked and is suggested; the confidence says how likely each is right.
What the gate adds is the rule for automatic fixes (`hold_reason`): a confident top candidate
is still held for review when

- it is the home page or a directory page above the dead one (maintainers do redirect there,
  when a page was merged into its section, but so do catch-all redirects), unless the dead
  page's archived text is in it and its content or title agrees;
- it is a section page (a hub: other pages below it) that wins without strong evidence of any
  kind (title, page name, the archived text, a URL rule): hubs share every page's context;
- the archived copy speaks against it: it holds less than half of the dead page's text and
  reads unlike it, and its unique page name and its title do not both agree (a page rewritten
  where it stands keeps both; a look-alike elsewhere, such as a concept page beside the how-to
  the content went to, does not);
- the archived copy speaks for a rival: another page holds clearly more of the dead page's text
  and reads at least as close to it (the title and name say one page, the text another: a
  same-titled page in another part of the site beside the page the content went to);
- a runner-up has every kind of evidence the top candidate has (nothing tells them apart);
- its only evidence is a page name other pages of the site share ("reference", "overview");
- it belongs to another docs site on the dead page's host (`org.github.io/project-js/` for a
  page of `org.github.io/project/`, whose own sitemap or search index says where it ends): a
  sibling project's page often has the same name, title and words (the same guide for another
  language), and content rarely moves to a sibling project while the dead page's site lives.

The reason is kept in the suggestion's evidence (`hold`); `linkfix fix` leaves such links for
review, and the reports say why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

#: Share of the archived copy's specific words a page above the dead one must hold to be
#: taken as the page it was merged into.
MERGED_COVERAGE = 0.9
#: A similarity this high counts as agreement of that kind of evidence.
AGREES = 0.8
#: Below this share of the copy's specific words and this cosine, a page does not hold the
#: dead page's text (the bar `merged_into` asks of content or title).
HOLDS_LITTLE = 0.5
#: A rival holding this much more of the copy's specific words than the top candidate (and
#: reading at least as close to it) is where the archived text went.
HOLDS_MORE = 0.1


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


def hold_reason(top: Scored, others: Sequence[Scored], rules: Sequence[Rule] | None = None) -> str:
    """Why `top` must not be applied without review ('' when nothing speaks against it): the
    first of `rules` (default: RULES) that holds it. The site's own redirect is never held."""
    if "redirect" in evidence_kinds(top.features):
        return ""  # the site's own word
    rivals = [o for o in others if o.key != top.key]
    for _, rule in RULES if rules is None else rules:
        if reason := rule(top, rivals):
            return reason
    return ""


def _above(top: Scored, rivals: Sequence[Scored]) -> str:
    if top.features.get("above") and not merged_into(top.features):
        return "it is a page above the dead one (its section or the home page)"
    return ""


def _weak_hub(top: Scored, rivals: Sequence[Scored]) -> str:
    if top.features.get("hub") and not evidence_kinds(top.features):
        return "it is a section page, and neither its title, its name nor its text agrees strongly"
    return ""


def _copy_disagrees(top: Scored, rivals: Sequence[Scored]) -> str:
    features = top.features
    if not features.get("has_copy"):
        return ""
    if features.get("copy_coverage", 0.0) >= HOLDS_LITTLE or features.get("content_cos", 0.0) >= HOLDS_LITTLE:
        return ""
    kinds = evidence_kinds(features)
    if features.get("name_unique") and {"name", "title"} <= kinds:
        return ""  # rewritten where it stands: its own name and title
    return "the archived copy speaks against it: it holds less than half of the dead page's text"


def _copy_prefers_rival(top: Scored, rivals: Sequence[Scored]) -> str:
    features = top.features
    if not features.get("has_copy"):
        return ""
    coverage, cosine = features.get("copy_coverage", 0.0), features.get("content_cos", 0.0)
    for rival in sorted(rivals, key=lambda o: -o.confidence):
        if (rival.features.get("copy_coverage", 0.0) >= coverage + HOLDS_MORE
                and rival.features.get("content_cos", 0.0) >= cosine):
            return f"the archived copy speaks for {rival.url}: it holds more of the dead page's text and reads as close"
    return ""


def _rival_with_the_same_evidence(top: Scored, rivals: Sequence[Scored]) -> str:
    kinds = evidence_kinds(top.features)
    if kinds:
        for rival in sorted(rivals, key=lambda o: -o.confidence):
            if kinds <= evidence_kinds(rival.features):
                return f"{rival.url} has the same evidence ({', '.join(sorted(kinds))})"
    return ""


def _shared_name_only(top: Scored, rivals: Sequence[Scored]) -> str:
    if evidence_kinds(top.features) == {"name"} and not top.features.get("name_unique"):
        return "only the page name agrees, and it is not known to be the only page of that name"
    return ""


def _sibling_site(top: Scored, rivals: Sequence[Scored]) -> str:
    if top.features.get("sibling_site"):
        return "it is a page of another docs site on the same host"
    return ""


Rule = tuple[str, Callable[[Scored, Sequence[Scored]], str]]

#: The gate's rules, in the order they are asked (the benchmark measures each one, per site).
RULES: tuple[Rule, ...] = (
    ("above", _above),
    ("weak-hub", _weak_hub),
    ("copy-disagrees", _copy_disagrees),
    ("copy-prefers-rival", _copy_prefers_rival),
    ("rival-same-evidence", _rival_with_the_same_evidence),
    ("shared-name-only", _shared_name_only),
    ("sibling-site", _sibling_site),
)
