"""The queries of Martinez-Romo & Araujo (Fig. 4) and Klein & Nelson (title, LS5, LS7).

Order matters: the recoverer sends queries in this order and stops when it is confident, so
the cheapest, most precise ones come first (the paper's Table 1: the bare anchor puts more
answers first; expansion adds more answers in the top 10).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Method
from .anchors import Anchor
from .terms import content_terms, frequency_terms, join_terms, kld_terms, lexical_signature


@dataclass(frozen=True, slots=True, kw_only=True)
class Query:
    text: str
    method: Method  # Candidate.method for what it finds: SEARCH, TITLE or SIGNATURE
    source: str  # anchor, anchor+parent, anchor+archive, archive-title, ls5, ls7


def build_queries(
    anchor: Anchor,
    *,
    parent_text: str,
    copy_title: str,
    copy_text: str,
    expansion_terms: int,
) -> list[Query]:
    """All queries for one dead link, most promising first, without duplicates."""
    queries: list[Query] = []
    anchor_query = join_terms(anchor.terms)
    have_copy = bool(copy_text.strip())
    if anchor_query and not anchor.weak:
        queries.append(Query(text=anchor_query, method=Method.SEARCH, source="anchor"))
    if have_copy:
        title_terms = content_terms(copy_title)
        if title_terms:
            queries.append(Query(text=join_terms(title_terms), method=Method.TITLE, source="archive-title"))
        ls5 = lexical_signature(copy_text, 5)
        if ls5:
            # Klein & Nelson's TI-LS5 combination: title first, then the signature.
            queries.append(Query(text=join_terms(ls5), method=Method.SIGNATURE, source="ls5"))
            ls7 = lexical_signature(copy_text, 7)
            if len(ls7) > len(ls5):
                queries.append(Query(text=join_terms(ls7), method=Method.SIGNATURE, source="ls7"))
    if anchor_query:
        # Fig. 4: one expanded query per term; the archived copy's KLD terms, then the parent's.
        if have_copy:
            for term in kld_terms(copy_text, expansion_terms, exclude=anchor.terms):
                queries.append(Query(text=f"{anchor_query} {term}", method=Method.SEARCH, source="anchor+archive"))
        if not anchor.weak:
            for term in frequency_terms(parent_text, expansion_terms, exclude=anchor.terms):
                queries.append(Query(text=f"{anchor_query} {term}", method=Method.SEARCH, source="anchor+parent"))
    seen: set[str] = set()
    unique = []
    for q in queries:
        if q.text and q.text not in seen:
            seen.add(q.text)
            unique.append(q)
    return unique
