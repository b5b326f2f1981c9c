"""soft404: the random-sibling probe and the page comparison."""

from __future__ import annotations

from linkfix.check import soft404
from linkfix.urls import sibling_key


def _page(title: str, words: str) -> str:
    return f"<html><head><title>{title}</title></head><body><main><p>{words}</p></main></body></html>"


TEMPLATE = "We looked everywhere but the page {path} is not here. Try the search box or go back to the start page of the handbook."


def test_probe_url_is_a_sibling_with_the_same_extension():
    probe = soft404.probe_url("https://docs.example.org/guide/install.html?x=1#frag")
    assert probe.startswith("https://docs.example.org/guide/linkfix-")
    assert probe.endswith(".html")
    assert soft404.probe_url("https://docs.example.org/guide/") .startswith("https://docs.example.org/linkfix-")
    assert soft404.probe_url("https://x.org/a") != soft404.probe_url("https://x.org/a")  # random each time


def test_sibling_key_groups_pages_of_one_directory():
    assert sibling_key("https://X.org/guide/a.html") == sibling_key("https://x.org/guide/b.html")
    assert sibling_key("https://x.org/guide/a.html") != sibling_key("https://x.org/blog/a.html")
    assert sibling_key("https://x.org/guide/") == sibling_key("https://x.org/other/")


def test_template_page_matches_the_probe():
    probe = soft404.Probe(status=200, sketch=soft404.sketch(_page("Handbook", TEMPLATE.format(path="/x/linkfix-1")), "https://x.org/x/linkfix-1"))
    dead = soft404.sketch(_page("Handbook", TEMPLATE.format(path="/x/old-page")), "https://x.org/x/old-page")
    assert soft404.is_soft404(dead, probe)


def test_real_page_differs_from_the_probe():
    probe = soft404.Probe(status=200, sketch=soft404.sketch(_page("Handbook", TEMPLATE.format(path="/x/linkfix-1")), "https://x.org/x/linkfix-1"))
    live = soft404.sketch(
        _page("Install guide", "Run pip install handbook then configure the cache directory and the proxy settings before the first build."),
        "https://x.org/x/install",
    )
    assert not soft404.is_soft404(live, probe)


def test_not_found_title_on_a_lenient_host():
    probe = soft404.Probe(status=200, sketch=soft404.sketch(_page("Oops, page not found", "welcome home"), "https://x.org/x/linkfix-1"))
    dead = soft404.sketch(_page("Page Not Found | Handbook", "something else entirely " * 5), "https://x.org/x/y")
    assert soft404.is_soft404(dead, probe)


def test_a_title_mentioning_404_is_not_enough():
    # A live page about error codes on a host that answers 200 with real-looking pages.
    probe = soft404.Probe(status=200, sketch=soft404.sketch(_page("Linkfix 1 - Docs", "random words " * 9), "https://x.org/x/linkfix-1"))
    page = soft404.sketch(_page("Error 404 Codes - Docs", "how to read http status codes " * 5), "https://x.org/x/error-404-codes")
    assert not soft404.is_soft404(page, probe)


def test_a_title_with_404_in_it_is_not_a_not_found_title():
    # Found by the benchmark: a live chapter whose title ends in the number 404, on a host
    # whose answer for a random path is titled "Page not found".
    probe = soft404.Probe(status=200, sketch=soft404.sketch(_page("404 - Not Found - Docs", TEMPLATE.format(path="/x/linkfix-1")), "https://x.org/x/linkfix-1"))
    chapter = soft404.sketch(_page("Chapter Image 404 - Docs", "the chapter about images and their captions " * 5), "https://x.org/x/chapter-image-404")
    assert not soft404.is_soft404(chapter, probe)
    for title in ("404 - Page not found | Docs", "Oops! That page can't be found - Docs", "Error 404"):
        gone = soft404.sketch(_page(title, "nothing like the template at all " * 5), "https://x.org/x/gone")
        assert soft404.is_soft404(gone, probe), title


def test_honest_host_is_never_soft404():
    honest = soft404.Probe(status=404)
    dead_looking = soft404.sketch(_page("Page not found", TEMPLATE), "https://x.org/x/y")
    assert not honest.lenient
    assert not soft404.is_soft404(dead_looking, honest)


def test_same_catch_all_target():
    probe = soft404.Probe(status=200, sketch=soft404.sketch(_page("Home", "a b c d e"), "https://x.org/"))
    page = soft404.sketch(_page("Home", "totally different words here and there"), "https://x.org/")
    assert soft404.is_soft404(page, probe)


def test_shingles_are_stable():
    a = soft404.shingles(soft404.words_of("one two three four five six"))
    assert a == soft404.shingles(soft404.words_of("One  two\nthree FOUR five six"))
    assert len(a) == 3
    assert frozenset(soft404.sketch("<title>t</title><p>one two three four five six</p>", "https://x.org/p").shingles.tolist()) == a


def test_read_page_ignores_scripts_and_survives_garbage():
    title, words = soft404.read_page("<title> A  title </title><body>visible<script>var hidden = 1</script></body>", "https://x.org/p")
    assert title == "A title"
    assert "visible" in words and "hidden" not in words
    assert soft404.read_page("\x00\x01 not html at all", "https://x.org/p") is not None


def _words_page(seed: int, n: int, shared: int) -> str:
    """A page of `n` words whose first `shared` words are the same on every page."""
    common = [f"w{i}" for i in range(shared)]
    own = [f"s{seed}x{i}" for i in range(n - shared)]
    return _page("Handbook", " ".join(common + own))


def _jaccard(a, b) -> float:
    """The plain Jaccard index, the rule `is_soft404`'s faster form must agree with."""
    first, second = set(a), set(b)
    return len(first & second) / len(first | second) if first or second else 1.0


def test_one_use_page_sketches_judge_like_compact_ones():
    # A checked page's sketch keeps its set (compact=False); probes keep arrays. Both forms,
    # across pages from identical to disjoint and of different lengths, give one verdict,
    # and it is the plain Jaccard rule's.
    probe_html = _words_page(0, 200, 200)
    probe = soft404.Probe(status=200, sketch=soft404.sketch(probe_html, "https://x.org/d/linkfix-1"))
    for n, shared in [(200, 200), (200, 190), (200, 150), (240, 200), (120, 120), (200, 0), (10, 10), (3, 3)]:
        html = _words_page(1, n, shared)
        compact = soft404.sketch(html, "https://x.org/d/page")
        loose = soft404.sketch(html, "https://x.org/d/page", compact=False)
        expected = _jaccard(compact.shingles, probe.sketch.shingles) >= soft404.SIMILAR
        assert soft404.is_soft404(compact, probe) is expected
        assert soft404.is_soft404(loose, probe) is expected
    assert soft404.is_soft404(soft404.sketch(probe_html, "https://x.org/d/other", compact=False), probe)
    assert not soft404.is_soft404(soft404.sketch(_words_page(2, 200, 0), "https://x.org/d/p", compact=False), probe)


def test_hidden_text_is_dropped_whatever_the_tag_case():
    page = "<TITLE>T</TITLE><BODY>shown<SCRIPT>hidden()</SCRIPT><Style>.x{}</Style></BODY>"
    assert soft404.read_page(page, "https://x.org/p") == ("T", ("shown",))
    assert soft404.read_page("<title>T</title><body>plain   text\n here</body>", "https://x.org/p") == ("T", ("plain", "text", "here"))
