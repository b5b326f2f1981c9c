"""Words of a page and the term statistics the papers use to pick query terms.

Reference word statistics come from `wordfreq` (a large, maintained multi-source frequency
list) instead of a home-made corpus: `collection_probability(t)` stands in for P_C(t) of
Martinez-Romo & Araujo (Wikipedia there), and IDF is derived from the same probability.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from wordfreq import word_frequency

#: Probability given to a word wordfreq has never seen (identifiers, product names): rarer than
#: anything listed, so such words count as highly specific, as they should.
UNSEEN_PROBABILITY = 1e-9

#: Klein & Nelson's TF normalisation smoothing factor (Eq. 1 of 000_*).
TF_SMOOTHING = 0.4

# A compact English stop list: function words carry no topic and would only dilute queries.
STOP_WORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "aren", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "cannot", "could", "couldn", "did", "didn", "do", "does", "doesn", "doing", "don", "down", "during", "each", "either", "else", "etc", "ever", "every", "few", "for", "from", "further", "get", "gets", "got", "had", "hadn", "has", "hasn", "have", "haven", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "however", "i", "if", "in", "into", "is", "isn", "it", "its", "itself", "just", "let", "ll", "may", "me", "might", "more", "most", "much", "must", "my", "myself", "need", "neither", "no", "nor", "not", "now", "of", "off", "often", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "per", "quite", "rather", "re", "same", "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "thus", "to", "too", "under", "until", "up", "upon", "us", "use", "used", "uses", "using", "ve", "very", "via", "was", "wasn", "we", "were", "weren", "what", "when", "where", "whether", "which", "while", "who", "whom", "whose", "why", "will", "with", "within", "without", "won", "would", "yet", "you", "your", "yours", "yourself", "yourselves"]
)

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lower-cased words, keeping order; apostrophe forms stay one word."""
    return [w.replace("’", "'") for w in _WORD.findall(text.lower())]


def content_terms(text: str) -> list[str]:
    """Tokens that can describe a topic: no stop words, no 1-letter tokens, no bare short numbers."""
    return [
        t
        for t in tokenize(text)
        if len(t) > 1 and t not in STOP_WORDS and not (t.isdigit() and len(t) < 3)
    ]


def term_frequencies(terms: Iterable[str]) -> Counter[str]:
    return Counter(terms)


def normalised_tf(tf: Counter[str], smoothing: float = TF_SMOOTHING) -> dict[str, float]:
    """Klein & Nelson Eq. 1: a + (1 - a) * tf / tf_max."""
    if not tf:
        return {}
    top = max(tf.values())
    return {t: smoothing + (1 - smoothing) * n / top for t, n in tf.items()}


@lru_cache(maxsize=65536)
def collection_probability(term: str) -> float:
    """P_C(t): the word's share of running English text (wordfreq), floored for unseen words."""
    return max(word_frequency(term, "en"), UNSEEN_PROBABILITY)


def idf(term: str) -> float:
    """log(1 / P_C(t)): IDF with the reference corpus' probability in place of df/|D|."""
    return -math.log(collection_probability(term))


def tf_idf(tf: Counter[str]) -> dict[str, float]:
    """Normalised TF (Eq. 1) times IDF, the scheme of Klein & Nelson's lexical signatures."""
    return {t: w * idf(t) for t, w in normalised_tf(tf).items()}


def kld_term_scores(tf: Counter[str]) -> dict[str, float]:
    """Martinez-Romo & Araujo Eq. 1: P_P(t) * log(P_P(t) / P_C(t)) for every term of a page."""
    total = sum(tf.values())
    if not total:
        return {}
    scores = {}
    for t, n in tf.items():
        p = n / total
        scores[t] = p * math.log(p / collection_probability(t))
    return scores


def top_terms(weights: dict[str, float] | Counter[str], n: int, *, exclude: Iterable[str] = ()) -> list[str]:
    """The n heaviest terms; ties broken alphabetically so results are reproducible."""
    skip = set(exclude)
    ranked = sorted((t for t in weights if t not in skip), key=lambda t: (-weights[t], t))
    return ranked[:n]


def frequency_terms(text: str, n: int, *, exclude: Iterable[str] = ()) -> list[str]:
    """Parent-page expansion terms: most frequent content words (the paper's choice, sec. 5.3)."""
    return top_terms(term_frequencies(content_terms(text)), n, exclude=exclude)


def kld_terms(text: str, n: int, *, exclude: Iterable[str] = ()) -> list[str]:
    """Archived-copy expansion terms: highest KLD contribution against the reference (sec. 5.3)."""
    return top_terms(kld_term_scores(term_frequencies(content_terms(text))), n, exclude=exclude)


def lexical_signature(text: str, n: int) -> list[str]:
    """The n terms of highest TF-IDF (Klein & Nelson's LS5 / LS7)."""
    return top_terms(tf_idf(term_frequencies(content_terms(text))), n)


def join_terms(terms: Sequence[str]) -> str:
    return " ".join(terms)
