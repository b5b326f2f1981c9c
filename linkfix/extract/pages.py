"""The site's pages as extraction made them: the extract stage's output the later stages read.

The pipeline adds each page it reads; a page no input names (a `#fragment` into a file that was
not checked, a suggestion's candidate) is extracted the first time a stage asks for it. So the
checker and recovery ask this object, and never call back into extraction themselves.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..files.read import Unreadable, read_text
from ..model import Page
from .documents import extract_document, markdown_setup

if TYPE_CHECKING:
    from ..inputs.sources import Project
    from ..mkdocs.pages.extract import MarkdownSetup

log = logging.getLogger(__name__)


class SitePages(dict[str, Page]):
    """Pages by root-relative path: those read (`self[rel] = page`), and with a `project`, any
    other of its files extracted on demand (`page`). Without one (a crawl, a test) only the pages
    added are known."""

    def __init__(self, project: Project | None = None, pages: dict[str, Page] | None = None) -> None:
        super().__init__(pages or {})
        self._project = project
        self._markdown: MarkdownSetup | None = None  # the MkDocs rendering setup, made on the first extraction
        self._markdown_made = False
        self._unreadable: set[str] = set()

    def page(self, rel: str) -> Page | None:
        """The page at `rel`, extracted now if no stage read it yet; None when it cannot be read."""
        page = self.get(rel)
        if page is None and rel not in self._unreadable:
            page = self.extract(rel)
            if page is None:
                self._unreadable.add(rel)
            else:
                self[rel] = page
        return page

    def extract(self, rel: str) -> Page | None:
        """Extract the file at `rel` of the project (its ids; no text is kept)."""
        project = self._project
        if project is None:
            return None
        path = project.root / rel
        reason = project.refusal(path)
        if reason is not None:  # a symlink out of the project: its ids are not ours to read
            log.warning("not reading %s for fragments: %s", path, reason)
            return None
        try:
            text, _ = read_text(path)
        except Unreadable:
            return None
        if not self._markdown_made:
            self._markdown, self._markdown_made = markdown_setup(project), True
        # links=False: only the page (its ids) is kept, so its links are not put back on its source
        return extract_document(path, text, want_text=False, markdown=self._markdown, links=False).page
