"""CSS URLs (formats/css) in stylesheets, <style> elements and style attributes: exact spans."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from linkfix.fix.patch import format_target
from linkfix.formats.css import css_urls, extract_css, unescape_css
from linkfix.formats.html import extract_html
from linkfix.model import LinkKind, make_span


def urls(text: str) -> list[tuple[str, str, str]]:
    return [(text[lo:hi], url, how) for lo, hi, url, how in css_urls(text)]


def test_url_forms_imports_and_what_is_not_a_url():
    text = ('@import url("a.css"); @import \'b.css\' screen; @IMPORT "c.css";\n'
            '/* url(comment.png) */ x { content: "url(string.png)"; background: url( spaced.png ) url() }\n'
            "y { src: url(f.woff2) format('woff2'); mask: URL(#id); bad: url(two words.png); fn: myurl(no.png) }\n"
            'z { background: url("unterminated')
    assert urls(text) == [("a.css", "a.css", "url()"), ("b.css", "b.css", "@import"), ("c.css", "c.css", "@import"),
                          ("spaced.png", "spaced.png", "url()"), ("f.woff2", "f.woff2", "url()"), ("#id", "#id", "url()")]


def test_escapes_are_decoded_in_the_url_not_in_its_span():
    text = r'a { b: url(x\29 y.png); c: url("q\"uote.png"); d: url(caf\E9 .png) }'
    assert [(raw, url) for raw, url, _ in urls(text)] == [(r"x\29 y.png", "x)y.png"), (r'q\"uote.png', 'q"uote.png'),
                                                          (r"caf\E9 .png", "café.png")]
    assert unescape_css("\\0 \\D800 x") == "\ufffd\ufffdx"  # no NUL, no lone surrogate


def test_a_stylesheet_document_has_exact_spans_lines_and_columns():
    text = "a {}\n  b { background: url(img/x.png) }\n@import 'more.css';\n"
    document = extract_css(text, "site/css/main.css")
    assert [(link.url, link.kind, link.tag, link.span.line, link.span.column) for link in document.links] == [
        ("img/x.png", LinkKind.CSS, "url()", 2, 23), ("more.css", LinkKind.CSS, "@import", 3, 10)]
    for link in document.links:
        assert text[link.span.start:link.span.end] == link.url


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("url(@import)'\"\\/* ;{}ab.9\n")), max_size=200))
def test_any_text_gives_spans_that_spell_their_urls(text: str) -> None:
    for lo, hi, url, _ in css_urls(text):
        assert 0 <= lo < hi <= len(text)
        assert unescape_css(text[lo:hi]) == url


def test_the_html_scan_reads_style_elements_and_attributes_not_disabled_stylesheets():
    text = ('<link rel="stylesheet" href="off.css" disabled><link rel="alternate stylesheet" href="alt.css">'
            '<style>p { background: url(bg.png) }</style><template><style>q { background: url(t.png) }</style></template>'
            '<span class="usual button" style="background: url(&apos;a&amp;b.png&apos;)">x</span>'
            '<td STYLE=background:url(cell.png)>y</td>')
    for want_text in (False, True):
        document = extract_html(text, "p.html", want_text=want_text)
        assert [(link.url, link.tag, link.kind) for link in document.links] == [
            ("alt.css", "link[href]", LinkKind.HTML), ("bg.png", "style", LinkKind.CSS),
            ("a&b.png", "span[style]", LinkKind.HTML), ("cell.png", "td[style]", LinkKind.HTML)]
        spelled = [text[link.span.start:link.span.end] for link in document.links]
        assert spelled == ["alt.css", "bg.png", "a&amp;b.png", "cell.png"]


def test_a_fix_of_a_css_url_is_written_so_that_css_reads_it_back():
    span = make_span("x.css", 1, 1, 0, 0)
    assert format_target("new dir/a(1).png", kind=LinkKind.CSS, tag="url()", span=span, text="") == "new%20dir/a%281%29.png"
    assert format_target("a&b 'c'.png", kind=LinkKind.HTML, tag="div[style]", span=span, text="") == "a&amp;b%20%27c%27.png"
