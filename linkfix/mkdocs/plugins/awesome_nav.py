"""mkdocs-awesome-nav (3.x): the navigation of each docs directory in a `.nav.yml` there (its
`filename`). Its `nav:` list names pages and directories relative to that directory
(`index.md`, `guide`, `Title: page.md`, sections as nested lists), with globs (`"*.md"`) and
`"..."` for the rest; links are http(s) URLs. Each page or directory entry is a nav entry at
its place in the file (check.mkdocs_nav): one naming nothing breaks the navigation of every page.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from ..structure.nav import NavEntry, file_nav_entries
from .base import Plugin


class AwesomeNav(Plugin):
    def nav_entries(self, docs: Iterable[str]) -> list[NavEntry]:
        name = self.settings.get("filename")
        name = name if isinstance(name, str) and name else ".nav.yml"
        found: list[NavEntry] = []
        for path in sorted(docs):
            if posixpath.basename(path) == name:
                base = posixpath.dirname(path)
                found += [entry for entry in file_nav_entries(self.project.docs_dir / path, base)
                          if "*" not in entry.path and entry.path != "..."]
        return found


PLUGIN = AwesomeNav
