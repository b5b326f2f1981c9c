"""Why a suggestion is believed, in words a person reads ("same title as the archived copy",
"93% of the archived text", "learned rule /v1/*.html -> /reference/*/"), and how sure it is.

Reads a candidate's `evidence` as recovery writes it (the `features` it was scored on, the URL
rule, the gate's `hold`, ...). A report read back from JSON is input: anything of the wrong
type is ignored, never shown raw.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model import Candidate, Evidence, Method
from ..recover.calibration import DEFAULT_AUTOFIX_CONFIDENCE as DEFAULT_THRESHOLD

#: Below this a suggestion is a low-confidence one and looks it.
LOW_CONFIDENCE = 0.5

_REWRITES = {
    "https": "the same address over https",
    "html-to-directory": "the same page as a directory URL",
    "drop-extension": "the same address without .html",
    "drop-index-html": "the same address without index.html",
    "htm-to-html": "the same address with .html",
    "directory-to-html": "the same page as an .html URL",
    "drop-trailing-slash": "the same address without the trailing slash",
    "add-trailing-slash": "the same address with a trailing slash",
    "add-html": "the same address with .html",
    "lowercase": "the same address in lower case",
    "drop-www": "the same address without www.",
    "add-www": "the same address with www.",
    "github-master-main": "the same file on the main branch",
    "permanent redirect": "the dead address's own permanent redirect",
}


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value else 0.0


def _percent(value: float) -> str:
    return f"{round(100 * value)}%"


def level(candidate: Candidate, threshold: float = DEFAULT_THRESHOLD) -> str:
    """'auto' (confident enough to apply unseen), 'review' (likely, for a person to decide) or
    'low' (a low-confidence guess)."""
    if candidate.method == Method.ARCHIVE:
        return "review"
    held = isinstance(candidate.evidence.get(Evidence.HOLD), str) and bool(candidate.evidence.get(Evidence.HOLD))
    if candidate.confidence >= threshold and not held:
        return "auto"
    return "review" if candidate.confidence >= LOW_CONFIDENCE else "low"


LEVEL_WORDS = {"auto": "confident", "review": "likely: review", "low": "low confidence"}


def reasons(candidate: Candidate) -> list[str]:
    """The evidence for `candidate` as short phrases, strongest first."""
    evidence = candidate.evidence if isinstance(candidate.evidence, Mapping) else {}
    raw = evidence.get(Evidence.FEATURES)
    features: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    f = {k: _number(v) for k, v in features.items() if isinstance(k, str)}
    out: list[str] = []
    if candidate.method == Method.ARCHIVE:
        when = evidence.get(Evidence.DATETIME)
        return [f"the archived copy of the dead page ({when[:10]})" if isinstance(when, str) and when else "the archived copy of the dead page"]
    why = evidence.get(Evidence.WHY)  # the finder's own words (internal suggestions: "renamed in commit ...")
    if isinstance(why, str) and why:
        out.append(why)
    if candidate.method == Method.FRAGMENT:
        words = evidence.get(Evidence.WORDS)
        if isinstance(words, str) and words:
            out.append(words)
    rule = evidence.get(Evidence.RULE)
    if isinstance(rule, str) and rule:
        out.append("learned rule " + rule.removeprefix("learned ") if rule.startswith("learned ") else _REWRITES.get(rule, f"rewritten URL ({rule})"))
    if f.get("title_sim", 0) >= 0.99:
        out.append("same title as the archived copy")
    elif f.get("title_sim", 0) >= 0.5:
        out.append(f"title like the archived copy's ({_percent(f['title_sim'])} of its words)")
    elif f.get("anchor_title", 0) >= 0.99:
        out.append("its title is the link's text")
    elif f.get("anchor_title", 0) >= 0.5:
        out.append(f"title like the link's text ({_percent(f['anchor_title'])} of its words)")
    section = evidence.get(Evidence.SECTION)  # the suggestion names this section (page#id): the dead page became it
    if isinstance(section, str) and section:
        out.append(f"the dead page became its section \"{section}\"")
    elif f.get("heading_sim", 0) >= 0.99:
        out.append("the dead page's title heads a section of it")
    if f.get("in_exact"):
        out.append("other pages of the site link to it by the dead link's name")
    if f.get("copy_coverage", 0) >= 0.5:
        out.append(f"{_percent(f['copy_coverage'])} of the archived text")
    if f.get("content_cos", 0) >= 0.5:
        out.append(f"reads {_percent(f['content_cos'])} like the archived page")
    if f.get("same_name"):
        out.append("same page name, which no other page of the site has" if f.get("name_unique") else "same page name (other pages share it)")
    elif f.get("url_jaccard", 0) >= 0.5:
        out.append("URL words like the dead one's")
    if f.get("context_cos", 0) >= 0.3:
        out.append("about what the text around the link says")
    if f.get("above"):
        out.append("a page above the dead one (its section or the home page)")
    if features and not f.get("same_host") and candidate.method != Method.FRAGMENT:
        out.append("on another site")
    if not out:
        out.append("little in common with the dead page" if features else f"found by {candidate.method}")
    if evidence.get(Evidence.CHECKED) is False:
        out.append("not re-checked")
    return out


def words(candidate: Candidate) -> str:
    """`reasons` as one line for the terse formats (github, junit, sarif); '' when the evidence
    says nothing beyond how the candidate was found."""
    said = reasons(candidate)
    return "" if said == [f"found by {candidate.method}"] else "; ".join(said)


def hold(candidate: Candidate) -> str:
    """Why recovery holds this suggestion for review ('' when it does not)."""
    value = candidate.evidence.get(Evidence.HOLD) if isinstance(candidate.evidence, Mapping) else None
    return value if isinstance(value, str) else ""


def summary(candidate: Candidate, threshold: float = DEFAULT_THRESHOLD) -> str:
    """One line: confidence, what it means, and why ('0.31, low confidence: same page name')."""
    said = f"{candidate.confidence:.2f}, {LEVEL_WORDS[level(candidate, threshold)]}"
    why, held = words(candidate), hold(candidate)
    return said + (f": {why}" if why else "") + (f"; held for review: {held}" if held else "")
