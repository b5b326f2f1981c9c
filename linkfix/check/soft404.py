"""Soft-404 detection: a dead page that answers 200.

The random-URL probe (Bar-Yossef et al., "Sic transit gloria telae"): ask the host for a path
that cannot exist next to the page. If the host answers 200 to that, its 200s mean nothing,
and a page that looks like the probe's answer (same template text, or a not-found title) is
dead. Pure functions here; http makes the requests and caches the probe per (host, directory):
linkfix.urls.sibling_key.
"""

from __future__ import annotations

import posixpath
import re
import secrets
from array import array
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser as HTMLParser

SHINGLE = 4  # words per shingle: long enough to ignore shared vocabulary, short for short pages
SIMILAR = 0.8  # Jaccard of shingle sets above which two pages are "the same template"
MAX_WORDS = 600  # enough to tell two pages apart; bounds the work on huge pages
_HIDDEN_TAGS = ("script", "style", "noscript", "template")  # text a reader never sees
_HIDDEN_TAG = re.compile(rf"<(?:{'|'.join(_HIDDEN_TAGS)})\b", re.IGNORECASE)
_NOT_FOUND_TITLE = re.compile(
    r"\b404\b|not found|page not found|does ?n[o']t exist|no longer (?:exists|available)|"
    r"page (?:is )?missing|nothing (?:was )?found|cannot be found|can't be found|"
    r"seite nicht gefunden|page introuvable|no encontrada",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PageSketch:
    """What the comparison needs from a page.

    `shingles` holds in-process hashes, each once. A probe's sketch lives for the whole run
    (and a run may hold thousands), so it is a compact array; a checked page's sketch is
    compared once and dropped, so it stays the set it was built as (converting it would cost
    more than the comparison). What the disk cache keeps is the page's words (`read_page`).
    """

    final_url: str
    title: str
    shingles: array[int] | frozenset[int]


def make_sketch(*, final_url: str, title: str, words: tuple[str, ...], compact: bool = True) -> PageSketch:
    hashes = shingles(words)
    return PageSketch(final_url=final_url, title=title, shingles=array("q", hashes) if compact else hashes)


@dataclass(frozen=True, slots=True, kw_only=True)
class Probe:
    """The host's answer to a random path next to the checked page."""

    status: int  # 0: no answer
    sketch: PageSketch | None = None  # only when status == 200

    @property
    def lenient(self) -> bool:
        """The host answers 200 for pages that do not exist."""
        return self.status == 200


def probe_url(url: str) -> str:
    """A random sibling of `url`: same scheme, host and directory, same extension."""
    parts = urlsplit(url)
    path = parts.path or "/"
    directory, name = posixpath.split(path)
    token = "linkfix-" + secrets.token_hex(8)
    if not name:  # a directory URL: probe a sibling directory
        parent = posixpath.dirname(directory.rstrip("/")) if directory != "/" else "/"
        return urlunsplit((parts.scheme, parts.netloc, posixpath.join(parent, token) + "/", "", ""))
    _, ext = posixpath.splitext(name)
    return urlunsplit((parts.scheme, parts.netloc, posixpath.join(directory, token + ext), "", ""))


def read_page(html: str, final_url: str) -> tuple[str, tuple[str, ...]]:
    """The page's title and the words of its text (without its own address)."""
    title, text = _title_and_raw_text(html)
    return title, words_of(_without_own_address(text, final_url))


def sketch(html: str, final_url: str, *, compact: bool = True) -> PageSketch:
    """`compact=False` for a sketch that is compared once and dropped (see PageSketch)."""
    title, words = read_page(html, final_url)
    return make_sketch(final_url=final_url, title=title, words=words, compact=compact)


def _without_own_address(text: str, url: str) -> str:
    """Drop the page's own URL/path from its text: not-found pages echo the path asked for,
    which would make two answers of one template look different."""
    parts = urlsplit(url)
    for echo in (url, parts.netloc + parts.path, unquote(parts.path), parts.path):
        if len(echo) > 1:
            text = text.replace(echo, " ")
    return text


def _title_and_raw_text(html: str) -> tuple[str, str]:
    """Title (whitespace collapsed) and the visible text as the parser gives it: `read_page`
    splits it into words anyway, so collapsing its whitespace first would be wasted work."""
    try:
        tree = HTMLParser(html)
    except Exception:  # selectolax raises on a few binary inputs; a page we cannot read has no text
        return "", ""
    title_node = tree.css_first("title")
    title = " ".join(title_node.text().split()) if title_node else ""
    if _HIDDEN_TAG.search(html):  # stripping costs as much as reading the text: only when needed
        tree.strip_tags(list(_HIDDEN_TAGS))
    body = tree.body or tree.root
    return title, body.text(separator=" ") if body is not None else ""


def words_of(text: str) -> tuple[str, ...]:
    # str.split, not a \w+ regex: several times faster, and punctuation stuck to a word is the
    # same in two answers of one template.
    return tuple(text.lower().split(maxsplit=MAX_WORDS)[:MAX_WORDS])


def shingles(words: tuple[str, ...], size: int = SHINGLE) -> frozenset[int]:
    """Hashes of the word n-grams (hash(): stable within a process, never written to disk)."""
    if len(words) < size:
        return frozenset({hash(words)}) if words else frozenset()
    return frozenset(map(hash, zip(*(words[i:] for i in range(size)))))


def _looks_not_found(title: str) -> bool:
    return bool(_NOT_FOUND_TITLE.search(title))


def _says_only_not_found(title: str) -> bool:
    """The title (its part before or after the site name) says "not found" and nothing else:
    "404 - Page not found | Docs" does, "Chapter 404 - Docs" or "Error 404 codes" do not."""
    for part in _TITLE_PARTS.split(title):
        if _NOT_FOUND_TITLE.search(part):
            rest = _NOT_FOUND_TITLE.sub(" ", part).lower()
            return all(word in _FILLER for word in re.findall(r"[^\W\d_]+|\d+", rest))
    return False


_TITLE_PARTS = re.compile(r"\s+[-|\u2013\u2014\u00b7:]\s+|\s*[|\u00b7]\s*")  # "Page - Site", "Page | Site", "Page · Site"
_FILLER = frozenset(["error", "oops", "sorry", "page", "the", "that", "this", "we", "a", "an", "is", "was", "has", "been", "here"])


def is_soft404(page: PageSketch, probe: Probe) -> bool:
    """Judge a 200 page against its host's answer to a random sibling path."""
    if not probe.lenient or probe.sketch is None:
        return False
    if page.final_url == probe.sketch.final_url:  # both redirected to the same catch-all page
        return True
    if _says_only_not_found(page.title) and (_looks_not_found(probe.sketch.title) or page.title == probe.sketch.title):
        # Both say "not found", and the page says nothing else: "Chapter Image 404" is no
        # sibling of "404 - Not Found".
        return True
    ours, theirs = page.shingles, probe.sketch.shingles
    small, large = sorted((len(ours), len(theirs)))
    if small < SIMILAR * large:
        return False  # the Jaccard index of two sets is at most |smaller| / |larger|
    return _jaccard_of_distinct(ours, theirs) >= SIMILAR


def _jaccard_of_distinct(a: array[int] | frozenset[int], b: array[int] | frozenset[int]) -> float:
    """The Jaccard index of two sketches' shingles, which hold each hash once: |A u B| is then
    |A| + |B| - |A n B|, so one set (not three) is built."""
    if not a and not b:
        return 1.0
    if not isinstance(a, frozenset):
        a, b = b, a
    first = a if isinstance(a, frozenset) else frozenset(a)
    common = len(first.intersection(b))
    return common / (len(a) + len(b) - common)
