"""Similarity measures of Martinez-Romo & Araujo (sec. 6), URI tokens of Alkwai et al., and the
evidence one candidate page gives that it is where the dead page went.

All functions are pure. Vectors are term -> weight mappings (a Counter of term frequencies,
or a set's indicator vector via `as_vector`). Texts are compared by normalised terms (stems,
`terms.normal_terms`), so that a word and its plural or verb form agree.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from functools import lru_cache
from urllib.parse import unquote, urlsplit

from ..urls import directory_of, is_above, page_name, same_site
from .terms import normal_terms, stem, stem_idf, stem_probability

Vector = Mapping[str, float]

#: Share of the reference distribution mixed into the candidate's term distribution so that
#: KLD stays finite when the candidate lacks a term of the reference document.
KLD_SMOOTHING = 0.1

#: A directory page with at least this many known pages below it is a hub (a section index).
HUB_PAGES = 3

#: Cosine to the archived copy at which a page on another site holds the dead page's text: below
#: it, the words that page shares with the dead link (title, anchor, URL) count in proportion.
FOREIGN_AGREES = 0.8

#: Evidence from words alone, which another site's page shares by coincidence ("Introduction",
#: "Getting started") as often as by descent.
WORD_EVIDENCE = ("title_sim", "anchor_title", "heading_sim", "url_jaccard")

#: Dice of normalised title terms taken as the same title (every term shared).
TITLE_EXACT = 0.999


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


def set_dice(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    """2 |A & B| / (|A| + |B|) of two term sets (0 when either is empty)."""
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


def token_jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """|A & B| / |A | B| of two token sets (0 when both are empty)."""
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 0.0


def kld(
    reference: Mapping[str, float],
    candidate: Mapping[str, float],
    *,
    smoothing: float = KLD_SMOOTHING,
    background: Callable[[str], float] = stem_probability,
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


def weighted(vector: Mapping[str, float]) -> dict[str, float]:
    """TF times IDF (reference-corpus IDF of each stem): what content is compared by, so that
    the words every page of a site shares ("python", "docs") weigh less than its topic."""
    return {t: n * stem_idf(t) for t, n in vector.items()}


def coverage(reference: Mapping[str, float], candidate: Mapping[str, float]) -> float:
    """Share of the reference's specific content found in the candidate: sum of tf * idf over
    reference terms present in the candidate, over the same sum for all reference terms.
    Asymmetric on purpose: a page merged into a bigger one is still fully covered."""
    total = found = 0.0
    for t, n in reference.items():
        weight = n * stem_idf(t)
        total += weight
        if candidate.get(t):
            found += weight
    return found / total if total else 0.0


_URI_SPLIT = re.compile(r"[^a-z]+")
_URI_NOISE = frozenset({"http", "https", "www", "html", "htm", "php", "asp", "aspx", "index", "latest", "stable", "en"})


def path_tokens(url: str) -> list[str]:
    """Normalised words of a URL's path (Alkwai et al. 4.2.1: lower-case, split on non-letters,
    tokens of more than 2 letters; file types and version words dropped): what changes, or
    not, when a page moves within a site."""
    text = unquote(urlsplit(url).path).lower()
    return [stem(t) for t in _URI_SPLIT.split(text) if len(t) > 2 and t not in _URI_NOISE]


_TITLE_PARTS = re.compile(r"\s+[-|–—:·»]+\s+")


def title_parts(title: str) -> list[str]:
    """The parts of a title between separators (" - ", " | ", " — ", ...), stripped."""
    return [part.strip() for part in _TITLE_PARTS.split(title) if part.strip()]


class TitleFurniture:
    """The parts of titles a site repeats on every page (its name: "Page - Site"), learned from
    the pages read in a run: a part seen on at least `least` pages of a host, and on more than
    half of them, is furniture."""

    def __init__(self, least: int = 3) -> None:
        self.least = least
        self._pages: Counter[str] = Counter()
        self._parts: dict[str, Counter[str]] = {}
        self._seen: set[str] = set()

    def add(self, url: str, title: str) -> None:
        if url in self._seen:
            return
        self._seen.add(url)
        host = (urlsplit(url).hostname or "").removeprefix("www.")
        self._pages[host] += 1
        parts = title_parts(title)
        if len(parts) > 1:
            self._parts.setdefault(host, Counter()).update({p.lower() for p in parts})

    def clean(self, title: str, url: str) -> str:
        """`title` without the parts that are furniture on `url`'s host (unchanged when nothing
        else would remain)."""
        host = (urlsplit(url).hostname or "").removeprefix("www.")
        parts = title_parts(title)
        counts = self._parts.get(host)
        if len(parts) < 2 or not counts:
            return title
        pages = self._pages[host]
        kept = [p for p in parts if not (counts[p.lower()] >= self.least and counts[p.lower()] * 2 > pages)]
        return " — ".join(kept) if kept else title


def without_shared_parts(a: str, b: str) -> tuple[str, str]:
    """Two titles of one site without the parts both carry ("Install - Site", "Usage - Site"):
    the site's name, even where too few pages were read to learn it as furniture. A title is
    left whole when nothing else would remain of it."""
    parts_a, parts_b = title_parts(a), title_parts(b)
    if len(parts_a) < 2 or len(parts_b) < 2:
        return a, b
    shared = {p.lower() for p in parts_a} & {p.lower() for p in parts_b}
    kept_a = [p for p in parts_a if p.lower() not in shared]
    kept_b = [p for p in parts_b if p.lower() not in shared]
    return (" — ".join(kept_a) if kept_a else a), (" — ".join(kept_b) if kept_b else b)


@lru_cache(maxsize=4096)
def title_terms(title: str) -> tuple[frozenset[str], ...]:
    """The normalised terms of a title and of each of its parts: titles carry the site's name
    ("runpy — Running modules - PyHub Guides"), which only dilutes a comparison."""
    parts = [title, *_TITLE_PARTS.split(title)] if title else []
    out: list[frozenset[str]] = []
    for part in parts:
        terms = frozenset(normal_terms(part))
        if terms and terms not in out:
            out.append(terms)
    return tuple(out)


def title_dice(terms: Iterable[str], title: str) -> float:
    """Dice of a set of normalised terms and a page title, the best over the title's parts."""
    reference = set(terms)
    return max((set_dice(reference, part) for part in title_terms(title)), default=0.0)


def whole_title_dice(reference_title: str, candidate_title: str) -> float:
    """Dice of two whole titles' normalised terms. Not the best over their parts: two pages of
    one site share the part that names the site, which says nothing (`TitleFurniture` takes it
    out where it is known; elsewhere the page's own words still outweigh it)."""
    return set_dice(set(normal_terms(reference_title)), set(normal_terms(candidate_title)))


# ---- evidence for one candidate -------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class SitePages:
    """What the dead URL's site says about its pages: how many carry each page name, and the
    directories pages live in (for slug uniqueness and hub pages)."""

    names: Mapping[str, int] = field(default_factory=dict)
    directories: Mapping[str, int] = field(default_factory=dict)  # directory URL -> pages at or below it

    @classmethod
    def of(cls, urls: Iterable[str]) -> SitePages:
        names: Counter[str] = Counter()
        below: Counter[str] = Counter()
        for url in set(urls):
            names[page_name(url)] += 1
            folder = directory_of(url)
            parts = urlsplit(folder)
            segments = [s for s in parts.path.split("/") if s]
            for n in range(len(segments) + 1):
                below[f"{parts.scheme}://{parts.netloc}/" + "".join(s + "/" for s in segments[:n])] += 1
        names.pop("", None)
        return cls(names=dict(names), directories=dict(below))

    def pages_below(self, url: str) -> int:
        """Known pages in the directory a directory URL names (0 for a leaf page URL)."""
        path = urlsplit(url).path
        if not (path.endswith("/") or path.lower().endswith(("/index.html", "/index.htm")) or path == ""):
            return 0
        return self.directories.get(directory_of(url), 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Known:
    """What is known of the dead page, in normalised terms."""

    dead_url: str
    anchor_terms: frozenset[str] = frozenset()
    context_terms: Counter[str] = field(default_factory=Counter)
    copy_terms: Counter[str] = field(default_factory=Counter)
    copy_title: str = ""
    site: SitePages = field(default_factory=SitePages)
    dead_was_section: bool = False  # the dead URL was a section index (pages were below it)
    docs_root: str = ""  # the directory the dead URL's docs site lives in, when its sitemap or index says

    def on_site(self, today: SitePages, ever: SitePages, root: str = "") -> Known:
        """Knowing the site: its pages today, and its pages ever (with the archive's), which say
        whether the dead URL was a section index; `root`: where its docs site lives."""
        return replace(self, site=today, dead_was_section=ever.pages_below(self.dead_url) >= HUB_PAGES, docs_root=root)

    def on_its_site(self, url: str) -> bool:
        """Is `url` on the dead page's site: its host, and inside its docs root when one is known
        (`org.github.io/project-js/` is not `org.github.io/project/`'s site)."""
        if not same_site(self.dead_url, url):
            return False
        return not self.docs_root or urlsplit(url).path.startswith(urlsplit(self.docs_root).path)


def similarity_features(known: Known, *, candidate_url: str, candidate_title: str, candidate_terms: Counter[str],
                        candidate_headings: Sequence[str] = ()) -> dict[str, float]:
    """The evidence of one fetched candidate against what is known of the dead page (all in
    [0, 1]); `calibration` turns it into a confidence."""
    has_copy = bool(known.copy_terms)
    dead = known.dead_url
    name = page_name(dead)
    same_name = bool(name) and name == page_name(candidate_url)
    same_host = known.on_its_site(candidate_url)
    copy_vector = weighted(known.copy_terms) if has_copy else {}
    features = {
        "has_copy": 1.0 if has_copy else 0.0,
        "content_cos": cosine(copy_vector, weighted(candidate_terms)) if has_copy else 0.0,
        "kld_sim": math.exp(-kld(known.copy_terms, candidate_terms)) if has_copy else 0.0,
        "copy_coverage": coverage(known.copy_terms, candidate_terms) if has_copy else 0.0,
        "title_sim": whole_title_dice(known.copy_title, candidate_title) if known.copy_title else 0.0,
        "anchor_title": title_dice(known.anchor_terms, candidate_title),
        "heading_sim": heading_dice(known, candidate_headings),
        "context_cos": cosine(known.context_terms, candidate_terms),
        "url_jaccard": token_jaccard(path_tokens(dead), path_tokens(candidate_url)),
        "same_name": 1.0 if same_name else 0.0,
        # a page name shared by several pages of the site ("reference", "overview") proves
        # little; the site's pages are known on the dead page's own host only
        "name_unique": 1.0 if same_name and same_host and known.site.names.get(name, 0) <= 1 else 0.0,
        "same_host": 1.0 if same_host else 0.0,
        # the dead page's host, but another docs site on it (`org.github.io/project-js/` for a
        # page of `org.github.io/project/`): for the gate, not the score
        "sibling_site": 1.0 if not same_host and same_site(dead, candidate_url) else 0.0,
        "above": 1.0 if is_above(candidate_url, dead) else 0.0,
        "hub": 1.0 if known.site.pages_below(candidate_url) >= HUB_PAGES else 0.0,
    }
    # A section moved is often a section still (contributing/ -> contribute/), while a section
    # page shares the context of every leaf page below it: the model weighs the two apart.
    features["section_for_section"] = features["hub"] if known.dead_was_section else 0.0
    features["section_for_page"] = features["hub"] - features["section_for_section"]
    if has_copy and not same_host:
        # Another project's page is the dead one only if it holds its text: other docs sites
        # have pages called "Introduction" too. (Without a copy, words are all there is.)
        holds = min(1.0, features["content_cos"] / FOREIGN_AGREES)
        for key in WORD_EVIDENCE:
            features[key] *= holds
    # The archived copy's title, word for word (after the site's shared parts): the best single
    # sign of a moved page; a near title is often a sibling's ("Custom metadata hook").
    features["title_exact"] = 1.0 if features["title_sim"] >= TITLE_EXACT else 0.0
    return features


def heading_dice(known: Known, headings: Sequence[str]) -> float:
    """Dice of the dead page's title (the archived copy's, else the link text) and the closest
    section heading of a candidate: the dead page may be one of its sections now. A one-word
    title says nothing here: "Governance" or "Overview" heads sections of many pages."""
    reference = set(normal_terms(known.copy_title)) if known.copy_title else set(known.anchor_terms)
    if len(reference) < 2:
        return 0.0
    return max((set_dice(reference, set(normal_terms(h))) for h in headings), default=0.0)

