"""A page that is there without the #fragment a link asks for: the nearest ids on it.

Headings get renamed ("#installing-plugins" -> "#install-plugins"), and ids change with the
generator's slug rules ("#Install_Plugins" -> "#install-plugins"). The ids of the live page
are compared with the missing one by their normalised words (stems), then by spelling. An id
with the same words (only their form or the separators changed) is the same section; anything
less is a suggestion for review.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from difflib import SequenceMatcher
from typing import TYPE_CHECKING
from urllib.parse import unquote, urldefrag

from ..model import Candidate, Evidence, LinkResult, Method
from .rank import set_dice
from .terms import stem

if TYPE_CHECKING:
    from .reading import Reader

MAX_FRAGMENT_SUGGESTIONS = 3
#: Confidence of an id whose words are the missing one's (only word forms or separators changed).
SAME_WORDS_CONFIDENCE = 0.95
#: Below this, an id is too far from the missing one to be suggested at all.
LEAST_SIMILARITY = 0.4

_SPLIT = re.compile(r"[^0-9a-z]+")


def _id_words(ident: str) -> tuple[str, ...]:
    """The normalised words of an id ("Installing_Plugins" -> ("instal", "plugin"))."""
    return tuple(stem(w) for w in _SPLIT.split(ident.lower()) if w)


def _id_similarity(missing: str, ident: str) -> float:
    """Dice of the two ids' normalised words, with their spelling similarity as a tie-breaker
    (weighted so that shared words always count more than shared letters)."""
    a, b = set(_id_words(missing)), set(_id_words(ident))
    words = set_dice(a, b)
    spelling = SequenceMatcher(None, missing.lower(), ident.lower()).ratio()
    return 0.8 * words + 0.2 * spelling


def _nearest_ids(missing: str, ids: Iterable[str]) -> list[tuple[str, float, str, str]]:
    """Up to MAX_FRAGMENT_SUGGESTIONS ids nearest to `missing`, best first, each as (id,
    confidence, why in words, hold reason or '')."""
    words = _id_words(missing)
    scored = sorted(((_id_similarity(missing, i), i) for i in set(ids) if i and i != missing), key=lambda p: (-p[0], p[1]))
    same_words = [i for _, i in scored if words and _id_words(i) == words]
    out = []
    for similarity, ident in scored[:MAX_FRAGMENT_SUGGESTIONS]:
        if similarity < LEAST_SIMILARITY:
            break
        if ident in same_words:
            confidence = SAME_WORDS_CONFIDENCE
            why = "the same words as the missing id"
            hold = "several ids of the page have the same words" if len(same_words) > 1 else ""
        else:
            confidence = round(min(similarity, 0.8), 4)
            why = f"the id nearest to the missing one ({similarity:.0%} alike)"
            hold = "a near id, not the same words"
        out.append((ident, confidence, why, hold))
    return out


async def fragment_evidence(reader: Reader, suggestions: tuple[Candidate, ...], fragment: str) -> tuple[Candidate, ...]:
    """For a dead link with a #fragment, say of each live suggestion whether its page has that
    id (`evidence["ids"]`: [fragment] or []), so that `fix` keeps the fragment only where it
    still leads somewhere. Candidate pages come from the run's cache."""
    if not fragment:
        return suggestions
    marked = []
    for cand in suggestions:
        if cand.method not in (Method.ARCHIVE, Method.FRAGMENT) and "#" not in cand.url:
            ids = await reader.ids(cand.url)
            if ids is not None:
                has_id = fragment in ids or unquote(fragment) in ids
                cand = replace(cand, evidence={**cand.evidence, Evidence.IDS: [fragment] if has_id else []})
        marked.append(cand)
    return tuple(marked)


async def fragment_suggestions(reader: Reader, lr: LinkResult) -> tuple[Candidate, ...]:
    """The page is there but its #fragment is not: the nearest ids on the live page."""
    url, fragment = urldefrag(lr.resolved)
    ids = await reader.ids(url) if fragment else None
    if not ids:
        return ()
    return tuple(
        Candidate(url=f"{url}#{ident}", confidence=confidence, method=Method.FRAGMENT,
                  evidence={Evidence.FRAGMENT: fragment, Evidence.ID: ident, Evidence.WORDS: reason, **({Evidence.HOLD: hold} if hold else {})})
        for ident, confidence, reason, hold in _nearest_ids(fragment, ids)
    )
