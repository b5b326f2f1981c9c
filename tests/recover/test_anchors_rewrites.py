from linkfix.recover.anchors import analyse_anchor, has_named_entity, is_bare_url
from linkfix.recover.rewrites import LearnedRewrites, cheap_rewrites, learn_rule


def test_stop_anchors_and_bare_urls_are_weak():
    for text in ("here", "Click here", "link", "https://example.org/x", "www.example.org", "example.org/page", ""):
        anchor = analyse_anchor(text)
        assert anchor.stop and anchor.weak, text
    assert is_bare_url("http://x.test/a")
    assert not is_bare_url("the tutorial")


def test_one_term_without_named_entity_is_weak_but_a_name_is_not():
    assert analyse_anchor("tutorial").weak
    assert not analyse_anchor("Debian").weak  # rare capitalised word: a name
    assert not analyse_anchor("RFC7089").weak
    assert not analyse_anchor("installation guide").weak  # two terms


def test_named_entity_heuristic():
    assert has_named_entity("the HTTP spec")
    assert has_named_entity("GitHub")
    assert has_named_entity("Python 3.11 docs")
    assert not has_named_entity("the tutorial")
    assert not has_named_entity("Tutorial")  # capitalised, but a common word


def test_cheap_rewrites_are_plausible_and_exclude_the_url():
    rules = dict((rule, url) for url, rule in cheap_rewrites("http://example.org/docs/Guide.html"))
    assert rules["https"] == "https://example.org/docs/Guide.html"
    assert rules["html-to-directory"] == "http://example.org/docs/Guide/"
    assert "http://example.org/docs/Guide.html" not in rules.values()
    gh = cheap_rewrites("https://github.com/o/r/blob/master/README.md")
    assert gh[0] == ("https://github.com/o/r/blob/main/README.md", "github-master-main")
    assert cheap_rewrites("mailto:x@example.org") == []


def test_learned_rule_carries_a_restructure_to_other_pages():
    rule = learn_rule("https://a.test/docs/v1/install.html", "https://a.test/guide/install/")
    assert rule is not None
    assert rule.apply("https://a.test/docs/v1/usage.html") == "https://a.test/guide/usage/"
    assert rule.apply("https://b.test/docs/v1/usage.html") is None  # other host
    assert rule.apply("https://a.test/other/usage.html") is None  # outside the moved tree
    # a renamed page teaches nothing
    assert learn_rule("https://a.test/docs/a.html", "https://a.test/docs/b.html") is None


def test_learned_rewrites_rank_by_support():
    learned = LearnedRewrites()
    learned.record("https://a.test/old/x.html", "https://a.test/new/x.html")
    learned.record("https://a.test/old/y.html", "https://a.test/new/y.html")
    learned.record("https://a.test/old/z.html", "https://c.test/old/z.html")
    out = learned.rewrites("https://a.test/old/w.html")
    assert out[0][0] == "https://a.test/new/w.html" and out[0][2] == 2
    assert out[1][0] == "https://c.test/old/w.html"
