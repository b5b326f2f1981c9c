"""The progress line: drawn by the CLI on a terminal only; the checker just reports."""

from __future__ import annotations

import asyncio
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
    assert lines[2].startswith("[##############################] 4/4 URLs  2 hosts in backoff")
    assert stream.getvalue().endswith("\n")


def test_a_bar_that_never_started_writes_nothing():
    stream = Terminal()
    ProgressBar(stream).finish()
    assert stream.getvalue() == ""


def test_the_bar_shows_files_read_then_urls(monkeypatch):
    """Issue 22: a large offline run read files for 10-18 s with nothing on the terminal."""
    clock = iter(range(10, 100))
    monkeypatch.setattr("linkfix.cli.progress.time.monotonic", lambda: float(next(clock)))  # a second between draws
    stream = Terminal()
    bar = ProgressBar(stream)
    bar.files(1, 3)
    bar.files(3, 3)  # the last file is always drawn
    bar.update(1, 2, lambda: 0)
    bar.update(2, 2, lambda: 0)
    bar.finish()
    lines = stream.getvalue().split("\r")
    assert lines[1].startswith("[##########....................] 1/3 files")
    assert lines[2].startswith("[##############################] 3/3 files")
    assert lines[3].startswith("[###############...............] 3/3 files  1/2 URLs")
    assert stream.getvalue().endswith("\n")


def test_an_offline_run_reports_the_files_it_reads(tmp_path):
    """The pipeline reports every file read, with or without external links to check."""
    from linkfix.config import Config
    from linkfix.pipeline import run_check

    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.md").write_text(f"# {name}\n\n[a](a.md)\n")
    stream = Terminal()
    bar = ProgressBar(stream)
    asyncio.run(run_check([str(tmp_path)], Config(offline=True, cache=False), progress=bar))
    bar.finish()
    assert "3/3 files" in stream.getvalue().split("\r")[-1]
