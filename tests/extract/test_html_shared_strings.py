"""A site's repeated URLs and anchor texts are held once (issue 26: memory that grows with the
copies of a site, not with each repetition of its navigation)."""

from linkfix.formats.html import extract_html

PAGE = '<p><a href="../{0}index.html">Home &amp; {0}more</a> <a href="genindex.html">Index</a></p>'


def test_pages_share_one_string_per_url_and_anchor_text():
    first = extract_html("".join(["x", PAGE.format("")]), "a/one.html", want_text=False)
    second = extract_html(PAGE.format(""), "b/two.html", want_text=False)
    for mine, theirs in zip(first.links, second.links, strict=True):
        assert mine.url == theirs.url and mine.url is theirs.url
        assert mine.anchor_text == theirs.anchor_text and mine.anchor_text is theirs.anchor_text
    assert [link.anchor_text for link in first.links] == ["Home & more", "Index"]


def test_what_differs_stays_apart():
    first = extract_html(PAGE.format(""), "a.html", want_text=False)
    other = extract_html(PAGE.format("sub/"), "b.html", want_text=False)
    assert [link.url for link in other.links] == ["../sub/index.html", "genindex.html"]
    assert first.links[0].url != other.links[0].url and other.links[0].anchor_text == "Home & sub/more"
