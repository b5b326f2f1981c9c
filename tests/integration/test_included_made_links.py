"""Links an extension makes in a file a page includes (griffe's changelog, included whole with
`--8<-- "CHANGELOG.md"`): a bare address magiclink makes a `mailto:` of, a `:rocket:` emoji
made an image. Nobody wrote their URLs, so they are neither the included file's links nor
targets spliced of two files' text (which would be unverified)."""

from __future__ import annotations

from tests.integration.conftest import check_mkdocs_project

CONFIG = """\
    markdown_extensions:
      - pymdownx.magiclink
      - pymdownx.emoji
      - pymdownx.snippets:
          base_path: ["."]
    """
CHANGELOG = "# Changelog\n\n- Thanks to dev@example.org :rocket: for [the fix](docs/index.md).\n"


def test_links_extensions_make_in_included_text_are_not_reported_as_spliced(tmp_path):
    report = check_mkdocs_project(tmp_path, CONFIG, {"index.md": "# Home\n", "changelog.md": '--8<-- "CHANGELOG.md"\n'},
                                  {"CHANGELOG.md": CHANGELOG})
    statuses = {r.link.url: r.result.status.value for r in report.results}
    assert "unverified" not in statuses.values(), statuses
    assert not any(url.startswith("mailto:") or "emoji" in url or url.endswith((".png", ".svg")) for url in statuses)


def test_an_emoji_on_the_page_itself_is_no_link_either(tmp_path):
    report = check_mkdocs_project(tmp_path, CONFIG, {"index.md": "# Home :rocket:\n\n[me](index.md)\n"})
    assert [r.link.url for r in report.results] == ["index.md"]
