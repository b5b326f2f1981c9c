"""The naive baselines of the dataset's README, over the same simulated web, through HTTP.

Each needs the archived copy of the old page (CDX: the last capture with status 200 and an HTML
type, then its raw `id_` playback); a case without one is a miss for every baseline.

- B2: the copy's title sent to the simulated SearXNG restricted to the site (`site:host`,
  BM25 over title + text, no stemming); its top 10 answers in order. The title is the copy's
  <title> without the theme's site-name suffix (" — Project documentation", " - Site"), found
  as the ending most of the site's current pages share.
- B3f: the title query and a 5-term lexical signature of the copy (the copy's 5 terms of
  highest TF-IDF, IDF over the site's current pages), each sent the same way, answers fused
  by reciprocal rank (k = 60).
- B5: every page of the site (from its sitemap.xml, each fetched once) ranked by TF-IDF cosine
  to the copy (IDF over the site's pages); the cosine is its confidence (precision and
  coverage are reported at cosine >= 0.9).
Page text is what a reader sees: the page's main content, without navigation, header, footer.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from urllib.parse import quote, quote_plus, urlsplit

from lxml import etree
from selectolax.lexbor import LexborHTMLParser

from linkfix_simweb.realmoves.dataset import DocsSite, MoveCase

from .client import Client
from .scoring import Ranked

RRF_K = 60
SIGNATURE_TERMS = 5
STOP_WORDS = frozenset(
    ["a", "about", "above", "after", "again", "all", "also", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours"]
)
_WORD = re.compile(r"[a-z0-9]+")


def terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if len(w) > 1 and w not in STOP_WORDS and not (w.isdigit() and len(w) < 3)]


@dataclass(frozen=True, slots=True, kw_only=True)
class PageText:
    url: str
    title: str
    text: str


def read_page(url: str, html: str) -> PageText:
    tree = LexborHTMLParser(html)
    node = tree.css_first("title")
    title = " ".join(node.text().split()) if node is not None else ""
    tree.strip_tags(["script", "style", "nav", "header", "footer", "aside", "head"])
    body = tree.body
    return PageText(url=url, title=title, text=" ".join(body.text(separator=" ").split()) if body is not None else "")


class SiteModel:
    """TF-IDF over one site's current pages."""

    def __init__(self, pages: list[PageText]) -> None:
        self.pages = pages
        self.suffix = _common_suffix([p.title for p in pages])
        self.df: Counter[str] = Counter()
        tfs = [Counter(terms(p.title + " " + p.text)) for p in pages]
        for tf in tfs:
            self.df.update(tf.keys())
        self.vectors = [self.weigh(tf) for tf in tfs]

    def idf(self, term: str) -> float:
        return math.log((len(self.pages) + 1) / (self.df.get(term, 0) + 1)) + 1.0

    def weigh(self, tf: Counter[str]) -> dict[str, float]:
        vector = {t: n * self.idf(t) for t, n in tf.items()}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        return {t: v / norm for t, v in vector.items()}

    def title(self, page: PageText) -> str:
        """The page's own title: its <title> without the site-name suffix the theme adds."""
        if self.suffix and page.title.endswith(self.suffix) and len(page.title) > len(self.suffix):
            return page.title[: -len(self.suffix)].strip()
        return page.title

    def signature(self, text: str, size: int = SIGNATURE_TERMS) -> list[str]:
        tf = Counter(terms(text))
        return sorted(tf, key=lambda t: (-tf[t] * self.idf(t), t))[:size]

    def ranked(self, text: str) -> list[tuple[float, str]]:
        query = self.weigh(Counter(terms(text)))
        scored = [(sum(w * vec.get(t, 0.0) for t, w in query.items()), page.url) for page, vec in zip(self.pages, self.vectors)]
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        return scored


_SEPARATORS = (" — ", " - ", " | ", " · ")


def _common_suffix(titles: list[str], share: float = 0.5) -> str:
    """The separator + site name that more than `share` of the titles end with ('' if none)."""
    endings: Counter[str] = Counter()
    for title in titles:
        for sep in _SEPARATORS:
            if sep in title:
                endings[sep + title.rsplit(sep, 1)[1]] += 1
    if not endings:
        return ""
    ending, count = endings.most_common(1)[0]
    return ending if count > share * len(titles) else ""


async def archived_copy(client: Client, case: MoveCase) -> PageText | None:
    query = (f"{client.real.archive_url}/cdx/search/cdx?url={quote(case.old_url, safe='')}&output=json"
             "&filter=statuscode:200&filter=mimetype:text/html&limit=-1")
    answer = await client.get(query)
    if answer.status != 200:
        return None
    try:
        rows = json.loads(answer.text or "[]")
    except json.JSONDecodeError:
        return None
    if len(rows) < 2:
        return None
    header, last = rows[0], rows[-1]
    row = dict(zip(header, last))
    capture = await client.get(f"{client.real.archive_url}/web/{row['timestamp']}id_/{row['original']}")
    return read_page(case.old_url, capture.text) if capture.status == 200 else None


async def site_pages(client: Client, site: DocsSite) -> list[PageText]:
    answer = await client.get(site.base_url + "sitemap.xml")
    if answer.status != 200:
        return []
    root = etree.fromstring(answer.text.encode())
    urls = [el.text.strip() for el in root.iter() if isinstance(el.tag, str) and el.tag.endswith("loc") and el.text]
    pages = await asyncio.gather(*(client.get(u) for u in urls))
    return [read_page(u, a.text) for u, a in zip(urls, pages) if a.status == 200]


async def site_search(client: Client, query: str, host: str) -> list[str]:
    answer = await client.get(f"{client.real.searxng_url}/search?q={quote_plus(query + ' site:' + host)}&format=json")
    if answer.status != 200:
        return []
    try:
        return [r["url"] for r in json.loads(answer.text).get("results", [])]
    except (json.JSONDecodeError, AttributeError, KeyError, TypeError):
        return []


def fuse(*rankings: list[str], k: int = RRF_K) -> list[tuple[float, str]]:
    scores: Counter[str] = Counter()
    for ranking in rankings:
        for n, url in enumerate(ranking, 1):
            scores[url] += 1.0 / (k + n)
    return sorted(((s, u) for u, s in scores.items()), key=lambda pair: (-pair[0], pair[1]))


async def run_baselines(client: Client, cases: list[MoveCase], sites: dict[str, DocsSite]) -> dict[str, list[Ranked]]:
    """B2, B3f and B5 for every case (a case without an archived copy is a miss for all)."""
    models: dict[str, SiteModel] = {}
    for name in sorted({c.site for c in cases}):
        models[name] = SiteModel(await site_pages(client, sites[name]))
    out: dict[str, list[Ranked]] = {"B2": [], "B3f": [], "B5": []}

    async def one(case: MoveCase) -> tuple[MoveCase, PageText | None, list[str], list[str]]:
        copy = await archived_copy(client, case)
        if copy is None:
            return case, None, [], []
        host = urlsplit(case.old_url).hostname or ""
        model = models[case.site]
        signature = " ".join(model.signature(copy.title + " " + copy.text))
        by_title, by_signature = await asyncio.gather(site_search(client, model.title(copy), host), site_search(client, signature, host))
        return case, copy, by_title, by_signature

    for case, copy, by_title, by_signature in await asyncio.gather(*(one(c) for c in cases)):
        if copy is None:
            for name in out:
                out[name].append(Ranked(case=case, ran=False, note="no archived copy"))
            continue
        out["B2"].append(Ranked(case=case, urls=tuple(by_title[:10])))
        fused = fuse(by_title, by_signature)[:10]
        out["B3f"].append(Ranked(case=case, urls=tuple(u for _, u in fused)))
        cosine = models[case.site].ranked(copy.title + " " + copy.text)[:10]
        out["B5"].append(Ranked(case=case, urls=tuple(u for _, u in cosine), confidences=tuple(s for s, _ in cosine)))
    return out
