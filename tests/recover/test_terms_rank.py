"""The IR maths against values computed by hand."""

import math
from collections import Counter

import pytest

from linkfix.recover import rank, terms


def test_tokenize_and_content_terms_drop_stop_words_and_short_tokens():
    assert terms.tokenize("Don't PANIC: the Guide's 42 answers") == ["don't", "panic", "the", "guide's", "42", "answers"]
    assert terms.content_terms("The quick fox and a 7 of 2024 x") == ["quick", "fox", "2024"]


def test_normalised_tf_follows_klein_nelson_eq1():
    tf = Counter({"a": 4, "b": 2, "c": 1})
    got = terms.normalised_tf(tf)
    assert got["a"] == pytest.approx(1.0)
    assert got["b"] == pytest.approx(0.4 + 0.6 * 0.5)
    assert got["c"] == pytest.approx(0.4 + 0.6 * 0.25)


def test_tf_idf_is_normalised_tf_times_log_inverse_probability():
    tf = Counter({"python": 2, "zyxwvutq": 1})
    got = terms.tf_idf(tf)
    p = terms.collection_probability("python")
    assert got["python"] == pytest.approx(1.0 * math.log(1 / p))
    # an unseen word gets the floor probability, hence the highest idf
    assert got["zyxwvutq"] == pytest.approx(0.7 * math.log(1 / terms.UNSEEN_PROBABILITY))


def test_kld_term_scores_prefer_rare_frequent_terms():
    tf = Counter({"the": 5, "sphinxdoc": 5})
    scores = terms.kld_term_scores(tf)
    p_the = terms.collection_probability("the")
    assert scores["the"] == pytest.approx(0.5 * math.log(0.5 / p_the))
    assert scores["sphinxdoc"] > scores["the"]


def test_lexical_signature_orders_by_tf_idf():
    # same frequency: the word the reference corpus never saw is the most specific
    text = "guide zyxwq guide zyxwq guide zyxwq page the the the the"
    assert terms.lexical_signature(text, 2) == ["zyxwq", "guide"]
    assert "the" not in terms.lexical_signature(text, 5)


def test_frequency_terms_excludes_given_terms():
    assert terms.frequency_terms("apple apple pear pear pear plum", 2, exclude=["pear"]) == ["apple", "plum"]


def test_cosine_by_hand():
    a = {"x": 1.0, "y": 2.0}
    b = {"x": 2.0, "z": 1.0}
    # a.b = 2, |a|^2 = 5, |b|^2 = 5
    assert rank.cosine(a, b) == pytest.approx(2 / 5)
    assert rank.cosine(a, {}) == 0.0


def test_set_dice_by_hand():
    assert rank.set_dice({"web", "link", "recovery"}, {"link", "recovery", "broken", "pages"}) == pytest.approx(2 * 2 / (3 + 4))
    assert rank.set_dice(set(), {"link"}) == 0.0


def test_jaccard_by_hand():
    assert rank.token_jaccard(["a", "b", "c"], ["b", "c", "d"]) == pytest.approx(2 / 4)
    assert rank.token_jaccard([], []) == 0.0


def test_kld_with_smoothing_by_hand():
    ref = {"a": 3, "b": 1}
    cand = {"a": 1, "c": 1}
    bg = {"a": 0.5, "b": 0.25, "c": 0.25}.get
    s = 0.1
    qa = 0.9 * 0.5 + 0.1 * 0.5
    qb = 0.9 * 0.0 + 0.1 * 0.25
    expected = 0.75 * math.log(0.75 / qa) + 0.25 * math.log(0.25 / qb)
    assert rank.kld(ref, cand, smoothing=s, background=bg) == pytest.approx(expected)
    # a document is closer to itself than to anything else
    assert rank.kld(ref, ref, smoothing=s, background=bg) < rank.kld(ref, cand, smoothing=s, background=bg)


def test_path_tokens_follow_alkwai_tokenisation_with_normalised_words():
    # lower case, split on non-letters, more than 2 letters, no file type; words reduced to stems
    assert rank.path_tokens("https://docs.example.org/en/v2/Getting-Started.html") == ["get", "start"]
    assert rank.path_tokens("https://docs.example.org/plugins/index.html") == rank.path_tokens("https://x.test/plugin/")


def test_home_page_detection():
    from linkfix.urls import is_home_page

    assert is_home_page("https://example.org/")
    assert is_home_page("https://example.org")
    assert not is_home_page("https://example.org/docs/")


def test_title_dice_ignores_the_site_name_part():
    anchor = terms.normal_terms("runpy documentation")
    title = "runpy — Locating and executing Python modules - PyHub Guides"
    # best part is "runpy": 2*1 / (2 + 1)
    assert rank.title_dice(anchor, title) == pytest.approx(2 / 3)
    assert rank.title_dice(anchor, "") == 0.0


def test_titles_agree_across_word_forms():
    assert terms.normal_terms("Installing Plugins") == terms.normal_terms("install plugin")
    assert rank.whole_title_dice("Admonitions - Material for MkDocs", "Admonition - Material for MkDocs") == pytest.approx(1.0)
    assert rank.whole_title_dice("Configuring the builder", "Builder configuration") == pytest.approx(1.0)
    assert rank.whole_title_dice("Translating", "Translations") == pytest.approx(1.0)  # one stem, "translat"
    assert rank.whole_title_dice("Plugins", "Themes") == 0.0


def test_a_shared_site_name_is_not_a_title_match():
    # the site's name is all two pages of a small site share: far from "same title"
    assert rank.whole_title_dice("Migrating from v1 - Acme Tools", "Acme Tools") < 0.8  # below "agrees" (gate.AGREES)
    assert rank.whole_title_dice("Migrating from v1 - Acme Tools", "Migrating from v1 - Acme Tools") == 1.0


def test_site_furniture_is_learned_from_the_titles_of_a_host():
    furniture = rank.TitleFurniture()
    for page in ("Install", "Usage", "Plugins", "Themes"):
        furniture.add(f"https://d.test/{page.lower()}/", f"{page} — Frob documentation")
    assert furniture.clean("Translating — Frob documentation", "https://d.test/old/") == "Translating"
    assert furniture.clean("Frob documentation", "https://d.test/") == "Frob documentation"  # nothing else would remain
    assert furniture.clean("Translating — Frob documentation", "https://other.test/x") == "Translating — Frob documentation"


def test_the_word_table_gives_probabilities_and_stems_sum_their_words():
    assert terms.collection_probability("the") > terms.collection_probability("python") > terms.UNSEEN_PROBABILITY
    assert terms.collection_probability("zyxwvutq") == terms.UNSEEN_PROBABILITY
    assert terms.stem_probability("instal") >= terms.collection_probability("install") + terms.collection_probability("installing")
    assert terms.word_zipf("the") > 7 and terms.word_zipf("zyxwvutq") == 0.0


def test_two_titles_of_one_site_are_compared_without_the_part_both_carry():
    from linkfix.recover.rank import without_shared_parts

    assert without_shared_parts("Migrating from v1 - tools.acme.test", "Acme tools - tools.acme.test") == ("Migrating from v1", "Acme tools")
    assert without_shared_parts("Install - Site", "Install - Site") == ("Install - Site", "Install - Site")  # nothing else: whole
    assert without_shared_parts("Site", "Usage - Site") == ("Site", "Usage - Site")  # one part only: nothing to learn
    assert without_shared_parts("A - B", "A - B - C") == ("A - B", "C")  # a title is kept whole when nothing else remains


def _evidence(candidate_url: str, candidate_title: str, candidate_text: str, copy_text: str) -> dict[str, float]:
    known = rank.Known(
        dead_url="https://docs.one.test/contrib/intro/",
        anchor_terms=frozenset(terms.normal_terms("Introduction")),
        copy_terms=Counter(terms.normal_terms(copy_text)),
        copy_title="Introduction",
    )
    return rank.similarity_features(known, candidate_url=candidate_url, candidate_title=candidate_title,
                                    candidate_terms=Counter(terms.normal_terms(candidate_text)))


def test_another_sites_page_with_the_same_title_but_not_the_text_has_little_word_evidence():
    copy = "how to contribute patches to the interpreter core and run its regression suite before review"
    here = _evidence("https://docs.one.test/intro/", "Introduction", copy, copy)
    there = _evidence("https://docs.other.test/intro/", "Introduction", "hatch builds wheels from pyproject metadata", copy)
    assert here["title_sim"] == here["anchor_title"] == 1.0 and here["title_exact"] == 1.0 and here["url_jaccard"] > 0
    # another project's "Introduction": its title and URL words say nothing without the copy's text
    assert there["content_cos"] < 0.2
    assert there["title_sim"] < 0.25 and there["anchor_title"] < 0.25 and there["url_jaccard"] < here["url_jaccard"] / 4
    assert there["title_exact"] == 0.0
    # the same page moved to another host, with its text: its words count in full
    moved = _evidence("https://docs.other.test/intro/", "Introduction", copy, copy)
    assert moved["content_cos"] >= rank.FOREIGN_AGREES and moved["title_sim"] == moved["anchor_title"] == 1.0


def test_title_exact_marks_the_same_title_only():
    copy = "contribute patches"
    assert _evidence("https://docs.one.test/a/", "Introduction", copy, copy)["title_exact"] == 1.0
    near = _evidence("https://docs.one.test/b/", "Introduction to patches", copy, copy)
    assert 0 < near["title_sim"] < 1 and near["title_exact"] == 0.0


def test_without_a_copy_another_sites_words_are_all_there_is():
    known = rank.Known(dead_url="https://docs.one.test/contrib/intro/", anchor_terms=frozenset(terms.normal_terms("Introduction")))
    there = rank.similarity_features(known, candidate_url="https://docs.other.test/intro/", candidate_title="Introduction",
                                     candidate_terms=Counter())
    assert there["anchor_title"] == 1.0 and there["url_jaccard"] > 0


def test_a_section_page_is_weighed_apart_for_a_dead_section_and_a_dead_leaf_page():
    # repo2docker's contributing/ section became contribute/: what the site had (the archive's
    # URLs) shows the dead URL was a section; a leaf page's section merely shares its context
    today = ["https://d.test/contribute/", "https://d.test/contribute/a.html", "https://d.test/contribute/b.html",
             "https://d.test/contribute/c.html", "https://d.test/contribute/contributing.html"]
    ever = [*today, "https://d.test/contributing/index.html", "https://d.test/contributing/roadmap.html",
            "https://d.test/contributing/tasks.html", "https://d.test/contributing/tests.html"]
    today_pages, ever_pages = rank.SitePages.of(today), rank.SitePages.of(ever)
    section = rank.Known(dead_url="https://d.test/contributing/index.html").on_site(today_pages, ever_pages)
    leaf = rank.Known(dead_url="https://d.test/contributing/tasks.html").on_site(today_pages, ever_pages)
    assert section.dead_was_section and not leaf.dead_was_section
    assert section.site == today_pages
    assert not rank.Known(dead_url="https://d.test/contributing/index.html").on_site(today_pages, today_pages).dead_was_section

    def kinds(known: rank.Known, url: str) -> tuple[float, float, float]:
        f = rank.similarity_features(known, candidate_url=url, candidate_title="", candidate_terms=Counter())
        return f["hub"], f["section_for_section"], f["section_for_page"]

    assert kinds(section, "https://d.test/contribute/") == (1.0, 1.0, 0.0)
    assert kinds(leaf, "https://d.test/contribute/") == (1.0, 0.0, 1.0)
    assert kinds(section, "https://d.test/contribute/contributing.html") == (0.0, 0.0, 0.0)


def test_a_page_the_dead_one_became_a_section_of_has_its_title_as_a_heading():
    # devguide's "Get the source code" page is a section of "Setup and building" now
    from linkfix.recover.pages import parse_page

    page = parse_page("https://d.test/setup-building/", 200, (
        "<html><head><title>Setup and building</title></head><body><nav><h2>Contents</h2></nav><main>"
        "<h1>Setup and building</h1><section><span id='checkout'></span><h2>Get the source code ¶</h2><p>Fork it.</p>"
        "</section><h3>Install dependencies</h3><h5>Fine print</h5></main></body></html>"))
    assert page.headings == ("Get the source code", "Install dependencies")  # h2-h4 of the content, not the nav; no permalink sign
    known = rank.Known(dead_url="https://d.test/contrib/get-source/", copy_title="Get the source code",
                       copy_terms=Counter(terms.normal_terms("fork the repository")))
    merged = rank.similarity_features(known, candidate_url=page.url, candidate_title=page.title, candidate_terms=Counter(),
                                      candidate_headings=page.headings)
    assert merged["heading_sim"] == 1.0 and merged["title_sim"] == 0.0
    # without a copy the link text stands for the title; a one-word title heads sections of many pages
    by_anchor = rank.Known(dead_url=known.dead_url, anchor_terms=frozenset(terms.normal_terms("Install dependencies")))
    assert rank.heading_dice(by_anchor, page.headings) == 1.0
    assert rank.heading_dice(rank.Known(dead_url=known.dead_url, copy_title="Governance"), ["Governance"]) == 0.0
    assert rank.heading_dice(known, ()) == 0.0
