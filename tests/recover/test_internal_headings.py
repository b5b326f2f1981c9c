"""Renamed headings from a page's versions (linkfix.recover.internal_links.headings.renamed_id)."""

from linkfix.recover.internal_links.headings import NOW, Version, renamed_id


def versions(*id_sets):
    return [Version(commit=NOW if i == 0 else f"{i:040x}", date="2024-03-01", ids=frozenset(ids)) for i, ids in enumerate(id_sets)]


def test_the_one_id_that_came_when_this_one_went():
    found = renamed_id("faq", versions({"frequently-asked-questions", "contact"}, {"faq", "contact"}),
                       frozenset({"frequently-asked-questions", "contact"}))
    assert (found.new, found.rivals, found.commit) == ("frequently-asked-questions", 0, NOW)


def test_several_ids_came_the_nearest_is_taken_as_a_rival_class():
    now = {"current-tsc-members", "past-tsc-members", "contact"}
    found = renamed_id("past-maintainers", versions(now, {"current-maintainers", "past-maintainers", "contact"}), frozenset(now))
    assert (found.new, found.rivals) == ("past-tsc-members", 1)


def test_an_older_rename_is_found_behind_newer_versions():
    now = {"setup", "usage-guide"}
    found = renamed_id("usage", versions(now, now, {"setup", "usage-guide", "x"}, {"setup", "usage"}), frozenset(now))
    assert found.new == "usage-guide" and found.commit == f"{2:040x}"


def test_no_answer_when_no_version_had_it_or_nothing_came_or_it_is_gone_since():
    assert renamed_id("nowhere", versions({"a"}, {"a", "b"}), frozenset({"a"})) is None
    assert renamed_id("b", versions({"a"}, {"a", "b"}), frozenset({"a"})) is None  # removed, nothing added
    assert renamed_id("b", versions({"a"}, {"a", "c"}, {"a", "b"}), frozenset({"a"})) is None  # became c, c gone since
