"""Heading ids must match what MkDocs (Python-Markdown's toc extension) generates."""

from __future__ import annotations

import re

import markdown
import pytest

from linkfix.formats.markdown import extract_markdown
from linkfix.formats.slug import Heading, heading_ids, slugify, unique

TRICKY = [
    "Hello World",
    "Hello   World",
    "  Leading and trailing  ",
    "Ünïcödé Straße",
    "žlutý kůň",
    "日本語のタイトル",
    "C++ & C#",
    "What's new in 2.0?",
    "a -- b - c",
    "under_score and-hyphen",
    "Émoji 🎉 party",
    "ﬁ ligature",
    "x²",
    "tab\there",
    "Quotes \"double\" and 'single'",
    "100%",
    "",
]


def toc_ids(source: str) -> list[str]:
    html = markdown.markdown(source, extensions=["toc", "attr_list"])
    return re.findall(r'<h[1-6][^>]*\bid="([^"]*)"', html)


@pytest.mark.parametrize("title", [t for t in TRICKY if t.strip()])
def test_heading_id_matches_python_markdown(title: str) -> None:
    assert heading_ids([title]) == toc_ids(f"# {title}\n")


def test_slugify_rule() -> None:
    assert slugify("Žlutý  kůň -- běží!") == "zluty-kun-bezi"
    assert slugify("日本語") == ""


def test_slugify_unicode_keeps_letters() -> None:
    from markdown.extensions.toc import slugify_unicode

    for title in TRICKY:
        assert slugify(title, unicode=True) == slugify_unicode(title, "-")


def test_duplicates_and_empty_slugs_are_numbered_like_toc() -> None:
    titles = ["Intro", "Intro", "Intro_1", "Intro", "!!!", "???"]
    expected = toc_ids("".join(f"## {t}\n\n" for t in titles))
    assert heading_ids(titles) == expected
    assert expected == ["intro", "intro_1", "intro_2", "intro_3", "_1", "_2"]


def test_custom_ids_are_reserved_before_slugs() -> None:
    # The second heading's custom id takes "setup", so the first heading's slug moves on.
    source = "## Setup\n\n## Install {#setup}\n\n## Setup\n"
    expected = toc_ids(source)
    got = heading_ids([Heading(text="Setup"), Heading(text="Install", custom_id="setup"), Heading(text="Setup")])
    assert got == expected == ["setup_1", "setup", "setup_2"]


def test_reserved_ids_from_other_elements() -> None:
    assert heading_ids(["Usage"], reserved={"usage"}) == ["usage_1"]


def test_unique_records_what_it_returns() -> None:
    taken: set[str] = set()
    assert [unique("a", taken) for _ in range(3)] == ["a", "a_1", "a_2"]
    assert taken == {"a", "a_1", "a_2"}


MARKDOWN_HEADINGS = """\
# Install *the* `tool`

## Links [in](http://x.y) headings

## Entities &amp; &copy; symbols

## Custom { #not-an-attr-list }

## Real custom {#real .class}

## Install the tool

### Ünïcödé & Co.

Setext heading
--------------

## `code` only

## Trailing hashes ##
"""


def test_extracted_heading_ids_match_mkdocs_rendering() -> None:
    document = extract_markdown(MARKDOWN_HEADINGS, "h.md")
    assert document.page.ids == frozenset(toc_ids(MARKDOWN_HEADINGS))


def test_unique_ids_are_toc_unique_ids() -> None:
    # The skips that keep `unique` linear must not change what toc.unique gives.
    from markdown.extensions.toc import slugify as toc_slugify
    from markdown.extensions.toc import unique as toc_unique

    texts = ["a", "a_1", "a_2", "b", "", "a_1_1", "b_3", "A"]
    for start in range(len(texts)):
        headings = [texts[(start + i * 3) % len(texts)] for i in range(40)]
        reserved = {"a", "a_2", "b_1"}
        taken = set(reserved)
        assert heading_ids(headings, reserved=reserved) == [toc_unique(toc_slugify(h, "-"), taken) for h in headings]
