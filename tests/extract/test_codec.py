"""Documents as JSON data for the extraction cache: an exact round trip, and nothing else accepted."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from linkfix.extract import codec
from linkfix.formats import extract_html, extract_markdown
from linkfix.model import Dialect, Document, Link, LinkKind, Page, Silenced, Span
from linkfix.store.cache import Cache
from linkfix.store.values import dumps, loads

SITES = Path(__file__).parents[2] / "fixtures" / "sites"
text = st.text(max_size=30)  # any code point, lone surrogates included (undecodable bytes kept by the reader)
count = st.integers(min_value=0, max_value=2**53)
offset = st.integers(min_value=-1, max_value=2**53)  # an element's characters; -1 for a comment's lines

pages = st.builds(Page, path=text, url=text, title=text, text=st.text(max_size=200), ids=st.frozensets(text, max_size=5), base=text,
                  build_ids=text, rewritten_by=text, unsure_ids=st.frozensets(text, max_size=3), unsure_why=text,
                  dialect=st.sampled_from(Dialect), build_ids_below=st.frozensets(text, max_size=3),
                  rewritten_after=st.integers(min_value=0, max_value=10**6))
spans = st.builds(Span, path=text, line=count, column=count, start=count, end=count)


@st.composite
def documents(draw) -> Document:
    own = draw(pages)
    others = draw(st.lists(pages, max_size=2))
    links = draw(st.lists(
        st.builds(Link, url=text, kind=st.sampled_from(LinkKind), span=spans, page=st.sampled_from([own, *others]),
                  anchor_text=text, context=text, tag=text, reference=text, unverified=text, template=text),
        max_size=6,
    ))
    warnings = draw(st.lists(text, max_size=2))
    silenced = draw(st.lists(st.builds(Silenced, first=count, last=count, comment=text, line=count, start=offset, end=offset), max_size=2))
    return Document(page=own, links=tuple(links), warnings=tuple(warnings), silenced=tuple(silenced), is_nav=draw(st.booleans()))


def _through_disk(document: Document) -> Document | None:
    return codec.decode(loads(dumps(codec.encode(document))))


@given(documents())
@settings(deadline=None)  # no timing in unit tests (a loaded machine misses 200 ms)
def test_any_document_round_trips_exactly_through_json_text(document):
    again = _through_disk(document)
    assert again == document
    assert again.links == document.links and again.page == document.page


def test_every_field_is_encoded():
    # A field added to the model must be added to the codec (and to the strategies above).
    assert {f.name for f in fields(Document)} == {"page", "links", "warnings", "silenced", "is_nav"}
    assert {f.name for f in fields(Silenced)} == {"first", "last", "comment", "line", "start", "end"}
    assert {f.name for f in fields(Page)} == {"path", "url", "title", "text", "ids", "base", "build_ids", "rewritten_by", "unsure_ids", "unsure_why",
                                                  "dialect", "build_ids_below", "rewritten_after"}
    assert {f.name for f in fields(Span)} == {"path", "line", "column", "start", "end"}
    assert {f.name for f in fields(Link)} == {"url", "kind", "span", "page", "anchor_text", "context", "tag", "reference", "unverified",
                                                  "template"}


def test_real_extractions_round_trip_and_links_share_their_page_again():
    for path in sorted(SITES.rglob("*")):
        if path.suffix not in (".md", ".html"):
            continue
        source = path.read_text(encoding="utf-8")
        document = extract_markdown(source, str(path)) if path.suffix == ".md" else extract_html(source, str(path), want_text=True)
        again = _through_disk(document)
        assert again == document, path
        assert all(link.page is again.page for link in again.links if link.page == document.page)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=40,
)


@given(json_values)
@settings(deadline=None)  # no timing in unit tests (a loaded machine misses 200 ms)
def test_any_other_data_is_refused_without_raising(data):
    assert codec.decode(data) is None or isinstance(codec.decode(data), Document)


@given(documents(), st.data())
@settings(deadline=None)  # no timing in unit tests (a loaded machine misses 200 ms)
def test_a_document_with_one_value_changed_in_type_is_refused(document, data):
    encoded = codec.encode(document)
    rows = [("pages", i) for i in range(len(encoded["pages"]))] + [("links", i) for i in range(len(encoded["links"]))]
    part, index = data.draw(st.sampled_from(rows))
    row = encoded[part][index]
    column = data.draw(st.integers(min_value=0, max_value=len(row) - 1))
    row[column] = data.draw(st.sampled_from([None, True, 1.5, [], {}, [1]]).filter(lambda v: type(v) is not type(row[column])))
    assert codec.decode(json.loads(json.dumps(encoded))) is None


def test_out_of_range_page_unknown_kind_and_unknown_dialect_are_refused():
    page = Page(path="a.md")
    link = Link(url="https://x.org/", kind=LinkKind.INLINE, span=Span(path="a.md", line=1, column=1, start=0, end=1), page=page)
    encoded = codec.encode(Document(page=page, links=(link,)))
    bad_page = json.loads(json.dumps(encoded))
    bad_page["links"][0][2] = 1
    bad_kind = json.loads(json.dumps(encoded))
    bad_kind["links"][0][1] = "no-such-kind"
    bad_dialect = json.loads(json.dumps(encoded))
    bad_dialect["pages"][0][10] = "no-such-dialect"
    assert codec.decode(bad_page) is None and codec.decode(bad_kind) is None and codec.decode(bad_dialect) is None
    assert codec.decode(encoded) == Document(page=page, links=(link,))


def test_the_extraction_cache_keeps_documents_as_data(tmp_path):
    from linkfix.extract.documents import EXTRACT_NAMESPACE, cached_outcome, remember_outcome

    page = Page(path="a.md", title="A", ids=frozenset({"x"}))
    document = Document(page=page, links=(Link(url="https://x.org/", kind=LinkKind.BARE, span=Span(path="a.md", line=1, column=1, start=0, end=14), page=page),))
    with Cache(tmp_path / "c") as cache:
        remember_outcome(cache, "key", (document, "a warning"))
    with Cache(tmp_path / "c") as cache:
        assert cached_outcome(cache, "key") == (document, "a warning")
        stored = cache.get(EXTRACT_NAMESPACE, "key")
        assert isinstance(stored, dict) and stored["warning"] == "a warning"
        cache.set(EXTRACT_NAMESPACE, "key", {"document": {"pages": [], "links": []}, "warning": ""}, 60)
        assert cached_outcome(cache, "key") is None  # not a document: extracted again
