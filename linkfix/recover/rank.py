"""Similarity measures of Martinez-Romo & Araujo (sec. 6) and URI tokens of Alkwai et al.

All functions are pure. Vectors are term -> weight mappings (a Counter of term frequencies,
or a set's indicator vector via `as_vector`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from urllib.parse import unquote, urlsplit

from ..urls import same_site
from .terms import collection_probability, content_terms, idf

Vector = Mapping[str, float]

#: Share of the reference distribution mixed into the candidate's term distribution so that
#: KLD stays finite when the candidate lacks a term of the reference document.
KLD_SMOOTHING = 0.1


def as_vector(terms: Iterable[str]) -> Counter[str]:
    return Counter(terms)


def dot(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(w * b.get(t, 0.0) for t, w in a.items())


def _norm2(a: Vector) -> float:
    return sum(w * w for w in a.values())


def cosine(a: Vector, b: Vector) -> float:
    """Eq. 4: D1.D2 / (|D1| |D2|); 0 for an empty vector."""
    denominator = math.sqrt(_norm2(a) * _norm2(b))
    return dot(a, b) / denominator if denominator else 0.0


def dice(a: Vector, b: Vector) -> float:
    """Eq. 3: 2 D1.D2 / (|D1|^2 + |D2|^2)."""
    denominator = _norm2(a) + _norm2(b)
    return 2 * dot(a, b) / denominator if denominator else 0.0


def tanimoto(a: Vector, b: Vector) -> float:
    """Eq. 2: D1.D2 / (|D1|^2 + |D2|^2 - D1.D2)."""
    d = dot(a, b)
    denominator = _norm2(a) + _norm2(b) - d
    return d / denominator if denominator else 0.0


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 0.0


def kld(
    reference: Mapping[str, float],
    candidate: Mapping[str, float],
    *,
    smoothing: float = KLD_SMOOTHING,
    background: Callable[[str], float] = collection_probability,
) -> float:
    """Eq. 5: KLD(D1 || D2) = sum over t in D1 of P1(t) log(P1(t) / P2(t)).

    D1 and D2 are term-count mappings. P2 is smoothed (Jelinek-Mercer) with the background
    distribution: P2'(t) = (1 - s) * P2(t) + s * background(t), so a term missing from the
    candidate costs a lot but not infinity. Lower is more similar; 0 for identical texts only
    in the limit s -> 0.
    """
    total1 = sum(reference.values())
    total2 = sum(candidate.values())
    if not total1:
        return 0.0
    divergence = 0.0
    for t, n in reference.items():
        if n <= 0:
            continue
        p1 = n / total1
        p2 = candidate.get(t, 0.0) / total2 if total2 else 0.0
        q = (1 - smoothing) * p2 + smoothing * background(t)
        divergence += p1 * math.log(p1 / q)
    return divergence


def coverage(reference: Mapping[str, float], candidate: Mapping[str, float]) -> float:
    """Share of the reference's specific content found in the candidate: sum of tf * idf over
    reference terms present in the candidate, over the same sum for all reference terms.
    Asymmetric on purpose: a page merged into a bigger one is still fully covered."""
    total = found = 0.0
    for t, n in reference.items():
        weight = n * idf(t)
        total += weight
        if candidate.get(t):
            found += weight
    return found / total if total else 0.0


def slug(url: str) -> str:
    """The last path segment without its extension: what usually survives a move."""
    path = urlsplit(url).path.rstrip("/")
    last = unquote(path.rsplit("/", 1)[-1]).lower()
    for suffix in (".html", ".htm", ".php", ".aspx", ".asp", ".md"):
        last = last.removesuffix(suffix)
    return "" if last in ("", "index") else last


_URI_SPLIT = re.compile(r"[^a-z]+")
_URI_NOISE = frozenset({"http", "https", "www", "html", "htm", "php", "asp", "aspx", "index"})


def url_tokens(url: str) -> list[str]:
    """Alkwai et al. 4.2.1: lower-case, split on non-letters, drop http(s) and tokens of <= 2 chars.

    Also dropped: 'www' and file-type words, which say nothing about the page's topic.
    """
    parts = urlsplit(url)
    text = unquote(f"{parts.netloc} {parts.path} {parts.query}").lower()
    return [t for t in _URI_SPLIT.split(text) if len(t) > 2 and t not in _URI_NOISE]


def path_tokens(url: str) -> list[str]:
    """URI tokens of the path only: what changes (or not) when a page moves within a site."""
    parts = urlsplit(url)
    text = unquote(parts.path).lower()
    return [t for t in _URI_SPLIT.split(text) if len(t) > 2 and t not in _URI_NOISE]


# ---- evidence for one candidate -------------------------------------------------------------

def similarity_features(
    *,
    dead_url: str,
    candidate_url: str,
    candidate_title: str,
    candidate_terms: Counter[str],
    anchor_terms: Counter[str],
    context_terms: Counter[str],
    copy_terms: Counter[str],
    copy_title_terms: Counter[str],
) -> dict[str, float]:
    """The similarity evidence of one fetched candidate against what is known of the dead page."""
    has_copy = bool(copy_terms)
    reference_title = copy_title_terms if copy_title_terms else anchor_terms
    features = {
        "has_copy": 1.0 if has_copy else 0.0,
        "content_cos": cosine(copy_terms, candidate_terms) if has_copy else 0.0,
        "kld_sim": math.exp(-kld(copy_terms, candidate_terms)) if has_copy else 0.0,
        "title_sim": title_dice(reference_title, candidate_title),
        "anchor_title_dice": title_dice(anchor_terms, candidate_title),
        "url_jaccard": jaccard(path_tokens(dead_url), path_tokens(candidate_url)),
        "same_host": 1.0 if same_site(dead_url, candidate_url) else 0.0,
        "context_cos": cosine(context_terms, candidate_terms),
        "copy_coverage": coverage(copy_terms, candidate_terms) if has_copy else 0.0,
        "same_slug": 1.0 if slug(dead_url) and slug(dead_url) == slug(candidate_url) else 0.0,
    }
    return features


_TITLE_PARTS = re.compile(r"\s+[-|–—:·»]+\s+")


def title_dice(terms: Mapping[str, float], title: str) -> float:
    """Dice of a term set and a page title, the best over the whole title and its parts: titles
    carry the site's name ("runpy — Running modules - PyHub Guides"), which only dilutes."""
    reference = _binary(terms)
    parts = [title, *_TITLE_PARTS.split(title)] if title else []
    return max((dice(reference, _binary(as_vector(content_terms(part)))) for part in parts), default=0.0)


def _binary(vector: Mapping[str, float]) -> dict[str, float]:
    return {t: 1.0 for t, w in vector.items() if w}


def primary_evidence(features: Mapping[str, float]) -> float:
    """One number per candidate used to measure how far it is ahead of the others (the margin):
    similarity to the archived copy when there is one, else title, URL and context agreement."""
    if features.get("has_copy"):
        return features.get("content_cos", 0.0)
    return (features.get("title_sim", 0.0) + features.get("url_jaccard", 0.0) + features.get("context_cos", 0.0)) / 3


def margins(evidence: Sequence[float]) -> list[float]:
    """For each item: how far it is ahead of the best other item (0 when it is not ahead)."""
    out = []
    for i, value in enumerate(evidence):
        others = [v for j, v in enumerate(evidence) if j != i]
        out.append(max(0.0, value - (max(others) if others else 0.0)))
    return out
