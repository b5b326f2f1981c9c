"""Words of a page and the term statistics the papers use to pick query terms.

Reference word statistics come from a bundled table of English word frequencies
(`data/english_words.txt`, about 15,000 words derived from wordfreq, CC BY-SA 4.0; see its
header): `collection_probability(t)` stands in for P_C(t) of Martinez-Romo & Araujo (Wikipedia
there), and IDF is derived from the same probability. A word the table does not list is rarer
than every listed one, which is all a background distribution needs to say about it.

Comparisons between texts use normalised terms: content words reduced to their stem by the
Snowball English stemmer (the one Sphinx's search uses), so that "plugin" meets "plugins" and
"installing" meets "installation". Queries for search engines keep the words as written.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

import snowballstemmer  # untyped: declared in pyproject's mypy overrides

WORD_TABLE = Path(__file__).parent / "data" / "english_words.txt"

#: Probability given to a word the table does not list (identifiers, product names, rare
#: words): a little below the rarest listed word (Zipf 3.5), so such words count as specific.
UNSEEN_PROBABILITY = 1e-6

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


def _term_frequencies(terms: Iterable[str]) -> Counter[str]:
    return Counter(terms)


def normalised_tf(tf: Counter[str], smoothing: float = TF_SMOOTHING) -> dict[str, float]:
    """Klein & Nelson Eq. 1: a + (1 - a) * tf / tf_max."""
    if not tf:
        return {}
    top = max(tf.values())
    return {t: smoothing + (1 - smoothing) * n / top for t, n in tf.items()}


@lru_cache(maxsize=1)
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=131072)
def stem(word: str) -> str:
    """The Snowball (Porter 2) English stem of a lower-case word."""
    return str(_stemmer().stemWord(word))


def normal_terms(text: str) -> list[str]:
    """Content terms reduced to their stems: what texts are compared by."""
    return [stem(t) for t in content_terms(text)]


@lru_cache(maxsize=1)
def _table() -> tuple[dict[str, float], dict[str, float]]:
    """(word -> probability, stem -> summed probability of its listed words)."""
    words: dict[str, float] = {}
    for line in WORD_TABLE.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        zipf, *listed = line.split()
        probability = 10 ** (float(zipf) - 9)
        for word in listed:
            words[word] = probability
    stems: dict[str, float] = {}
    for word, probability in words.items():
        key = stem(word)
        stems[key] = stems.get(key, 0.0) + probability
    return words, stems


def word_zipf(word: str) -> float:
    """Zipf frequency of a lower-case word (log10 per billion words); 0 when not listed."""
    probability = _table()[0].get(word)
    return math.log10(probability) + 9 if probability else 0.0


def collection_probability(term: str) -> float:
    """P_C(t): the word's share of running English text, floored for unlisted words."""
    return _table()[0].get(term, UNSEEN_PROBABILITY)


def stem_probability(term: str) -> float:
    """P_C of a stem: the summed share of the listed words it stands for, floored."""
    return max(_table()[1].get(term, 0.0), UNSEEN_PROBABILITY)


def idf(term: str) -> float:
    """log(1 / P_C(t)): IDF with the reference corpus' probability in place of df/|D|."""
    return -math.log(collection_probability(term))


def stem_idf(term: str) -> float:
    """IDF of a stem (normalised term)."""
    return -math.log(stem_probability(term))


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


def _top_terms(weights: dict[str, float] | Counter[str], n: int, *, exclude: Iterable[str] = ()) -> list[str]:
    """The n heaviest terms; ties broken alphabetically so results are reproducible."""
    skip = set(exclude)
    ranked = sorted((t for t in weights if t not in skip), key=lambda t: (-weights[t], t))
    return ranked[:n]


def frequency_terms(text: str, n: int, *, exclude: Iterable[str] = ()) -> list[str]:
    """Parent-page expansion terms: most frequent content words (the paper's choice, sec. 5.3)."""
    return _top_terms(_term_frequencies(content_terms(text)), n, exclude=exclude)


def kld_terms(text: str, n: int, *, exclude: Iterable[str] = ()) -> list[str]:
    """Archived-copy expansion terms: highest KLD contribution against the reference (sec. 5.3)."""
    return _top_terms(kld_term_scores(_term_frequencies(content_terms(text))), n, exclude=exclude)


def lexical_signature(text: str, n: int) -> list[str]:
    """The n terms of highest TF-IDF (Klein & Nelson's LS5 / LS7)."""
    return _top_terms(tf_idf(_term_frequencies(content_terms(text))), n)


def join_terms(terms: Sequence[str]) -> str:
    return " ".join(terms)
