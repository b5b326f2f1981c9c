"""Plain data: what crosses processes and the cache must come back equal."""

from __future__ import annotations

import pickle
from dataclasses import fields

from linkfix.model import Link, LinkKind, Page, Span

SPAN_VALUES = {"path": "docs/a.md", "line": 3, "column": 7, "start": 40, "end": 62}
PAGE = Page(path="docs/a.md", url="a.html", title="A", text="words", ids=frozenset({"x"}), base="https://x.org/")


def test_span_and_link_survive_pickling_with_every_field_set():
    span = Span(**SPAN_VALUES)
    link_values = {"url": "https://x.org/b#c", "kind": LinkKind.REFERENCE, "span": span, "page": PAGE, "anchor_text": "B",
                   "context": "see B", "tag": "a[href]", "reference": "b"}
    # A field added to Span or Link must be added to its __reduce__ (and to these values).
    assert {f.name for f in fields(Span)} == set(SPAN_VALUES)
    assert {f.name for f in fields(Link)} == set(link_values)
    link = Link(**link_values)
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        again = pickle.loads(pickle.dumps(link, protocol=protocol))
        assert again == link and again.span == span and again.kind is LinkKind.REFERENCE
