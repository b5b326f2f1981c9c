"""Ignoring a link without a regex (issue 22): ignore comments in the source (markdown-link-check's
spellings and linkfix's) and ignore files (.linkfixignore, lychee's .lycheeignore). An ignored
link is `excluded` with its reason, never requested, never rewritten."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from aiohttp.abc import AbstractResolver

from linkfix.cli import main
from linkfix.config import Config
from linkfix.formats.silence import silenced_lines
from linkfix.model import Silenced, Status
from linkfix.pipeline import run_check
from linkfix.report.text import summarize


# -- the comments ---------------------------------------------------------------------------------------------
def test_the_comments_and_the_lines_they_cover():
    text = (
        "a\n"                                                     # 1
        "<!-- linkfix-disable-next-line -->\n"                    # 2
        "b\n"                                                     # 3
        "c <!-- markdown-link-check-disable-line -->\n"           # 4
        "<!-- markdown-link-check-disable -->\n"                  # 5
        "d\n"                                                     # 6
        "<!-- markdown-link-check-enable -->\n"                   # 7
        "e\n"                                                     # 8
        "<!-- linkfix-disable-next-line: behind a login -->\n"    # 9
        "f\n"                                                     # 10
        "<!-- linkfix-disable -->\n"                              # 11
        "g\n"                                                     # 12
    )
    assert silenced_lines(text) == (
        Silenced(first=3, last=3, comment="linkfix-disable-next-line", line=2),
        Silenced(first=4, last=4, comment="markdown-link-check-disable-line", line=4),
        Silenced(first=5, last=7, comment="markdown-link-check-disable", line=5),
        Silenced(first=10, last=10, comment="linkfix-disable-next-line: behind a login", line=9),
        Silenced(first=11, last=13, comment="linkfix-disable", line=11),  # no enable: to the end
    )


@pytest.mark.parametrize("text", ["<!-- linkfix-disable-nextline -->\nx\n", "<!-- linkfix-disabled -->\nx\n",
                                  "<!-- linkfix-enable -->\nx\n", "linkfix-disable-next-line\nx\n"])
def test_a_misspelt_or_lone_directive_silences_nothing(text):
    """A typo must not silence the rest of the file."""
    assert silenced_lines(text) == ()


class NoDNS(AbstractResolver):
    """Counts what is asked; resolves nothing (no request can leave)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def resolve(self, host, port=0, family=socket.AF_INET):
        self.asked.append(host)
        raise OSError(socket.EAI_NONAME, "Name or service not known")

    async def close(self):
        return None


@pytest.fixture
def docs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "install.md").write_text("# Install\n")
    return tmp_path / "docs"


def config(**settings) -> Config:
    return Config(**{"cache": False, "max_retries": 0, "timeout": 2.0, **settings})


async def test_commented_links_are_excluded_with_their_reason_and_not_requested(docs):
    (docs / "index.md").write_text(
        "# Home\n\n"
        "<!-- markdown-link-check-disable-next-line -->\n"
        "See [install](instal.md).\n"
        "<!-- linkfix-disable -->\n"
        "[intranet](https://intranet.example.corp/) [wiki](https://wiki.example.corp/)\n"
        "<!-- linkfix-enable -->\n"
        "[gone](gone.md)\n"
    )
    dns = NoDNS()
    report = await run_check([str(docs)], config(), resolver=dns)
    by_url = {r.link.url: r.result for r in report.results}
    assert (by_url["instal.md"].status, by_url["instal.md"].reason) == (Status.EXCLUDED, "ignored")
    assert by_url["instal.md"].detail == "ignored by the comment <!-- markdown-link-check-disable-next-line --> on line 3"
    assert by_url["https://wiki.example.corp/"].reason == "ignored" and dns.asked == []  # never requested
    assert [r.link.url for r in report.results if r.failing] == ["gone.md"]  # the next lines are checked again
    assert "3 excluded" in summarize(report)


def test_fix_leaves_an_ignored_link_alone(docs, capsys):
    (docs / "index.md").write_text("# Home\n\nSee [install](instal.md).\n")
    fix = ["fix", "--offline", "--no-cache", "--dry-run", "--min-confidence", "0.5", "docs"]
    assert main(fix) == 1  # without the comment: rewritten to install.md
    assert "+See [install](install.md)." in capsys.readouterr().out
    (docs / "index.md").write_text("# Home\n\n<!-- linkfix-disable-next-line -->\nSee [install](instal.md).\n")
    assert main(fix) == 0
    assert capsys.readouterr().out == ""


# -- the files --------------------------------------------------------------------------------------------------------
async def test_lycheeignore_and_linkfixignore_patterns_exclude_links(docs):
    (docs.parent / ".lycheeignore").write_text("# lychee's format\n\n^https://intranet\\.example\\.corp/\n")
    (docs.parent / ".linkfixignore").write_text("gone\\.md$\n")
    (docs / "index.md").write_text("[intranet](https://intranet.example.corp/x) [gone](gone.md) [other](other.md)\n")
    dns = NoDNS()
    report = await run_check([str(docs)], config(), resolver=dns)
    by_url = {r.link.url: r.result for r in report.results}
    assert by_url["https://intranet.example.corp/x"].detail == "ignored by .lycheeignore:3 (^https://intranet\\.example\\.corp/)"
    assert by_url["gone.md"].detail == "ignored by .linkfixignore:1 (gone\\.md$)"
    assert [r.link.url for r in report.results if r.failing] == ["other.md"]
    assert dns.asked == []


def test_a_bad_pattern_in_an_ignore_file_is_a_config_error_naming_its_line(docs, capsys):
    (docs.parent / ".linkfixignore").write_text("# ok\nfine\n(unclosed\n")
    (docs / "index.md").write_text("[a](install.md)\n")
    assert main(["check", "--offline", "--no-cache", "docs"]) == 2
    assert "linkfix: error: .linkfixignore:3: invalid regex '(unclosed'" in capsys.readouterr().err


def test_every_report_counts_ignored_links(docs, capsys):
    (docs / "index.md").write_text("<!-- linkfix-disable-next-line -->\n[a](nope.md)\n")
    assert main(["check", "--offline", "--no-cache", "docs", "-f", "json", "-o", "r.json"]) == 0
    data = json.loads(Path("r.json").read_text())
    (link,) = data["links"]
    assert (link["status"], link["reason"]) == ("excluded", "ignored")
    assert data["totals"]["excluded"] == 1
