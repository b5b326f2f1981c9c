"""Similarity measures of Martinez-Romo & Araujo (sec. 6) and URI tokens of Alkwai et al.

All functions are pure. Vectors are term -> weight mappings (a Counter of term frequencies,
or a set's indicator vector via `as_vector`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Callable, Iterable, Mapping
from urllib.parse import unquote, urlsplit

from .terms import collection_probability

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
