"""Why linkfix missed a case: one failure class per case from the per-case dump, plus tags.

Classes (the first that applies, in the order of the pipeline):
  ok                  the right page is the first suggestion
  ranked-below        suggested, but not first
  below-top-10        ranked, but not among the suggestions kept
  dropped             scored, then left out of the ranking (not live, the same page as another)
  no-copy-in-history  the old page is not in the repository history: no archived copy exists
  copy-not-fetched    an archived copy exists but linkfix did not get it
  never-generated     no source (site index, search, rewrite) proposed the right page
  not-fetched         proposed, but never fetched (fetch budget, prescore order)
  unreadable          fetched but not a page (not a 2xx answer)
Tags (any number): weak-anchor, title-changed, word-form (old and new titles share stems but
not words), merge (target existed before the move), shared-target, above (the truth is the
home page or a directory page above the dead URL), dirhtml (Sphinx site with directory URLs),
no-parent, held (the top suggestion is held for review by the gate).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from linkfix.model import Method
from linkfix.urls import is_above

from .scoring import page_key, same_page

_WORD = re.compile(r"[a-z0-9]+")


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
    if is_above(truth, dead):
        tags.append("above")
    real = [s for s in d.get("suggestions", []) if s.get("method") != Method.ARCHIVE]
    if real and real[0].get("hold"):
        tags.append("held")
    suggestions = [s["url"] for s in real]
    if suggestions and same_page(suggestions[0], truth):
        return "ok", tags
    candidates = d.get("candidates", [])
    matching = [c for c in candidates if same_page(c.get("final_url") or c["url"], truth) or same_page(c["url"], truth)]
    if any(same_page(u, truth) for u in suggestions):
        return "ranked-below", tags
    if any(c.get("verdict") == "ranked-below" for c in matching):
        return "below-top-10", tags
    if any(c.get("features") for c in matching):
        return "dropped", tags
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
    return "\n".join([*out, "\nper case (misses):", *lines])
