"""The nav files of nav plugins are checked (issue 44, item 11): a nav entry naming a removed
page breaks the navigation of every page of the site, and nothing said so.

literate-nav's SUMMARY.md is a Markdown page whose links are nav entries, read from its
directory (`sub/` is a section made of a docs directory, not a link from the page's URL: that
was a false alarm); awesome-nav's `.nav.yml` is YAML, read at each entry's place.
"""

from __future__ import annotations

import json
from pathlib import Path

from linkfix.cli import main


def check(root: Path, monkeypatch, files: dict[str, str]) -> dict[str, str]:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    monkeypatch.chdir(root)
    out = root / "r.json"
    main(["check", "--offline", "--no-cache", "mkdocs.yml", "-f", "json", "-o", str(out)])
    return {f"{Path(link['file']).name}:{link['url']}": link["status"] for link in json.loads(out.read_text())["links"]}


PAGES = {"docs/index.md": "# Home\n", "docs/sub/page.md": "# Page\n", "docs/sub/other.md": "# Other\n"}


def test_literate_nav_summary_entries_are_nav_entries(tmp_path, monkeypatch):
    statuses = check(tmp_path, monkeypatch, {
        **PAGES, "mkdocs.yml": "site_name: t\nplugins:\n  - search\n  - literate-nav\n",
        "docs/SUMMARY.md": "- [Home](index.md)\n- [Sub](sub/)\n- [Gone section](gone/)\n- [Removed](removed.md)\n- [All](*.md)\n",
        "docs/sub/SUMMARY.md": "- [Page](page.md)\n- [Up](../index.md)\n- [Lost](lost.md)\n"})
    assert statuses == {
        "SUMMARY.md:index.md": "ok", "SUMMARY.md:sub/": "ok", "SUMMARY.md:gone/": "broken", "SUMMARY.md:removed.md": "broken",
        "SUMMARY.md:*.md": "ok", "SUMMARY.md:page.md": "ok", "SUMMARY.md:../index.md": "ok", "SUMMARY.md:lost.md": "broken"}


def test_a_literate_nav_with_another_file_name(tmp_path, monkeypatch):
    statuses = check(tmp_path, monkeypatch, {
        **PAGES, "mkdocs.yml": "site_name: t\nplugins:\n  - literate-nav:\n      nav_file: NAV.md\n",
        "docs/NAV.md": "- [Sub](sub/)\n- [Removed](removed.md)\n"})
    assert statuses == {"NAV.md:sub/": "ok", "NAV.md:removed.md": "broken"}


def test_awesome_nav_files_are_read_at_each_entrys_place(tmp_path, monkeypatch):
    statuses = check(tmp_path, monkeypatch, {
        **PAGES, "mkdocs.yml": "site_name: t\nplugins:\n  - awesome-nav\n",
        "docs/.nav.yml": "nav:\n  - index.md\n  - Guide: sub\n  - removed.md\n  - '*.md'\n  - ...\n  - Web: https://example.com/\n",
        "docs/sub/.nav.yml": "nav:\n  - page.md\n  - lost.md\n"})
    assert statuses == {".nav.yml:index.md": "ok", ".nav.yml:sub": "ok", ".nav.yml:removed.md": "broken",
                        ".nav.yml:page.md": "ok", ".nav.yml:lost.md": "broken",
                        ".nav.yml:https://example.com/": "excluded"}  # a web link, checked online only (no section)


def test_a_config_nav_directory_entry_is_a_section_only_with_a_nav_plugin(tmp_path, monkeypatch):
    with_plugin = check(tmp_path / "a", monkeypatch, {**PAGES, "mkdocs.yml": "site_name: t\nplugins:\n  - literate-nav\nnav:\n  - sub/\n  - gone/\n"})
    assert with_plugin == {"mkdocs.yml:sub/": "ok", "mkdocs.yml:gone/": "broken"}
    without = check(tmp_path / "b", monkeypatch, {**PAGES, "mkdocs.yml": "site_name: t\nnav:\n  - sub/\n"})
    assert without == {"mkdocs.yml:sub/": "broken"}  # MkDocs: a nav entry names a page


def test_exclude_and_ignore_files_reach_nav_entries(tmp_path, monkeypatch):
    """An `exclude` pattern or a .linkfixignore line that leaves out a link to a page leaves out
    the nav entries naming it too (they were still reported broken: the one filter skipped them)."""
    files = {**PAGES, "docs/SUMMARY.md": "- [Home](index.md)\n- [Old](old/gone.md)\n",
             "mkdocs.yml": "site_name: t\nplugins:\n  - literate-nav\n",
             "docs/sub/page.md": "# Page\n\n[old](../old/gone.md)\n"}
    config_nav = {**PAGES, "mkdocs.yml": "site_name: t\nnav:\n  - Home: index.md\n  - Old: old/gone.md\n"}
    assert check(tmp_path / "a", monkeypatch, files)["SUMMARY.md:old/gone.md"] == "broken"
    assert check(tmp_path / "b", monkeypatch, {**files, ".linkfixignore": "old/\n"})["SUMMARY.md:old/gone.md"] == "excluded"
    assert check(tmp_path / "c", monkeypatch, {**config_nav, ".linkfixignore": "old/\n"})["mkdocs.yml:old/gone.md"] == "excluded"
    assert check(tmp_path / "d", monkeypatch, {**config_nav, "linkfix.yml": 'exclude: ["old/"]\n'})["mkdocs.yml:old/gone.md"] == "excluded"
