"""Plain data: what crosses processes and the cache must come back equal."""

from __future__ import annotations

import json
import pickle
from dataclasses import fields

import pytest

from linkfix.model import HttpReason, Link, LinkKind, Page, Reason, SchemeReason, Span, make_link, make_span, parse_reason

SPAN_VALUES = {"path": "docs/a.md", "line": 3, "column": 7, "start": 40, "end": 62}
PAGE = Page(path="docs/a.md", url="a.html", title="A", text="words", ids=frozenset({"x"}), base="https://x.org/")


def test_span_and_link_survive_pickling_with_every_field_set():
    span = Span(**SPAN_VALUES)
    link_values = {"url": "https://x.org/b#c", "kind": LinkKind.REFERENCE, "span": span, "page": PAGE, "anchor_text": "B",
                   "context": "see B", "tag": "a[href]", "reference": "b", "unverified": "why not",
                   "template": "rendered from `{{ b.url }}`"}
    # A field added to Span or Link must be added to its __reduce__ (and to these values).
    assert {f.name for f in fields(Span)} == set(SPAN_VALUES)
    assert {f.name for f in fields(Link)} == set(link_values)
    link = Link(**link_values)
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        again = pickle.loads(pickle.dumps(link, protocol=protocol))
        assert again == link and again.span == span and again.kind is LinkKind.REFERENCE


def test_the_fast_constructors_make_what_the_dataclasses_make():
    # make_span/make_link set the slots without the dataclass __init__ (extraction's hot path):
    # every field, the defaults included, must come out as the __init__ sets it.
    span = make_span("docs/a.md", 3, 7, 40, 62)
    assert span == Span(**SPAN_VALUES) and hash(span) == hash(Span(**SPAN_VALUES))
    assert make_link("b.md", LinkKind.INLINE, span, PAGE) == Link(url="b.md", kind=LinkKind.INLINE, span=span, page=PAGE)
    made = make_link("b.md", LinkKind.INLINE, span, PAGE, "B", "see B", "a[href]", "b", "why", "tmpl")
    assert made == Link(url="b.md", kind=LinkKind.INLINE, span=span, page=PAGE, anchor_text="B", context="see B", tag="a[href]",
                        reference="b", unverified="why", template="tmpl")
    with pytest.raises(AttributeError):  # still frozen
        made.url = "c.md"  # type: ignore[misc]


def test_reasons_are_the_strings_reports_always_had():
    assert Reason.DNS == "dns" and f"{Reason.SOFT_404}" == "soft-404" and str(Reason.MISSING_FRAGMENT) == "missing-fragment"
    assert json.dumps({"reason": Reason.TOO_MANY_REDIRECTS}) == '{"reason": "too-many-redirects"}'
    assert {Reason.DNS: 1}["dns"] == 1  # hashes like its string (results read back from the cache hold strings)
    assert Reason("soft-404") is Reason.SOFT_404


def test_reason_is_a_closed_set_and_http_statuses_and_schemes_are_typed_strings_beside_it():
    declared = len(Reason)
    gone = Reason.http(404)
    assert gone == "404" and type(gone) is HttpReason and type(pickle.loads(pickle.dumps(gone))) is HttpReason
    assert json.dumps({"reason": gone}) == '{"reason": "404"}'
    assert Reason.scheme("MailTo") == "mailto" and type(Reason.scheme("mailto")) is SchemeReason
    for junk in ("404", "mailto", "Not A Reason", "4040", " dns"):
        with pytest.raises(ValueError):
            Reason(junk)  # no member is made at run time
    assert len(Reason) == declared and Reason("") is Reason.NONE


def test_a_reason_is_read_back_as_its_type_and_no_other_text_is_one():
    assert parse_reason("soft-404") is Reason.SOFT_404 and parse_reason("") is Reason.NONE
    assert type(parse_reason("410")) is HttpReason and parse_reason("410") == "410"
    assert type(parse_reason("mailto")) is SchemeReason
    for value in ("4040", "\u0664\u0660\u0664", "Not A Reason", "MailTo", " dns", "dns "):
        with pytest.raises(ValueError):
            parse_reason(value)
