"""A scanned HTML page's links made on demand (formats/html/scanned.py): the same Links as made at
once, and an offline check of a built site makes only those of the results it keeps."""

from __future__ import annotations

import asyncio
import pickle

import pytest

from linkfix.config import Config
from linkfix.extract import worker as extract_worker
from linkfix.formats.html import document_of_scan, extract_html, scan_page, scanned
from linkfix.model import LinkKind
from linkfix.pipeline import run_check

PAGE = (
    '<html><body><h1 id="top">T</h1>\n'
    '<a href="a.html" title="the A page"><code class="x"><span class="pre">a()</span></code></a>\n'
    '<a class="headerlink" href="#top" title="Permalink">\n</a>\n'
    '<a href="b.html"><img src="b.png" alt="B logo"></a> <img src="c.png" alt="C &amp; D">\n'
    "<a href='d.html'>D <b>bold</b> &amp; more</a> <a href=e.html>E <i"
)


@pytest.fixture
def count_made(monkeypatch):
    made: list[str] = []
    real = scanned.make_link

    def counting(url, *args, **kwargs):
        made.append(url)
        return real(url, *args, **kwargs)

    monkeypatch.setattr(scanned, "make_link", counting)
    return made


def test_links_made_on_demand_are_the_links_made_at_once(count_made):
    at_once = document_of_scan("p.html", scan_page(PAGE, False))
    on_demand = document_of_scan("p.html", scan_page(PAGE, False), links_on_demand=True)
    count_made.clear()
    assert on_demand.links.resolved(lambda url, as_written: (url, as_written)) == [
        (link.url, link.kind is LinkKind.HTML and link.span.start != link.span.end) for link in at_once.links
    ]
    assert count_made == []  # resolving reads the rows: no Link is made
    assert on_demand.links[2] == at_once.links[2] and count_made == ["b.html"]
    assert on_demand.links[2] is on_demand.links[2]  # made once
    assert list(on_demand.links) == list(at_once.links) and on_demand == at_once
    assert on_demand.links[1:3] == at_once.links[1:3] and len(on_demand.links) == len(at_once.links) == 7
    assert pickle.loads(pickle.dumps(on_demand)).links == at_once.links


def test_the_fast_pass_anchor_texts_made_later_read_as_before():
    fast = extract_html(PAGE, "p.html", want_text=False)
    assert [(link.url, link.anchor_text) for link in fast.links] == [
        ("a.html", "a()"),  # the markup dropped
        ("#top", "Permalink"),  # no text: the title
        ("b.html", ""),  # an image only (its alt is the image's own)
        ("b.png", "B logo"),
        ("c.png", "C & D"),
        ("d.html", "D bold & more"),
        ("e.html", "E"),  # a tag cut by the end of the page is dropped
    ]


def _built_site(docs, pages: int) -> None:
    docs.mkdir()
    for i in range(pages):
        (docs / f"p{i:03d}.html").write_text(
            f'<html><body><h1 id="top">P{i}</h1><a href="p{(i + 1) % pages:03d}.html">next page</a> '
            f'<a href="p{i:03d}.html#top">top</a> <a href="mailto:x@example.com">mail</a>'
            + ('\n<a href="gone.html"><em>the gone</em> page</a>' if i == 7 else "")
            + "</body></html>\n",
            encoding="utf-8",
        )


@pytest.mark.parametrize("keep_all", [False, True])
def test_an_offline_check_of_a_built_site_makes_the_links_of_the_results_it_keeps(tmp_path, count_made, keep_all):
    docs = tmp_path / "site"
    pages = extract_worker.MIN_FILES + 5
    _built_site(docs, pages)
    config = Config(offline=True, cache=False)
    report = asyncio.run(run_check([str(docs)], config, keep_all=keep_all))
    broken = [r for r in report.results if r.result.status.value == "broken"]
    assert [(r.link.url, r.link.anchor_text, r.link.span.line, r.link.span.path.endswith("p007.html")) for r in broken] == [
        ("gone.html", "the gone page", 2, True)
    ]
    assert report.files == pages
    if keep_all:  # the JSON and JUnit reports list every link
        assert len(report.results) == len(count_made) == 3 * pages + 1
    else:  # a working link, and one not checked, are only counted
        # The pages parsed here before the workers start are made whole (extract_file); of the
        # workers' pages, only the link whose result is kept.
        parsed_here = extract_worker.MIN_MISSES - 1
        assert len(count_made) == 3 * parsed_here + 1 and count_made[-1] == "gone.html"
        assert sum(report.counted.values()) == 3 * pages
