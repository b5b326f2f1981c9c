"""The progress line on a terminal: unique URLs done/total and hosts in backoff.

The checker only reports (linkfix.check.http.Progress); drawing is the CLI's business, and only
on an interactive stderr outside CI.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO


class ProgressBar:
    """One line, redrawn at most 10 times a second (and at the last URL)."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._drawn = 0.0
        self._last: tuple[int, int, Callable[[], int]] | None = None

    def update(self, done: int, total: int, paused_hosts: Callable[[], int]) -> None:
        self._last = (done, total, paused_hosts)
        now = time.monotonic()
        if now - self._drawn >= 0.1 or done == total:
            self._drawn = now
            self._draw()

    def finish(self) -> None:
        if self._last is not None:
            self._draw()
            self._stream.write("\n")
            self._stream.flush()
            self._last = None

    def _draw(self) -> None:
        assert self._last is not None
        done, total, paused_hosts = self._last
        filled = self.WIDTH * done // max(total, 1)
        paused = paused_hosts()
        extra = f"  {paused} host(s) in backoff" if paused else ""
        self._stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total} URLs{extra}\033[K")
        self._stream.flush()


def progress_bar(*, quiet: bool, stream: TextIO | None = None) -> ProgressBar | None:
    """A progress bar on `stream` (stderr) when it is a terminal, outside CI, unless quiet."""
    stream = stream or sys.stderr
    if quiet or not stream.isatty() or os.environ.get("CI"):
        return None
    return ProgressBar(stream)
