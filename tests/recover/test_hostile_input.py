"""Whatever a server sends, the parsers answer with data (maybe empty), never an exception."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from linkfix.recover.anchors import analyse_anchor
from linkfix.recover.pages import parse_page
from linkfix.recover.providers.brave import parse_brave
from linkfix.recover.providers.marginalia import parse_marginalia
from linkfix.recover.providers.memento import mementos
from linkfix.recover.providers.searxng import parse_searxng
from linkfix.recover.providers.site import parse_mkdocs_index, parse_robots_sitemaps, parse_sitemap, parse_sphinx_index
from linkfix.recover.providers.wayback import parse_availability, parse_cdx_json
from linkfix.recover.rewrites import cheap_rewrites, learn_rule

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


@settings(deadline=None)
@given(st.one_of(st.text(max_size=300), json_values.map(json.dumps)))
def test_parsers_never_raise(text):
    parse_cdx_json(text)
    parse_availability(text)
    mementos(text)
    parse_searxng(text, "q", 10)
    parse_brave(text, "q", 10)
    parse_marginalia(text, "q", 10)
    parse_sitemap(text)
    parse_robots_sitemaps(text)
    parse_mkdocs_index(text, "https://h.test/")
    parse_sphinx_index(f"Search.setIndex({text})", "https://h.test/")
    parse_page("https://h.test/p", 200, text)
    analyse_anchor(text)


@settings(deadline=None)
@given(st.text(max_size=80), st.text(max_size=80))
def test_url_rules_never_raise(a, b):
    cheap_rewrites(a)
    rule = learn_rule("https://h.test/" + a, "https://h.test/" + b)
    if rule is not None:
        rule.apply("https://h.test/" + a)
