"""Why linkfix missed a case: one failure class per case from the per-case dump, plus tags.

Classes (the first that applies, in the order of the pipeline):
  ok                  the right page is the first suggestion
  forbidden-target    the truth is the site's home page or a directory page above the dead URL,
                      which linkfix's gate never suggests
  no-copy-in-history  the old page is not in the repository history: no archived copy exists
  copy-not-fetched    an archived copy exists but linkfix did not get it
  never-generated     no source (site index, search, rewrite) proposed the right page
  not-fetched         proposed, but never fetched (fetch budget, prescore order)
  unreadable          fetched but dropped (not a 2xx page, or landed on a forbidden page)
  cut-by-gate         scored, but removed by the gate (weaker than the archived copy, weak-anchor
                      similarity rule, live check)
  ranked-below        suggested, but not first
Tags (any number): weak-anchor, title-changed, word-form (old and new titles share stems but
not words), merge (target existed before the move), shared-target, dirhtml (Sphinx site with
directory URLs: linkfix's searchindex.js reader builds `.html` URLs), no-parent.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from linkfix.urls import is_home_page

from .scoring import page_key, same_page

_WORD = re.compile(r"[a-z0-9]+")


def forbidden(truth: str, dead: str) -> bool:
    """linkfix's gate rule (recover.pipeline.acceptable) for a dead link that is not a home page."""
    if is_home_page(truth):
        return not is_home_page(dead)
    t, d = urlsplit(truth), urlsplit(dead)
    return t.path.endswith("/") and d.path.startswith(t.path) and len(d.path) > len(t.path) and t.hostname == d.hostname


def _stem(word: str) -> str:
    from linkfix_simweb.realmoves.sitefiles import _stemmer

    return _stemmer().stemWord(word)


def word_form_change(old: str, new: str) -> bool:
    a, b = set(_WORD.findall(old.lower())), set(_WORD.findall(new.lower()))
    if not a or not b or a == b:
        return False
    return bool({_stem(w) for w in a - b} & {_stem(w) for w in b - a})


def classify(d: dict[str, Any]) -> tuple[str, list[str]]:
    truth, dead = d["truth"], d["old_url"]
    tags = []
    if d.get("weak_anchor"):
        tags.append("weak-anchor")
    if d.get("old_title") and d.get("new_title") and d["old_title"].lower() != d["new_title"].lower():
        tags.append("title-changed")
        if word_form_change(d["old_title"], d["new_title"]):
            tags.append("word-form")
    if d.get("target_existed_before_move"):
        tags.append("merge")
    if d.get("target_shared"):
        tags.append("shared-target")
    if d.get("generator") == "sphinx" and not truth.endswith(".html"):
        tags.append("dirhtml")
    if not d.get("parent"):
        tags.append("no-parent")
    suggestions = [s["url"] for s in d.get("suggestions", []) if s.get("method") != "archive"]
    if suggestions and same_page(suggestions[0], truth):
        return "ok", tags
    if forbidden(truth, dead):
        return "forbidden-target", tags
    candidates = d.get("candidates", [])
    matching = [c for c in candidates if same_page(c.get("final_url") or c["url"], truth) or same_page(c["url"], truth)]
    if any(same_page(u, truth) for u in suggestions):
        return "ranked-below", tags
    if matching and any(c.get("features") for c in matching):
        return "cut-by-gate", tags
    if not d.get("has_copy"):
        return "no-copy-in-history", tags
    if not d.get("archived"):
        return "copy-not-fetched", tags
    if not matching:
        return "never-generated", tags
    if not any(c.get("fetched") for c in matching):
        return "not-fetched", tags
    return "unreadable", tags


def summary(dump: Iterable[dict[str, Any]]) -> str:
    dump = list(dump)
    classes: Counter[str] = Counter()
    tagged: dict[str, Counter[str]] = {}
    lines = []
    for d in dump:
        name, tags = classify(d)
        classes[name] += 1
        for tag in tags:
            tagged.setdefault(tag, Counter())[name] += 1
        d["_class"], d["_tags"] = name, tags
    out = ["\nfailure classes (per-case run; every case, no-parent cases run with an empty anchor)"]
    for name, count in classes.most_common():
        out.append(f"  {name:<20}{count:>5}")
    out.append("\ntags by class (tag: class=count ...)")
    for tag, counter in sorted(tagged.items()):
        out.append(f"  {tag:<16}" + " ".join(f"{k}={v}" for k, v in counter.most_common()))
    for d in dump:
        if d["_class"] != "ok":
            top = next((s for s in d.get("suggestions", []) if s.get("method") != "archive"), None)
            got = f"{top['url']} ({top['confidence']:.2f})" if top else "-"
            lines.append(f"  {d['case']} {d['_class']:<18} {','.join(d['_tags']):<40} {page_key(d['old_url'])} -> "
                         f"{page_key(d['truth'])}; top: {got}")
    return "\n".join(out + ["\nper case (misses):"] + lines)
