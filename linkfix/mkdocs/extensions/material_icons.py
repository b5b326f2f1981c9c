"""Material's icon shortcodes (`:material-code-braces:`, `:octicons-mark-github-16:`,
`:fontawesome-brands-python:`, `:simple-python:`) where Material is not installed.

Material's emoji index (`material.extensions.emoji.twemoji`) knows the icons of the theme's
bundled sets, and its generator writes each as an inline SVG: no text. Without Material the index
is left out (setup.HARMLESS_OPTIONS) and pymdownx.emoji's own index does not know them, so the
shortcode stayed in the text, and in the id of a heading holding one: `## Deep language
integration :material-code-braces:` got `deep-language-integration-material-code-braces` where the
site has `deep-language-integration`. Each becomes an empty element here, as on the site; only
used where Material's index was configured and could not be loaded.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree.ElementTree import Element

from markdown import Extension, Markdown
from markdown.inlinepatterns import InlineProcessor

# The icon sets Material bundles (material/.icons), as its index names them.
ICON_SHORTCODE = r":(?:material|octicons|fontawesome|simple)-[a-z0-9]+(?:-[a-z0-9]+)*:"
EMOJI_PRIORITY = 75  # pymdownx.emoji's: this runs before it (it keeps a shortcode it does not know as text no one reads again)


class _MaterialIconProcessor(InlineProcessor):
    def handleMatch(self, m: re.Match[str], data: str) -> tuple[Element, int, int]:  # type: ignore[override]
        element = Element("span")
        element.set("class", "twemoji")
        return element, m.start(0), m.end(0)


class _MaterialIconsExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        md.inlinePatterns.register(_MaterialIconProcessor(ICON_SHORTCODE, md), "linkfix-material-icons", EMOJI_PRIORITY + 1)


def makeExtension(**kwargs: Any) -> Extension:  # Python-Markdown finds it by this name
    return _MaterialIconsExtension(**kwargs)
