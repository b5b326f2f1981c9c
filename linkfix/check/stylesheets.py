"""The stylesheets a built site's pages load, read as documents of their own: a font or an image
a CSS file names (`url(...)`, `@import`) is as missing for a reader as one a page names.

A `.css` file of the site is read when a page read by the run (or a stylesheet read so) links to
it: `<link rel=stylesheet>`, `@import`, any link whose target is a `.css` file of the site, each
file once, after the pages, in the order they were first linked. An unlinked stylesheet (a
theme's leftover) loads for no reader and is not read. Its links resolve from its own place in
the site, as a browser resolves them; their spans are exact in the `.css` file.

Only for a built site (HTML pages read from disk): a MkDocs project's `extra_css` sits in the
docs, where its links are the build's to copy.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING

from ..files.read import Unreadable, display_path, read_text
from ..formats.css import extract_css
from ..model import Document, Scope
from .targets import Target

if TYPE_CHECKING:
    from .local import LocalChecker

log = logging.getLogger(__name__)


class Stylesheets:
    """The stylesheets a run's pages link to, read after the pages (`after`)."""

    def __init__(self, local: LocalChecker, *, read: bool = True) -> None:
        self.local = local
        self.read = read  # False: none is read (a source check, a crawl, a build's pages)
        self.errors: list[str] = []  # the stylesheets that could not be read, and why
        self._seen: set[str] = set()  # site files queued or read
        self._queue: list[str] = []

    def note(self, targets: Sequence[Target]) -> None:
        """The targets of a document just read: the site's `.css` files among them are queued."""
        if not self.read:
            return
        for target in targets:
            resolved = target.resolved
            if target.result is None and target.scope is Scope.INTERNAL and ".css" in resolved:
                path = resolved.partition("#")[0]
                if path.lower().endswith(".css") and path not in self._seen:
                    self._seen.add(path)
                    found = self.local.find_file(path)
                    project = self.local.project
                    if found is not None and found not in project.outside_files and found not in project.dead_symlinks:
                        self._queue.append(found)

    async def after(self, documents: AsyncGenerator[tuple[str, Document], None]) -> AsyncGenerator[tuple[str, Document], None]:
        """`documents`, then each stylesheet queued meanwhile (and by the stylesheets themselves)."""
        async with aclosing(documents) as stream:
            async for item in stream:
                yield item
        read = 0
        while read < len(self._queue):
            rel = self._queue[read]
            read += 1
            document = self._read(rel)
            if document is not None:
                yield rel, document

    def _read(self, rel: str) -> Document | None:
        path = self.local.project.root / rel
        if self.local.project.refusal(path) is not None:  # out of the project: not ours to read (docs/security.md)
            return None
        try:
            text, warning = read_text(path)
        except Unreadable as exc:
            self.errors.append(f"{display_path(path)}: {exc}")
            return None
        if warning:
            self.errors.append(f"{display_path(path)}: {warning}")
        return extract_css(text, display_path(path))
