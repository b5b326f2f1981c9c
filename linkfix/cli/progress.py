"""The progress line on a terminal: files read, unique URLs done/total, hosts in backoff.

The pipeline reports the files it has read (an offline run of a large site spends its seconds
there) and the checker the URLs it knows (linkfix.check.http.Progress); drawing is the CLI's
business, and only on an interactive stderr outside CI.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO


class ProgressBar:
    """One line, redrawn at most 10 times a second (and at the last file and the last URL).
    The bar fills with the files read until they are all read, then with the URLs known."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._drawn = 0.0
        self._files: tuple[int, int] | None = None
        self._urls: tuple[int, int, Callable[[], int]] | None = None

    def files(self, done: int, total: int) -> None:
        self._files = (done, total)
        self._draw_now(done == total)

    def update(self, done: int, total: int, paused_hosts: Callable[[], int]) -> None:
        self._urls = (done, total, paused_hosts)
        self._draw_now(done == total)

    def finish(self) -> None:
        if self._files is not None or self._urls is not None:
            self._draw()
            self._stream.write("\n")
            self._stream.flush()
            self._files = self._urls = None

    def _draw_now(self, last: bool) -> None:
        now = time.monotonic()
        if now - self._drawn >= 0.1 or last:
            self._drawn = now
            self._draw()

    def _draw(self) -> None:
        parts: list[str] = []
        fill = 0.0
        if self._files is not None:
            done, total = self._files
            parts.append(f"{done}/{total} files")
            fill = done / max(total, 1)
        if self._urls is not None:
            done, total, paused_hosts = self._urls
            parts.append(f"{done}/{total} URLs")
            if self._files is None or self._files[0] >= self._files[1]:
                fill = done / max(total, 1)
            paused = paused_hosts()
            if paused:
                parts.append(f"{paused} host{'s' if paused != 1 else ''} in backoff")
        filled = int(self.WIDTH * fill)
        self._stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {'  '.join(parts)}\033[K")
        self._stream.flush()


def progress_bar(*, quiet: bool, stream: TextIO | None = None) -> ProgressBar | None:
    """A progress bar on `stream` (stderr) when it is a terminal, outside CI, unless quiet."""
    stream = stream or sys.stderr
    if quiet or not stream.isatty() or os.environ.get("CI"):
        return None
    return ProgressBar(stream)
