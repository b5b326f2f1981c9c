"""mkdocs-llmstxt: `llms.txt`, and the whole site as one Markdown file (`full_output`)."""

from __future__ import annotations

from ..building import BuildMade
from .base import Plugin


class LlmsTxt(Plugin):
    def makes(self, made: BuildMade) -> None:
        made.files.setdefault("llms.txt", "mkdocs-llmstxt")
        full = self.settings.get("full_output")
        if isinstance(full, str) and full:
            made.files.setdefault(full.lstrip("/"), "mkdocs-llmstxt")


PLUGIN = LlmsTxt
