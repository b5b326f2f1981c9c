"""GitHub's `www.` autolinks (issue 22): links on GitHub, so links in markdown outside MkDocs,
checked as http://; MkDocs' renderer makes none, so a MkDocs page has none."""

from __future__ import annotations

from pathlib import Path

import pytest

from linkfix.cli import main
from linkfix.config import Config
from linkfix.formats.markdown import extract_markdown
from linkfix.model import LinkKind, Status
from linkfix.pipeline import run_check


def www_links(text: str) -> list[tuple[str, int, int]]:
    document = extract_markdown(text, "a.md")
    found = [(link.url, link.span.line, link.span.column) for link in document.links if link.kind is LinkKind.BARE]
    for url, line, column in found:  # the span holds exactly what is written
        assert text.splitlines()[line - 1][column - 1:column - 1 + len(url)] == url
    return found


@pytest.mark.parametrize("text, expected", [
    ("Visit www.example.org/docs.\n", [("www.example.org/docs", 1, 7)]),
    ("(www.example.org/a_(b)) and *www.example.org*\n", [("www.example.org/a_(b)", 1, 2), ("www.example.org", 1, 30)]),
    ("www.example.org/?q=1&amp;\n", [("www.example.org/?q=1", 1, 1)]),
    ("- item www.example.org\n", [("www.example.org", 1, 8)]),
    ("| a |\n|---|\n| www.example.org |\n", [("www.example.org", 3, 3)]),
])
def test_www_autolinks_as_github_finds_them(text, expected):
    assert www_links(text) == expected


@pytest.mark.parametrize("text", [
    "awww.example.org and wwwexample.org\n",  # not at a word's start; no `www.`
    "`www.example.org` in code\n",
    "    www.example.org in an indented code block\n",
    "www.under_score.org: no _ in the last two parts of the domain\n",
    "www. alone\n",
])
def test_what_github_does_not_link(text):
    assert www_links(text) == []


def test_a_www_in_a_links_text_leaves_the_link_alone():
    document = extract_markdown("[see www.example.org](https://example.com/x) www.example.net\n", "a.md")
    assert [(link.url, link.kind) for link in document.links] == [
        ("https://example.com/x", LinkKind.INLINE), ("www.example.net", LinkKind.BARE)]


async def test_a_www_autolink_is_checked_as_http(simweb, tmp_path):
    simweb.add_site("www.docs.test")
    address = simweb.url("www.docs.test", "/ok/page.html").removeprefix("http://")
    (tmp_path / "README.md").write_text(f"# Project\n\nDocs at {address} and www.docs.test:{address.split(':')[1].split('/')[0]}/missing.\n")
    report = await run_check([str(tmp_path)], Config(cache=False, allow_private=True, max_retries=0), resolver=simweb.resolver)
    assert [(r.link.url, r.resolved, r.result.status) for r in report.results] == [
        (address, f"http://{address}", Status.OK),
        (address.split("/")[0] + "/missing", f"http://{address.split('/')[0]}/missing", Status.BROKEN),
    ]


def test_a_mkdocs_page_has_no_www_links(tmp_path, monkeypatch, capsys):
    """MkDocs' Python-Markdown links no bare `www.`: the same text is no link there."""
    monkeypatch.chdir(tmp_path)
    Path("docs").mkdir()
    Path("docs/index.md").write_text("# Home\n\nVisit www.example.org/docs and [b](b.md).\n")
    Path("docs/b.md").write_text("# B\n")
    Path("mkdocs.yml").write_text("site_name: x\n")
    assert main(["check", "--dump", "mkdocs.yml"]) == 0
    assert "www.example.org" not in capsys.readouterr().out
    assert main(["check", "--dump", "docs"]) == 0  # the docs_dir given: read as MkDocs reads it too
    assert "www.example.org" not in capsys.readouterr().out
    assert main(["check", "--dump", "--root-dir", "docs", "docs"]) == 0  # the same files as plain markdown (GitHub's view)
    assert "http://www.example.org/docs\tdocs/index.md:3:7" in capsys.readouterr().out
