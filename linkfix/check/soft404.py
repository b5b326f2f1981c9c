"""Soft-404 detection: a dead page that answers 200.

The random-URL probe (Bar-Yossef et al., "Sic transit gloria telae"): ask the host for a path
that cannot exist next to the page. If the host answers 200 to that, its 200s mean nothing,
and a page that looks like the probe's answer (same template text, or a not-found title) is
dead. Pure functions here; http.py makes the requests and caches the probe per (host, dir).
"""

from __future__ import annotations

import posixpath
import re
import secrets
from array import array
from typing import Iterable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser as HTMLParser

SHINGLE = 4  # words per shingle: long enough to ignore shared vocabulary, short for short pages
SIMILAR = 0.8  # Jaccard of shingle sets above which two pages are "the same template"
MAX_WORDS = 600  # enough to tell two pages apart; bounds the work on huge pages
_NOT_FOUND_TITLE = re.compile(
    r"\b404\b|not found|page not found|does ?n[o']t exist|no longer (?:exists|available)|"
    r"page (?:is )?missing|nothing (?:was )?found|cannot be found|can't be found|"
    r"seite nicht gefunden|page introuvable|no encontrada",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PageSketch:
    """What the comparison needs from a page.

    `shingles` holds in-process hashes (compact: a probe's sketch lives for the whole run, and
    a run may hold thousands); what the disk cache keeps is the page's words (`read_page`).
    """

    final_url: str
    title: str
    shingles: array


def make_sketch(*, final_url: str, title: str, words: tuple[str, ...]) -> PageSketch:
    return PageSketch(final_url=final_url, title=title, shingles=array("q", shingles(words)))


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


def probe_key(url: str) -> str:
    """(host, directory) that one probe stands for."""
    parts = urlsplit(url)
    path = parts.path or "/"
    directory = posixpath.dirname(path.rstrip("/")) if path.endswith("/") else posixpath.dirname(path)
    return f"{parts.scheme}://{parts.netloc.lower()}{directory or '/'}"


def read_page(html: str, final_url: str) -> tuple[str, tuple[str, ...]]:
    """The page's title and the words of its text (without its own address)."""
    title, text = title_and_text(html)
    return title, words_of(_without_own_address(text, final_url))


def sketch(html: str, final_url: str) -> PageSketch:
    title, words = read_page(html, final_url)
    return make_sketch(final_url=final_url, title=title, words=words)


def _without_own_address(text: str, url: str) -> str:
    """Drop the page's own URL/path from its text: not-found pages echo the path asked for,
    which would make two answers of one template look different."""
    parts = urlsplit(url)
    for echo in (url, parts.netloc + parts.path, unquote(parts.path), parts.path):
        if len(echo) > 1:
            text = text.replace(echo, " ")
    return text


def title_and_text(html: str) -> tuple[str, str]:
    try:
        tree = HTMLParser(html)
    except Exception:  # selectolax raises on a few binary inputs; a page we cannot read has no text
        return "", ""
    title_node = tree.css_first("title")
    title = " ".join(title_node.text().split()) if title_node else ""
    tree.strip_tags(["script", "style", "noscript", "template"])
    body = tree.body or tree.root
    text = " ".join(body.text(separator=" ").split()) if body is not None else ""
    return title, text


def words_of(text: str) -> tuple[str, ...]:
    # str.split, not a \w+ regex: several times faster, and punctuation stuck to a word is the
    # same in two answers of one template.
    return tuple(text.lower().split(maxsplit=MAX_WORDS)[:MAX_WORDS])


def shingles(words: tuple[str, ...], size: int = SHINGLE) -> frozenset[int]:
    """Hashes of the word n-grams (hash(): stable within a process, never written to disk)."""
    if len(words) < size:
        return frozenset({hash(words)}) if words else frozenset()
    return frozenset(map(hash, zip(*(words[i:] for i in range(size)))))


def jaccard(a: Iterable[int], b: Iterable[int]) -> float:
    first, second = set(a), set(b)
    if not first and not second:
        return 1.0
    return len(first & second) / len(first | second)


def looks_not_found(title: str) -> bool:
    return bool(_NOT_FOUND_TITLE.search(title))


def is_soft404(page: PageSketch, probe: Probe) -> bool:
    """Judge a 200 page against its host's answer to a random sibling path."""
    if not probe.lenient or probe.sketch is None:
        return False
    if page.final_url == probe.sketch.final_url:  # both redirected to the same catch-all page
        return True
    if looks_not_found(page.title) and (looks_not_found(probe.sketch.title) or page.title == probe.sketch.title):
        return True  # both say "not found" (a page titled "Error 404 codes" alone proves nothing)
    return jaccard(page.shingles, probe.sketch.shingles) >= SIMILAR
