"""The progress line: drawn by the CLI on a terminal only; the checker just reports."""

from __future__ import annotations

import io

from linkfix.cli.progress import ProgressBar, progress_bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_only_an_interactive_stderr_outside_ci_gets_a_bar(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert isinstance(progress_bar(quiet=False, stream=Terminal()), ProgressBar)
    assert progress_bar(quiet=False, stream=io.StringIO()) is None  # not a terminal
    assert progress_bar(quiet=True, stream=Terminal()) is None
    monkeypatch.setenv("CI", "true")
    assert progress_bar(quiet=False, stream=Terminal()) is None


def test_the_bar_shows_urls_done_and_hosts_in_backoff():
    stream = Terminal()
    bar = ProgressBar(stream)
    bar.update(1, 4, lambda: 0)
    bar.update(4, 4, lambda: 2)  # the last URL is always drawn
    bar.finish()
    lines = stream.getvalue().split("\r")
    assert lines[1].startswith("[#######.......................] 1/4 URLs")
    assert lines[2].startswith("[##############################] 4/4 URLs  2 host(s) in backoff")
    assert stream.getvalue().endswith("\n")


def test_a_bar_that_never_started_writes_nothing():
    stream = Terminal()
    ProgressBar(stream).finish()
    assert stream.getvalue() == ""
