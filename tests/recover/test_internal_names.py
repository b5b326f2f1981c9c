"""Near-miss names and ids, and writing a target in the link's own style (pure functions)."""

from __future__ import annotations

import pytest

from linkfix.recover.internal_links.names import edit_distance, near_files, near_ids, page_key
from linkfix.recover.internal_links.spelling import spellings

FILES = frozenset({
    "index.md", "configuration-files.md", "guide/index.md", "guide/setup_steps.md", "guide/install.md",
    "reference/api.md", "reference/cli.md", "img/logo.png", "about/license.md",
})


def best(missing, written, page, files=FILES):
    found = near_files(missing, written, page, files)
    return (found[0].name, found[0].kind, found[0].rivals) if found else None


@pytest.mark.parametrize("missing, written, page, expected", [
    # a typo, a plural, `-`/`_`, case, `.md` vs directory index
    ("configuration-file.md", "configuration-file.md", "index.md", ("configuration-files.md", "typo", 0)),
    ("guide/setup-steps.md", "setup-steps.md", "guide/index.md", ("guide/setup_steps.md", "spelling", 0)),
    ("Configuration-Files.md", "Configuration-Files.md", "index.md", ("configuration-files.md", "spelling", 0)),
    ("guide.md", "guide.md", "index.md", ("guide/index.md", "spelling", 0)),
    # a `../` too few: the path exists from the root
    ("guide/reference/api.md", "reference/api.md", "guide/install.md", ("reference/api.md", "depth", 0)),
    # moved: the only file of that name
    ("license.md", "license.md", "index.md", ("about/license.md", "moved", 0)),
    # an image keeps to images
    ("img/logo.jpg", "img/logo.jpg", "index.md", None),
    # nothing close
    ("changelog.md", "changelog.md", "index.md", None),
])
def test_near_files(missing, written, page, expected):
    assert best(missing, written, page) == expected


def test_two_names_as_close_are_rivals():
    files = frozenset({"guide/install.md", "guide/instoll.md", "guide/instal.md", "guide/index.md"})
    found = near_files("guide/instxll.md", "instxll.md", "guide/index.md", files)
    # both one letter away: rivals; `instal` is two away and not offered
    assert {(m.name, m.kind, m.rivals) for m in found} == {("guide/install.md", "typo", 1), ("guide/instoll.md", "typo", 1)}


def test_a_link_above_the_root_finds_the_path_from_the_root():
    assert best("../reference/cli.md", "../../reference/cli.md", "guide/install.md") == ("reference/cli.md", "spelling", 0)


@pytest.mark.parametrize("fragment, ids, expected", [
    ("the-project-env", {"the-project-envs", "usage"}, ("the-project-envs", "typo", 0)),
    ("use_direcotry_urls", {"use_directory_urls", "site_url"}, ("use_directory_urls", "typo", 0)),
    ("index_pages", {"index-pages", "other"}, ("index-pages", "spelling", 0)),
    ("Install", {"install", "usage"}, ("install", "spelling", 0)),
    ("install", {"install-linkfix", "usage"}, ("install-linkfix", "words-added", 0)),
    ("install-linkfix", {"install", "usage"}, ("install", "words-dropped", 0)),
    ("with-pip", {"with-git", "usage"}, ("with-git", "typo-short", 0)),
    ("usage", {"install", "setup"}, None),
])
def test_near_ids(fragment, ids, expected):
    found = near_ids(fragment, ids)
    assert ((found[0].name, found[0].kind, found[0].rivals) if found else None) == expected


def test_ids_as_close_are_rivals():
    found = near_ids("optionz", {"options", "optionx", "other"})
    assert [(m.name, m.rivals) for m in found] == [("options", 1), ("optionx", 1)]


def test_edit_distance_counts_a_swap_as_one_and_stops_at_the_limit():
    assert edit_distance("direcotry", "directory", limit=2) == 1
    assert edit_distance("abc", "abc", limit=0) == 0
    assert edit_distance("install", "uninstall-it", limit=2) is None


def test_page_key_forgets_spelling_but_not_the_directory():
    assert page_key("Guide/Setup_Steps/index.md") == "guide/setup-steps"
    assert page_key("guide/setup-steps.md") == "guide/setup-steps"
    assert page_key("setup-steps.md") != page_key("guide/setup-steps.md")


@pytest.mark.parametrize("file, fragment, written, page, expected", [
    ("guide/install.md", "", "setup.md", "guide/index.md", "install.md"),  # .md, relative
    ("guide/install.md", "x", "../guide/setup.md#y", "a/b.md", "../guide/install.md#x"),
    ("guide/install.md", "", "../guide/setup/", "a/b.md", "../guide/install/"),  # directory URL
    ("guide/index.md", "", "../guide/old/", "a/b.md", "../guide/"),
    ("guide/install.md", "", "/guide/setup.html", "a/b.md", "/guide/install.html"),  # root-relative .html
    ("guide/install.md", "", "./setup", "guide/b.md", "./install"),  # bare, with its ./
    ("guide/index.md", "", "./setup", "guide/b.md", "./"),
    ("a b.md", "sec", "https://site.example/docs/x.md", "guide/b.md", "https://site.example/docs/a%20b.md#sec"),
    ("guide/b.md", "new", "#old", "guide/b.md", "#new"),  # within the page
])
def test_the_replacement_keeps_the_links_style(file, fragment, written, page, expected):
    assert spellings(file, fragment, written=written, page_rel=page, site_prefix="docs/")[0] == expected
