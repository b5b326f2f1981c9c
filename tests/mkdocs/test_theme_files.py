"""A theme's own files are files of the build (issue 44, item 10).

MkDocs adds the theme's static files to the build's files before pages render, so a Markdown
link to one (`../img/favicon.ico` from `sub/page.md`, to the built-in theme's icon) is rewritten
as a link to a docs file and works; a raw HTML link is left as written. With hooks and
literate-nav around it, the Markdown link was reported broken (or unverified).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linkfix.cli import main


@pytest.mark.parametrize("extra", ["", "hooks:\n  - hooks.py\nplugins:\n  - search\n  - literate-nav\n"], ids=["plain", "hooks-literate-nav"])
def test_a_markdown_link_to_the_themes_file_is_ok(tmp_path, monkeypatch, extra):
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n" + extra, encoding="utf-8")
    (tmp_path / "hooks.py").write_text("def on_page_markdown(markdown, **kwargs):\n    return markdown\n", encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n![icon](img/favicon.ico)\n", encoding="utf-8")
    (tmp_path / "docs" / "sub" / "page.md").write_text("# Sub\n\n![icon](../img/favicon.ico)\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    main(["check", "--offline", "--no-cache", "mkdocs.yml", "-f", "json", "-o", str(out)])
    statuses = {(Path(link["file"]).name, link["url"]): link["status"] for link in json.loads(out.read_text())["links"]}
    assert statuses[("page.md", "../img/favicon.ico")] == "ok"
    assert statuses[("index.md", "img/favicon.ico")] == "ok"


def test_a_theme_that_is_not_installed_has_the_files_of_its_released_wheel(tmp_path, monkeypatch):
    """mkdocs-terminal is not installed here: its stylesheets are known from the list read from
    its 4.8.0 wheel (linkfix/mkdocs/data/theme_files.json); a file the list lacks stays unverified
    (another release may have it) — issue 44.7, the terminal project's palette pages."""
    from linkfix.mkdocs.theme import installed_themes

    if "terminal" in installed_themes():
        pytest.skip("mkdocs-terminal is installed here")
    (tmp_path / "docs" / "palettes").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: t\ntheme:\n  name: terminal\n", encoding="utf-8")
    (tmp_path / "docs" / "palettes" / "dark.md").write_text(
        '# Dark\n\n<link href="../../css/palettes/dark.css" rel="stylesheet">\n\n[css](../css/palettes/dark.css)\n'
        '[other](../css/palettes/no-such-palette.css)\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    main(["check", "--offline", "--no-cache", "mkdocs.yml", "-f", "json", "-o", str(out)])
    statuses = {link["url"]: link["status"] for link in json.loads(out.read_text())["links"]}
    assert statuses == {"../../css/palettes/dark.css": "ok", "../css/palettes/dark.css": "ok",
                        "../css/palettes/no-such-palette.css": "unverified"}
