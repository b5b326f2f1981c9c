"""Issue 44: links that passed green where linkfix had not really looked (items 2, 12, 13, 14),
each a small reproduction checked end to end, offline."""

from __future__ import annotations

import os

from linkfix.config import Config
from linkfix.pipeline import check_links


def outcomes(report):
    """(link as written, status, reason) of every link of a report, and each one's detail."""
    return {r.link.url: (str(r.result.status), r.result.reason) for r in report.results}, \
        {r.link.url: r.result.detail for r in report.results}


def check(*inputs, **settings):
    return check_links([str(i) for i in inputs], Config(offline=True, cache=False, **settings))


# -- item 2: symlinks that lead nowhere -------------------------------------------------------

def test_links_to_a_dangling_symlink_and_a_symlink_loop_are_broken(tmp_path):
    (tmp_path / "index.md").write_text("[d](gone.md) [l](loop.md) [i](img/logo.png) [ok](real.md)\n")
    (tmp_path / "real.md").write_text("# Real\n")
    os.symlink("nowhere.md", tmp_path / "gone.md")
    os.symlink("loop.md", tmp_path / "loop.md")
    (tmp_path / "img").mkdir()
    os.symlink("../missing.png", tmp_path / "img" / "logo.png")
    status, detail = outcomes(check(tmp_path))
    assert status["gone.md"] == ("broken", "missing-file")
    assert "a symlink to nowhere.md, which does not exist" in detail["gone.md"]
    assert status["loop.md"] == ("broken", "missing-file")
    assert "symlink loop" in detail["loop.md"]
    assert status["img/logo.png"] == ("broken", "missing-file")
    assert status["real.md"] == ("ok", "")


def test_a_dangling_page_symlink_is_an_input_error_that_says_why(tmp_path):
    (tmp_path / "index.md").write_text("# Home\n")
    os.symlink("nowhere.md", tmp_path / "gone.md")
    os.symlink("loop.md", tmp_path / "loop.md")
    errors = check(tmp_path).errors
    assert any("gone.md: a symlink to nowhere.md, which does not exist" in e for e in errors)
    assert any("loop.md: a symlink loop" in e for e in errors)
