"""What an anchor text is worth as a query (Martinez-Romo & Araujo, sec. 4 and Fig. 4).

Stop anchors ("here", "click here", a bare URL) say nothing about the target. An anchor of one
term that is not a named entity rarely finds the page either, so the paper only tries it when an
archived copy can confirm the result. Named entities are spotted without a model: acronyms,
mixed case (GitHub), digits (RFC 7089, Python3), and capitalised words that are rare as common
English words (Debian, Sphinx).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .terms import content_terms, word_zipf

STOP_ANCHORS = frozenset(
    {
        "", "here", "click here", "click", "this", "this link", "link", "link here", "here link",
        "more", "read more", "more info", "more information", "learn more", "see here", "see this",
        "this page", "page", "website", "web site", "site", "home", "homepage", "home page",
        "download", "source", "url", "details", "go", "there", "article", "this article", "post",
        "this post", "continue", "continue reading", "info", "docs", "documentation", "online",
    }
)

#: Below this Zipf frequency a capitalised word is taken as a name rather than a common word.
NAME_ZIPF = 3.5

_URLISH = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*://|www\.)\S*\s*$|^\s*\S+\.[a-z]{2,}/\S*\s*$", re.I)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Anchor:
    text: str
    terms: tuple[str, ...]  # content terms, in order
    stop: bool  # says nothing about the target
    named_entity: bool

    @property
    def weak(self) -> bool:
        """Fig. 4's first branch: no usable terms, or one term that is not a named entity."""
        return self.stop or not self.terms or (len(self.terms) == 1 and not self.named_entity)


def is_bare_url(text: str) -> bool:
    return bool(_URLISH.match(text))


_VERSION = re.compile(r"\b\d+(?:\.\d+)+\b")


def has_named_entity(text: str) -> bool:
    if _VERSION.search(text):
        return True  # Python 3.11, PEP 8 style versions name one thing
    words = _WORD.findall(text)
    for word in words:
        if len(word) >= 2 and word.isupper() and word.isalpha():
            return True  # acronym: API, HTTP, NASA
        if any(c.isdigit() for c in word) and (any(c.isalpha() for c in word) or len(word) >= 3):
            return True  # Python3, RFC 7089 (the number), HTTP/2 is caught above
        if word[0].isupper() and any(c.isupper() for c in word[1:]) and not word.isupper():
            return True  # GitHub, PyPI, iOS-like mixed case
        if word[0].isupper() and word_zipf(word.lower()) < NAME_ZIPF:
            return True  # rare capitalised word: most likely a name
    return False


def analyse_anchor(text: str) -> Anchor:
    clean = " ".join(text.split())
    lowered = clean.lower().strip(" .:!?»›>-–—()[]\"'")
    if is_bare_url(clean) or lowered in STOP_ANCHORS:
        return Anchor(text=clean, terms=(), stop=True, named_entity=False)
    terms = tuple(content_terms(clean))
    return Anchor(text=clean, terms=terms, stop=False, named_entity=has_named_entity(clean))
