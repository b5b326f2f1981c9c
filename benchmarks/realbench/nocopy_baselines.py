"""Naive baselines that need no archived copy: the link's own words and its linking page.

Martinez-Romo & Araujo (ECIR 2010, Fig. 4) recover a link whose page no archive kept from the
anchor text alone, expanded with terms of the page that holds the link; these two baselines do
that as plainly as the paper says, over the same simulated web as every other method:

- A1: the anchor text sent to the site search (`site:host`); its top 10 answers in order (the
  paper's "no expansion").
- A1p: the paper's no-copy branch: the anchor, then the anchor with each of the 10 most frequent
  terms of the linking page (stop words and the anchor's own terms left out), each sent to the
  site search, every answer pooled and ranked by the Dice coefficient of the anchor's terms and
  the answer's title (ties: the order found). A one-term anchor that is not a name (no capital,
  digit or acronym) is not attempted, as the paper does when there is no cached copy.
  Every answer is kept (not only 10): "found at all" compares with the paper's 74%, which
  counts a page found anywhere among the answers.
Both run on the first linking page of a case, as linkfix does; a case without one is a miss.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from urllib.parse import quote_plus, urlsplit

from linkfix_simweb.realmoves.dataset import MoveCase

from .baselines import terms
from .client import Client
from .scoring import Ranked

EXPANSION_TERMS = 10


async def titled_search(client: Client, query: str, host: str) -> list[tuple[str, str]]:
    """(url, title) of the site search's answers to `query`, restricted to `host`."""
    answer = await client.get(f"{client.real.searxng_url}/search?q={quote_plus(query + ' site:' + host)}&format=json")
    if answer.status != 200:
        return []
    try:
        return [(r["url"], r.get("title") or "") for r in json.loads(answer.text).get("results", [])]
    except (json.JSONDecodeError, AttributeError, KeyError, TypeError):
        return []


def dice(a: set[str], b: set[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


def expansion_terms(text: str, exclude: set[str], count: int = EXPANSION_TERMS) -> list[str]:
    """The linking page's most frequent terms (by count, then alphabetically), the anchor's left out."""
    tf = Counter(t for t in terms(text) if t not in exclude)
    return sorted(tf, key=lambda t: (-tf[t], t))[:count]


def _a_name(anchor: str) -> bool:
    """The paper's named-entity test, as a heuristic: a capital, a digit or an acronym."""
    return any(c.isupper() or c.isdigit() for c in anchor)


async def run_nocopy_baselines(client: Client, cases: list[MoveCase]) -> dict[str, list[Ranked]]:
    out: dict[str, list[Ranked]] = {"A1": [], "A1p": []}

    async def one(case: MoveCase) -> tuple[list[tuple[str, str]], list[tuple[str, str]], str]:
        if not case.parents:
            return [], [], "no linking page"
        parent = case.parents[0]
        words = terms(parent.anchor_text)
        if not words:
            return [], [], "no anchor terms"
        host = urlsplit(case.old_url).hostname or ""
        anchor = " ".join(words)
        bare = await titled_search(client, anchor, host)
        if len(words) == 1 and not _a_name(parent.anchor_text):
            return bare, [], "one-term anchor, no name: not attempted without a copy"
        expanded = await asyncio.gather(*(titled_search(client, f"{anchor} {t}", host)
                                          for t in expansion_terms(parent.source + " " + parent.title, set(words))))
        return bare, [hit for answers in (bare, *expanded) for hit in answers], ""

    for case, (bare, pooled, note) in zip(cases, await asyncio.gather(*(one(c) for c in cases))):
        ran = bool(case.parents) and note != "no anchor terms"
        out["A1"].append(Ranked(case=case, urls=tuple(u for u, _ in bare[:10]), ran=ran, note=note if not ran else ""))
        anchor_terms = set(terms(case.parents[0].anchor_text)) if case.parents else set()
        first: dict[str, tuple[int, str]] = {}
        for n, (url, title) in enumerate(pooled):
            first.setdefault(url, (n, title))
        ranked = sorted(first, key=lambda u: (-dice(anchor_terms, set(terms(first[u][1]))), first[u][0]))
        out["A1p"].append(Ranked(case=case, urls=tuple(ranked), ran=ran,
                                 confidences=tuple(dice(anchor_terms, set(terms(first[u][1]))) for u in ranked), note=note))
    return out
