"""HTML extraction: golden pages, invariants of spans, agreement with html.parser on random
hostile markup, and robustness on garbage."""

from __future__ import annotations

import html
import json
import os
import string
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linkfix.formats.css import unescape_css
from linkfix.formats.html import (
    _POOL_MIN_CHARS,
    _refresh_url,
    _srcset_urls,
    _unescape_text,
    extract_html,
    extract_html_many,
    unescape_attribute,
)
from linkfix.model import Document, LinkKind

GOLDEN = Path(__file__).parent.parent / "golden" / "html"
# Set LINKFIX_UPDATE_GOLDEN=1 to rewrite the expected files after a deliberate change
# (then review the diff: the golden files are the specification).
UPDATE = os.environ.get("LINKFIX_UPDATE_GOLDEN") == "1"


def read_source(path: Path) -> str:
    # newline="" keeps CRLF as written: spans are offsets into the text exactly as on disk.
    with path.open(encoding="utf-8", newline="") as handle:
        return handle.read()


def summary(document: Document, text: str) -> dict:
    return {
        "title": document.page.title,
        "base": document.page.base,
        "ids": sorted(document.page.ids),
        "text": document.page.text,
        "links": [
            {
                "url": link.url,
                "tag": link.tag,
                "line": link.span.line,
                "column": link.span.column,
                "raw": text[link.span.start : link.span.end],
                "anchor": link.anchor_text,
            }
            for link in document.links
        ],
    }


@pytest.mark.parametrize("source", sorted(GOLDEN.glob("*.html")), ids=lambda p: p.stem)
def test_golden(source: Path) -> None:
    text = read_source(source)
    actual = summary(extract_html(text, source.name), text)
    expected_file = source.with_suffix(".json")
    if UPDATE:
        expected_file.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert actual == json.loads(expected_file.read_text(encoding="utf-8"))


@pytest.mark.parametrize("source", sorted(GOLDEN.glob("*.html")), ids=lambda p: p.stem)
def test_fast_pass_finds_the_same_links_and_ids(source: Path) -> None:
    text = read_source(source)
    full = extract_html(text, source.name)
    fast = extract_html(text, source.name, want_text=False)
    assert [(l.url, l.tag, l.span) for l in fast.links] == [(l.url, l.tag, l.span) for l in full.links]
    assert fast.page.ids == full.page.ids
    assert fast.page.base == full.page.base
    assert fast.page.text == ""
    assert all(link.context == "" for link in fast.links)


def assert_spans_exact(document: Document, text: str) -> None:
    for link in document.links:
        span = link.span
        raw = text[span.start : span.end]
        if link.tag == "style" or link.tag.endswith("[style]"):  # CSS: its escapes decoded (an attribute's references first)
            assert unescape_css(raw if link.tag == "style" else unescape_attribute(raw)) == link.url
        else:
            assert unescape_attribute(raw) == link.url
        assert span.line == text.count("\n", 0, span.start) + 1
        line_start = text.rfind("\n", 0, span.start) + 1
        assert span.column == span.start - line_start + 1
        assert link.kind is (LinkKind.CSS if link.tag == "style" else LinkKind.HTML)
        assert link.page is document.page


@pytest.mark.parametrize("source", sorted(GOLDEN.glob("*.html")), ids=lambda p: p.stem)
def test_golden_spans_cover_the_raw_value(source: Path) -> None:
    text = read_source(source)
    assert_spans_exact(extract_html(text, str(source)), text)


def test_span_excludes_quotes_and_keeps_entities_raw() -> None:
    text = '<p>x</p>\n  <a title="t" href="a?x=1&amp;y=2">go</a>'
    (link,) = extract_html(text, "p.html").links
    assert link.url == "a?x=1&y=2"
    assert text[link.span.start : link.span.end] == "a?x=1&amp;y=2"
    assert (link.span.line, link.span.column) == (2, 22)
    assert link.span.path == "p.html"


def test_anchor_text_and_context() -> None:
    text = (
        "<html><head><title>The page</title></head><body><nav>menu</nav>"
        "<p>one two three four <a href='x.html'>the <em>dead</em> link</a> five six seven</p>"
        "<p><a href='y.html' title='Y title'></a><img src='z.png' alt='Zed'></p></body></html>"
    )
    doc = extract_html(text, "p.html")
    by_url = {link.url: link for link in doc.links}
    assert by_url["x.html"].anchor_text == "the dead link"
    context = by_url["x.html"].context
    assert "four" in context and "the dead link" in context and "five" in context
    assert by_url["y.html"].anchor_text == "Y title"  # no element text: the title attribute
    assert by_url["z.png"].anchor_text == "Zed"
    assert doc.page.title == "The page"
    assert doc.page.text == "menu one two three four the dead link five six seven"


def test_anchor_text_of_an_unclosed_anchor_is_bounded() -> None:
    text = "<p>before</p><a href='x.html'>" + "word " * 10_000
    (link,) = extract_html(text, "p.html").links
    assert 400 < len(link.anchor_text) <= 500
    assert link.anchor_text.startswith("word word") and link.anchor_text.endswith("word")
    assert "before" in link.context and len(link.context) < 1000


def test_title_falls_back_to_first_h1() -> None:
    doc = extract_html("<body><h1>Main <code>heading</code></h1><h1>second</h1></body>", "p.html")
    assert doc.page.title == "Main heading"


def test_block_tags_separate_words_and_inline_tags_do_not() -> None:
    doc = extract_html("<p>one</p><p>two</p><li>th<b>r</b>ee</li><br>four<!-- x -->five", "p.html")
    assert doc.page.text == "one two three fourfive"


# --- srcset and refresh -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "urls"),
    [
        ("a.png", ["a.png"]),
        ("a.png 1x, b.png 2x", ["a.png", "b.png"]),
        ("a,b.png 1x,c.png", ["a,b.png", "c.png"]),
        ("a.png,b.png", ["a.png,b.png"]),  # a URL runs to whitespace, commas and all
        ("a.png, b.png", ["a.png", "b.png"]),  # a trailing comma ends a URL without descriptors
        (" , ,a.png", ["a.png"]),
        ("a.png 1x (x, y), b.png", ["a.png", "b.png"]),
        ("", []),
        (",,,", []),
    ],
)
def test_srcset_urls(value: str, urls: list[str]) -> None:
    assert [value[lo:hi] for lo, hi in _srcset_urls(value)] == urls


@pytest.mark.parametrize(
    ("content", "url"),
    [
        ("0; url=a.html", "a.html"),
        ("0;URL='b.html'", "b.html"),
        ('1, url = "c d.html" trailing', "c d.html"),
        ("0; e.html", "e.html"),
        (".5 ; url=f.html  ", "f.html"),
        ("5", None),
        ("5;", None),
        ("x; url=g.html", None),
        ("", None),
    ],
)
def test_refresh_url(content: str, url: str | None) -> None:
    where = _refresh_url(content)
    assert (content[where[0] : where[1]] if where else None) == url


@pytest.mark.parametrize(
    ("raw", "decoded"),
    [
        ("a&amp;b", "a&b"),
        ("?a=1&copy=2", "?a=1&copy=2"),  # legacy entity before '=' stays literal
        ("?a=1&copyx", "?a=1&copyx"),  # ... and before an alphanumeric
        ("&copy;2", "©2"),
        ("&copy 2", "© 2"),
        ("&#47;&#x2f;&#X2F;", "///"),
        ("&nosuch;", "&nosuch;"),
        ("&notit;", "&notit;"),  # longest legacy name "&not" is followed by an alphanumeric
        ("&not.", "¬."),
        ("a&b", "a&b"),
    ],
)
def test_unescape_attribute(raw: str, decoded: str) -> None:
    assert unescape_attribute(raw) == decoded


@settings(deadline=None)
@given(st.text(alphabet=st.sampled_from(list("&#;xX0123456789abcdeflmnopt=<> \n")) | st.characters(), max_size=60))
def test_text_references_decode_like_html_unescape(text: str) -> None:
    assert _unescape_text(text) == html.unescape(text)


def test_huge_character_references_do_not_crash() -> None:
    # html.unescape raises ValueError here (int max-str-digits); a page must not stop the run.
    digits = "&#" + "1" * 5000 + ";"
    document = extract_html(f'<title>{digits}</title><a href="x{digits}">{digits}</a>', "p.html")
    assert document.links[0].url == "x\ufffd"
    assert document.page.title == "\ufffd"
    assert extract_html("<p>&#x" + "f" * 5000 + "</p>", "p.html").page.text == "\ufffd"
    long_name = "&" + "a" * 100_000 + ";"
    assert extract_html(f"<a href='{long_name}'>x</a>", "p.html").links[0].url == long_name


# --- agreement with a reference parser on random hostile markup ---------------------------

LINK_ATTRS = {
    "a": ("href",),
    "img": ("src", "srcset"),
    "script": ("src",),
    "link": ("href",),
    "iframe": ("src",),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "object": ("data",),
    "area": ("href",),
}


class ReferenceLinks(HTMLParser):
    """The same selection of links, found by the standard library's parser."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values: dict[str, str] = {}
        for name, value in attrs:
            values.setdefault(name, value or "")
        if values.get("id"):
            self.ids.add(values["id"])
        if tag == "a" and values.get("name"):
            self.ids.add(values["name"])
        for attr in values:  # in source order, like the spans
            if attr not in LINK_ATTRS.get(tag, ()):
                continue
            if attr == "srcset":  # the generator writes "url descriptor, url descriptor"
                self.urls.extend(part.split()[0] for part in values[attr].split(", ") if part.strip())
            elif values[attr].strip(" \t\n\r\f"):
                self.urls.append(values[attr].strip(" \t\n\r\f"))
        if tag == "img" and not any(values.get(attr, "").strip(" \t\n\r\f") for attr in ("src", "srcset")):
            self.urls.append("")  # an image with no source: reported, with an empty URL
        if tag == "meta" and values.get("http-equiv", "").lower() == "refresh":
            self.urls.append(values.get("content", "").split("url=", 1)[1])


def reference(text: str) -> tuple[list[str], set[str]]:
    parser = ReferenceLinks()
    parser.feed(text)
    parser.close()
    return parser.urls, parser.ids


SAFE = string.ascii_letters + string.digits + "./-_?#%"
url_text = st.text(SAFE, min_size=1, max_size=12)
entity = st.sampled_from(["&amp;", "&lt;", "&gt;", "&#38;", "&#x41;", "&eacute;"])
url_value = st.lists(st.one_of(url_text, entity), min_size=1, max_size=4).map("".join)
names = st.sampled_from(["a", "img", "script", "link", "iframe", "source", "video", "audio", "object", "area"])
filler_attr = st.sampled_from(
    ['class="x"', "title='a > b'", 'data-x="<a href=fake.html>"', "alt=plain", 'title="it\'s"', "hidden"]
)


def case(word: str, upper: bool) -> str:
    return word.upper() if upper else word


@st.composite
def link_tag(draw: st.DrawFn) -> str:
    name = draw(names)
    upper = draw(st.booleans())
    attrs = [draw(filler_attr) for _ in range(draw(st.integers(0, 2)))]
    for attr in LINK_ATTRS[name]:
        if not draw(st.booleans()):
            continue
        if attr == "srcset":
            urls = draw(st.lists(url_value, min_size=1, max_size=3))
            value = ", ".join(f"{u} {i + 1}x" for i, u in enumerate(urls))
        else:
            value = draw(url_value)
        quote = draw(st.sampled_from(['"', "'", ""]))
        if quote == "" and any(c in value for c in "&"):
            quote = '"'
        attrs.insert(draw(st.integers(0, len(attrs))), f"{case(attr, upper)}={quote}{value}{quote}")
    if draw(st.booleans()):
        attrs.append(f'id="{draw(url_text)}"')
    close = f"</{case(name, upper)}>" if name not in ("img", "link", "source", "area") else ""
    inner = 'var s = "<a href=in-script.html>";' if name == "script" else draw(st.sampled_from(["", "text"]))
    # script and iframe hold raw text up to their end tag (html.parser knows only script's).
    closed = draw(st.booleans()) or name in ("script", "iframe")
    return f"<{case(name, upper)} {' '.join(attrs)}>{inner}{close if closed else ''}"


noise = st.one_of(
    st.text(string.ascii_letters + " \n\t.,", max_size=20),
    st.just("<!-- <a href=in-comment.html> -->"),
    st.just("<p>"),
    st.just("</div>"),
    st.just("<br/>"),
    st.just("a < b"),
    st.just("<style>a[href='in-style.html']{}</style>"),
    st.just("<script>document.write('<img src=\"in-script.png\">')</script>"),
    st.just('<meta http-equiv="refresh" content="0; url=refresh.html">'),
    st.just("<b>bold <i>both</b> italic</i>"),
)
documents = st.lists(st.one_of(link_tag(), noise), max_size=25).map("".join)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.booleans())
def test_links_agree_with_html_parser(text: str, want_text: bool) -> None:
    document = extract_html(text, "random.html", want_text=want_text)
    urls, ids = reference(text)
    assert [link.url for link in document.links] == urls
    assert document.page.ids == ids
    assert_spans_exact(document, text)


# --- robustness ---------------------------------------------------------------------------


@settings(deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(list("<>\"'=/!-&;# \n")), max_size=300))
def test_never_raises_and_spans_stay_exact(text: str) -> None:
    for want_text in (True, False):
        document = extract_html(text, "garbage.html", want_text=want_text)
        assert_spans_exact(document, text)


def test_binary_garbage_and_nul_bytes() -> None:
    garbage = bytes(range(256)).decode("latin-1") * 50 + "\x00<a href='\x00x'>\x00</a>\ud800"
    for want_text in (True, False):
        document = extract_html(garbage, "bin.html", want_text=want_text)
        assert [link.url for link in document.links][-1] == "\x00x"
        assert_spans_exact(document, garbage)


def test_tag_that_never_ends_swallows_the_rest() -> None:
    text = """<a href="kept.html">x</a><a href="lost.html" title='open quote><a href="inside.html">"""
    assert [link.url for link in extract_html(text, "p.html").links] == ["kept.html"]


@pytest.mark.parametrize(
    "text",
    [
        "<a " * 3_400_000,  # 10 MB, one line, a tag that never ends
        "x" * 10_000_000,  # 10 MB, one line, no markup at all
        '<a title="' + "<b " * 3_300_000,  # an unterminated quote holding 10 MB of tags
        "<!--" + "<a href=x>" * 1_000_000,  # an unterminated comment
        "<p>" * 2_000_000 + "<a href=last.html>",  # 8 MB of tags, one line, the link at the end
    ],
    ids=["unterminated-tags", "no-markup", "unterminated-quote", "unterminated-comment", "many-tags"],
)
def test_huge_single_line_files(text: str) -> None:
    for want_text in (False, True):
        document = extract_html(text, "big.html", want_text=want_text)
        assert [link.url for link in document.links] == (["last.html"] if text.endswith("last.html>") else [])


def test_many_links_on_one_line() -> None:
    text = "<p>" + "<a href=x.html>x</a> " * 50_000  # 1 MB minified page
    document = extract_html(text, "min.html", want_text=False)
    assert len(document.links) == 50_000
    last = document.links[-1].span
    assert (last.line, last.column) == (1, text.rindex("x.html") + 1)


# --- many pages ---------------------------------------------------------------------------


def test_many_pages_in_worker_processes_equal_one_by_one() -> None:
    sources = [read_source(path) for path in sorted(GOLDEN.glob("*.html"))]
    # Enough text for the pool to start (it is skipped below a few megabytes).
    pages = [(sources[i % len(sources)] + "<p>" + "filler " * 60_000, f"p{i}.html") for i in range(12)]
    assert sum(len(text) for text, _ in pages) >= _POOL_MIN_CHARS
    for want_text in (False, True):
        expected = [extract_html(text, path, want_text=want_text) for text, path in pages]
        assert extract_html_many(pages, want_text=want_text, workers=2) == expected


def test_many_small_pages_and_one_worker() -> None:
    pages = [("<a href='x.html'>x</a>", "a.html"), ("<p id=y>", "b.html")]
    for workers in (1, 2, None):
        documents = extract_html_many(pages, workers=workers)
        assert [d.page.path for d in documents] == ["a.html", "b.html"]
        assert [link.url for link in documents[0].links] == ["x.html"]
        assert documents[1].page.ids == frozenset({"y"})
    assert extract_html_many([], workers=2) == []


def test_links_past_the_cap_are_left_out_and_said_so() -> None:
    from linkfix.formats.html import document_of_scan, scan_page

    text = "".join(f'<a href="/p{i}">p</a>\n' for i in range(10))
    for want_text in (True, False):
        document = document_of_scan("p.html", scan_page(text, want_text, max_links=4))
        assert [link.url for link in document.links] == ["/p0", "/p1", "/p2", "/p3"]
        assert document.warnings == ("only the first 4 links were kept",)
    assert extract_html(text, "p.html").warnings == ()
