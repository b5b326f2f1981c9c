"""MkDocs' search plugin (on by default when a config names no plugin): its index, and the
search assets it copies for themes other than Material (which bring their own)."""

from __future__ import annotations

from pathlib import Path

from ..building import BuildMade
from ..theme import theme_files
from .base import Plugin


class Search(Plugin):
    def makes(self, made: BuildMade) -> None:
        made.files.setdefault("search/search_index.json", "the search plugin")
        if self.project.theme_name == "material":
            return
        # Found, not imported: importing the plugin brings most of MkDocs (click, jinja2).
        from importlib.util import find_spec

        spec = find_spec("mkdocs.contrib.search")
        places = list(spec.submodule_search_locations or ()) if spec is not None else []
        for path in theme_files([str(Path(place) / "templates") for place in places[:1]], set()):
            made.files.setdefault(path, "the search plugin")


PLUGIN = Search
