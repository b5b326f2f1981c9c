"""The gate's rules for automatic fixes: a confident top candidate is still held for review when
it is a page above the dead one, a weak section page, a page the archived copy speaks against,
when a runner-up has the same evidence, or when a shared page name is all there is."""

from linkfix.recover.gate import Scored, evidence_kinds, hold_reason

SAME_TITLE = {"same_name": 1.0, "title_sim": 1.0, "has_copy": 1.0, "content_cos": 0.6, "copy_coverage": 0.7}


def scored(url, confidence=0.95, **features):
    return Scored(url=url, key=url.rstrip("/"), confidence=confidence, features=features)


def test_evidence_kinds_name_what_is_strong():
    assert evidence_kinds(SAME_TITLE) == {"name", "title"}
    assert evidence_kinds({"content_cos": 0.9}) == {"copy"}
    assert evidence_kinds({"copy_coverage": 0.95}) == {"copy"}
    assert evidence_kinds({"rewrite": 1.0, "learned": 0.5}) == {"rule"}
    assert evidence_kinds({"in_exact": 1.0}) == {"in-links"}
    assert evidence_kinds({"title_sim": 0.5, "content_cos": 0.5}) == frozenset()


def test_a_clear_winner_is_not_held():
    top = scored("https://d.test/new/page/", **SAME_TITLE)
    other = scored("https://d.test/other/", 0.2, title_sim=0.3, content_cos=0.2)
    assert hold_reason(top, [other]) == ""


def test_a_runner_up_with_the_same_evidence_holds_the_top_candidate():
    # two same-name pages with the same title: nothing tells them apart
    top = scored("https://d.test/examples/groq/", **SAME_TITLE)
    twin = scored("https://d.test/integrations/groq/", 0.6, **SAME_TITLE)
    assert hold_reason(top, [twin]) == "https://d.test/integrations/groq/ has the same evidence (name, title)"
    # the same page under another URL is no rival
    assert hold_reason(top, [Scored(url="https://d.test/examples/groq/index.html", key=top.key, confidence=0.9,
                                    features=SAME_TITLE)]) == ""


def test_a_look_alike_does_not_hold_the_page_the_site_itself_links_to_by_that_name():
    # hatch's "Version scheme plugins" reference page and its "standard" sibling: both titles are
    # close to the archived one, but the site's other pages link only to the first by that name
    top = scored("https://d.test/plugins/version-scheme/reference/", 0.99, title_sim=1.0, in_exact=1.0, content_cos=0.73)
    sibling = scored("https://d.test/plugins/version-scheme/standard/", 0.02, title_sim=0.67, anchor_title=0.8, content_cos=0.74)
    assert hold_reason(top, [sibling]) == ""
    # named so on both sides, nothing tells them apart again
    named_too = scored("https://d.test/plugins/version-scheme/standard/", 0.02, title_sim=0.8, in_exact=1.0)
    assert hold_reason(top, [named_too]).endswith("has the same evidence (in-links, title)")


def test_a_shared_page_name_alone_is_held_but_a_unique_one_with_a_title_is_not():
    generic = scored("https://d.test/plugins/builder/reference/", same_name=1.0, name_unique=0.0, title_sim=0.2)
    assert "only the page name agrees" in hold_reason(generic, [])
    unique = scored("https://d.test/setup/frobnicator-install/", same_name=1.0, name_unique=1.0)
    assert hold_reason(unique, []) == ""


def test_home_and_section_pages_are_held_unless_the_dead_page_was_merged_into_them():
    section = scored("https://d.test/internals/", above=1.0, hub=1.0, title_sim=0.4, context_cos=0.6)
    assert "above the dead one" in hold_reason(section, [])
    merged = scored("https://d.test/internals/", above=1.0, copy_coverage=0.95, content_cos=0.7)
    assert hold_reason(merged, []) == ""


def test_the_sites_own_redirect_is_never_held():
    assert hold_reason(scored("https://d.test/", redirect=1.0, above=1.0), []) == ""


def test_a_section_page_winning_without_strong_evidence_is_held():
    hub = scored("https://d.test/developer-workflow/", hub=1.0, title_sim=0.67, content_cos=0.45, copy_coverage=0.53, context_cos=0.3)
    assert "section page" in hold_reason(hub, [])
    titled = scored("https://d.test/core-team/", hub=1.0, title_sim=1.0, same_name=1.0, name_unique=1.0)
    assert hold_reason(titled, []) == ""


def test_a_page_the_archived_copy_speaks_against_is_held_unless_its_own_name_and_title_agree():
    # langgraph's agents/human-in-the-loop/ went to a how-to; concepts/human_in_the_loop/ has the
    # title, but holds under half of the archived text and reads unlike it
    look_alike = dict(title_sim=1.0, anchor_title=1.0, title_exact=1.0, in_exact=1.0, has_copy=1.0, copy_coverage=0.46,
                      content_cos=0.44, same_host=1.0)
    top = scored("https://d.test/concepts/human_in_the_loop/", 0.97, **look_alike)
    assert hold_reason(top, []) == "the archived copy speaks against it: it holds less than half of the dead page's text"
    # devguide's contrib/security/: only the URL (a rewrite to security/) agrees; held as well
    url_only = dict(same_name=1.0, name_unique=1.0, rewrite=1.0, has_copy=1.0, copy_coverage=0.46, content_cos=0.49, title_sim=0.5)
    assert hold_reason(scored("https://d.test/security/", 0.95, **url_only), []).startswith("the archived copy speaks against it")
    # a page rewritten where it stands keeps its unique name and its title (devguide's gdb/)
    rewritten = look_alike | {"same_name": 1.0, "name_unique": 1.0}
    assert hold_reason(scored("https://d.test/development-tools/gdb/", 0.97, **rewritten), []) == ""
    # ... but a name other pages share is not its own
    assert hold_reason(scored("https://d.test/concepts/streaming/", 0.97, **(rewritten | {"name_unique": 0.0})), []) != ""
    # the copy agrees (holds half of it, or reads alike), or there is no copy: nothing to say
    assert hold_reason(scored("https://d.test/concepts/human_in_the_loop/", 0.97, **(look_alike | {"copy_coverage": 0.5})), []) == ""
    assert hold_reason(scored("https://d.test/concepts/human_in_the_loop/", 0.97, **(look_alike | {"content_cos": 0.5})), []) == ""
    no_copy = {k: v for k, v in look_alike.items() if k not in ("has_copy", "copy_coverage", "content_cos")}
    assert hold_reason(scored("https://d.test/concepts/human_in_the_loop/", 0.97, **no_copy), []) == ""


def test_a_page_whose_archived_text_a_rival_holds_more_of_is_held():
    # langgraph's agents/tools/ went to how-tos/tool-calling/; concepts/tools/ has its name and
    # title, but the how-to holds far more of the archived text and reads as close to it
    concept = dict(same_name=1.0, name_unique=1.0, title_sim=1.0, title_exact=1.0, anchor_title=1.0, in_exact=1.0,
                   has_copy=1.0, copy_coverage=0.64, content_cos=0.78)
    top = scored("https://d.test/concepts/tools/", 0.98, **concept)
    how_to = scored("https://d.test/how-tos/tool-calling/", 0.01, title_sim=0.67, has_copy=1.0, copy_coverage=0.98, content_cos=0.82)
    assert hold_reason(top, [how_to]) == ("the archived copy speaks for https://d.test/how-tos/tool-calling/: "
                                          "it holds more of the dead page's text and reads as close")
    # a rival holding a little more, or more but reading less alike, says nothing
    assert hold_reason(top, [scored(how_to.url, 0.01, has_copy=1.0, copy_coverage=0.7, content_cos=0.82)]) == ""
    assert hold_reason(top, [scored(how_to.url, 0.01, has_copy=1.0, copy_coverage=0.98, content_cos=0.7)]) == ""
    # without an archived copy there is no text to compare
    no_copy = {k: v for k, v in concept.items() if k not in ("has_copy", "copy_coverage", "content_cos")}
    assert hold_reason(scored(top.url, 0.98, **no_copy), [how_to]) == ""
