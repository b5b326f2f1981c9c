"""mkdocs-print-site-plugin: the whole site on one page, made as a page of the docs
(PrintSitePlugin.on_config), named by `print_page_basename`."""

from __future__ import annotations

from ..building import BuildMade
from .base import Plugin


class PrintSite(Plugin):
    def makes(self, made: BuildMade) -> None:
        basename = self.settings.get("print_page_basename")
        made.docs.setdefault(f"{basename if isinstance(basename, str) and basename else 'print_page'}.md", "mkdocs-print-site-plugin")


PLUGIN = PrintSite
