"""Page sources rendered as their generators would: heading ids, links between pages, roles and
directives, and the search indexes in the formats linkfix's site provider reads."""

from __future__ import annotations

import json

from realmoves_sample import MK_BASE, SX_BASE, sample_dataset

from linkfix.recover.providers.site import parse_mkdocs_index, parse_sitemap, parse_sphinx_index
from linkfix_simweb.realmoves.render import SiteLinks, render_source
from linkfix_simweb.realmoves.sitefiles import mkdocs_search_index, page_html, sitemap_xml, sphinx_search_index, sphinx_terms

DATASET = sample_dataset()
MKDOCS, SPHINX = DATASET.sites


def rendered(site, path):
    page = next(p for p in site.pages if p.path == path)
    return page, render_source(page.source, page.path, SiteLinks.of(site))


def test_markdown_heading_ids_are_mkdocs_slugs_and_source_links_become_page_urls():
    _, out = rendered(MKDOCS, "guide/install.md")
    assert '<h2 id="requirements-setup">Requirements &amp; Setup</h2>' in out.body
    assert '<h2 id="upgrading">Upgrading</h2>' in out.body
    assert f'href="{MK_BASE}"' in out.body  # ../index.md -> the home page's URL
    assert "title: Installing Example" not in out.body  # front matter is not content
    assert 'class="admonition note"' in out.body
    assert [s[0] for s in out.sections] == ["requirements-setup", "upgrading"]
    _, home = rendered(MKDOCS, "index.md")
    assert f'href="{MK_BASE}guide/install/#requirements"' in home.body


def test_rst_roles_toctree_and_unknown_directives_render_as_sphinx_shows_them():
    _, out = rendered(SPHINX, "index.rst")
    assert f'href="{SX_BASE}usage/start.html">Getting started with widgets</a>' in out.body  # :doc: and toctree
    assert f'href="{SX_BASE}usage/start.html#configuration-options">the options</a>' in out.body  # :ref: to a label
    assert "gone-page" not in out.body  # a toctree entry naming no document is left out, as Sphinx does
    assert "Text inside a directive Sphinx knows." in out.body
    assert "print('hello')" in out.body
    assert "System Message" not in out.body and "Unknown" not in out.body


def test_myst_pages_get_docutils_ids_and_their_roles_and_fences_unwrapped():
    _, out = rendered(SPHINX, "usage/start.md")
    assert '<h2 id="configuration-options">Configuration options</h2>' in out.body
    assert '<h2 id="upgrading-to-3-11">' in out.body  # docutils' make_id; MkDocs would say upgrading-to-311
    assert "Widgets are configured in" in out.body and "{note}" not in out.body
    assert f'href="{SX_BASE}usage/start.html#getting-started-with-widgets">Getting started with widgets</a>' in out.body
    assert f'href="{SX_BASE}index.html">the index</a>' in out.body
    assert "(options)=" not in out.body


def test_a_page_carries_its_real_title_in_title_and_h1():
    page, out = rendered(MKDOCS, "guide/install.md")
    html = page_html(MKDOCS, page.url, page.title, out)
    assert "<title>Installing Example - Example</title>" in html
    assert "<h1" in html and "Installing Example</h1>" in html
    page, out = rendered(SPHINX, "usage/start.md")
    assert "<title>Getting started with widgets — Widgets documentation</title>" in page_html(SPHINX, page.url, page.title, out)


def test_mkdocs_search_index_is_read_back_by_linkfix_as_the_site_pages():
    entries = [(p.url, p.title, rendered(MKDOCS, p.path)[1]) for p in MKDOCS.pages]
    text = mkdocs_search_index(MKDOCS, entries)
    docs = json.loads(text)["docs"]
    assert {"location": "guide/install/#upgrading", "title": "Upgrading", "text": "Run the upgrade command."} in docs
    hits = {h.url: h for h in parse_mkdocs_index(text, MK_BASE)}
    assert set(hits) == {MK_BASE, MK_BASE + "guide/install/"}
    assert hits[MK_BASE + "guide/install/"].title == "Installing Example"


def test_sphinx_search_index_has_stemmed_terms_and_docnames_linkfix_reads():
    entries = [(p.path, p.url, p.title, rendered(SPHINX, p.path)[1]) for p in SPHINX.pages]
    text = sphinx_search_index(SPHINX, entries)
    assert text.startswith("Search.setIndex(") and text.endswith(")")
    data = json.loads(text[len("Search.setIndex("):-1])
    assert data["docnames"] == ["index", "usage/start"]
    assert data["titles"] == ["Widgets", "Getting started with widgets"]
    assert "configur" in data["terms"]  # Snowball English stems, as Sphinx indexes words
    assert data["titleterms"]["widget"] == [0, 1]
    assert data["alltitles"]["Configuration options"] == [[1, "configuration-options"]]
    assert {h.url for h in parse_sphinx_index(text, SX_BASE)} == {SX_BASE + "index.html", SX_BASE + "usage/start.html"}


def test_sphinx_terms_leave_out_stop_words_and_keep_what_the_stemmer_would_drop():
    assert sphinx_terms("The running of widgets is configured") == {"run", "widget", "configur"}


def test_sitemap_lists_the_pages():
    assert parse_sitemap(sitemap_xml([(MK_BASE, None), (MK_BASE + "guide/install/", None)]))[0] == [MK_BASE, MK_BASE + "guide/install/"]


def test_a_labelled_rst_section_is_a_section_too():
    # docutils writes a section's label (`.. _checkout:`) as an empty span before the heading;
    # Sphinx's alltitles lists that section like any other
    from linkfix_simweb.realmoves.render import sections_of

    body = ('<section id="get-the-source-code">\n<span id="checkout"></span><h2>Get the source code</h2>\n<p>Fork it.</p>\n'
            '</section>\n<section id="build"><h2>Build</h2><p>Run make.</p></section>')
    assert [(ident, heading) for ident, heading, _ in sections_of(body)] == [("get-the-source-code", "Get the source code"),
                                                                            ("build", "Build")]
