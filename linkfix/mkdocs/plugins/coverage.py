"""mkdocs-coverage: the page of the coverage report, made among the docs (its on_files;
`page_name` is 1.x's older name of `page_path`)."""

from __future__ import annotations

from ..building import BuildMade
from .base import Plugin


class Coverage(Plugin):
    def makes(self, made: BuildMade) -> None:
        page = self.settings.get("page_name") or self.settings.get("page_path")
        made.docs.setdefault(f"{page if isinstance(page, str) and page else 'coverage'}.md", "mkdocs-coverage")


PLUGIN = Coverage
