"""mkdocs-rss-plugin: its four feeds at the site's root."""

from __future__ import annotations

from ..building import BuildMade
from .base import Plugin

FEEDS = ("feed_rss_created.xml", "feed_rss_updated.xml", "feed_json_created.json", "feed_json_updated.json")


class Rss(Plugin):
    def makes(self, made: BuildMade) -> None:
        for feed in FEEDS:
            made.files.setdefault(feed, "mkdocs-rss-plugin")


PLUGIN = Rss
