"""mkdocs-literate-nav: the navigation written as Markdown lists in `SUMMARY.md` (its `nav_file`)
files of the docs. Each list item's link is a nav entry, read from the file's directory: a page
(`guide/setup.md`), or a directory (`guide/`), whose own nav file (or, without one, whose pages)
make a section; wildcards (`*.md`) stand for the pages there. The file is also built as a page
(not in the nav), but what it is for is the nav: its links are checked as nav entries
(check.mkdocs_nav), a directory entry against the docs' directories.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from .base import Plugin


class LiterateNav(Plugin):
    def nav_documents(self, docs: Iterable[str]) -> set[str]:
        name = self.settings.get("nav_file")
        name = name if isinstance(name, str) and name else "SUMMARY.md"
        return {path for path in docs if posixpath.basename(path) == name}


PLUGIN = LiterateNav
