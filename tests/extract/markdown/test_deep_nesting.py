"""A deeply nested line hides nothing after it (issue 38, finding 3).

markdown-it stops reading a container at its nesting limit (20 levels) and takes every line
to the container's end with it: one line of ~490 `- ` (or 500 `>`) made the rest of the page
vanish, `0 links`, exit 0. Containers beyond the limit are now read flat (their markers as
text), so every later link is found, at its exact place.
"""

from __future__ import annotations

import pytest

from linkfix.cli import main
from linkfix.formats.markdown import extract_markdown

DEEP = {
    "list": "- " * 490 + "x [inside](in.md)\n",
    "quote": ">" * 500 + " x [inside](in.md)\n",
    "ordered": "1. " * 300 + "x [inside](in.md)\n",
    "mixed": "> - " * 200 + "x [inside](in.md)\n",
}


@pytest.mark.parametrize("deep", DEEP.values(), ids=DEEP.keys())
@pytest.mark.parametrize("gap", ["\n", ""], ids=["blank-line", "lazy-line"])
def test_links_after_a_line_nested_past_the_limit_are_found(deep, gap):
    text = "# Page\n\n[first](one.md)\n\n" + deep + gap + "[after](two.md)\n\n## Later\n\n[last](three.md)\n"
    document = extract_markdown(text, "page.md")
    urls = [link.url for link in document.links]
    assert urls == ["one.md", "in.md", "two.md", "three.md"]
    for link in document.links:  # exact spans, past the deep line too
        assert text[link.span.start:link.span.end] == link.url
    assert "later" in document.page.ids


def test_nesting_within_the_limit_reads_as_before():
    text = "- a\n  - b\n    > c [x](x.md)\n\n        code [not](a-link.md)\n"
    assert [link.url for link in extract_markdown(text, "page.md").links] == ["x.md"]


def test_a_page_with_a_deep_line_fails_the_check_on_its_later_broken_link(tmp_path, monkeypatch, capsys):
    (tmp_path / "index.md").write_text("# Home\n\n" + DEEP["list"] + "\n[gone](missing.md)\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--offline", "--no-cache", "index.md"]) == 1
    assert "missing.md" in capsys.readouterr().out


def test_a_mkdocs_page_python_markdown_cannot_render_still_has_its_later_links_checked(tmp_path, monkeypatch, capsys):
    """Python-Markdown recurses past Python's limit on such a line: the page is read with the
    CommonMark reader (with a warning), which must then see the rest of it."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n" + DEEP["list"] + "\n[gone](missing.md)\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--offline", "--no-cache", "mkdocs.yml"]) == 1
    assert "missing.md" in capsys.readouterr().out
