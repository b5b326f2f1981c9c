"""Cross-references of mkdocs-autorefs (`[text][identifier]`, `[identifier][]`), as far as a
source check needs them: the plugin (which mkdocstrings brings) turns a reference with no
definition into an `<autoref>` element holding its text, and resolves it to a URL only when the
whole site is built. So a heading `## [`ModelProfile`][pkg.ModelProfile] is now a TypedDict`
gets its id from "ModelProfile is now a TypedDict" (without the plugin, Python-Markdown leaves
the brackets as text, and the id is another); the link itself is the build's, not checked here.

The same inline processor as mkdocs-autorefs' (right after Python-Markdown's reference
processor, which keeps every reference that has a definition), in every environment.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree.ElementTree import Element

from markdown import Extension, Markdown
from markdown.inlinepatterns import REFERENCE_RE, ReferenceInlineProcessor

_SECOND = re.compile(r"\s?\[([^\]]*)\]", re.DOTALL | re.UNICODE)


class _AutorefsInlineProcessor(ReferenceInlineProcessor):
    def __init__(self, md: Markdown) -> None:
        super().__init__(REFERENCE_RE, md)

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[Element | None, int | None, int | None]:  # type: ignore[override]
        text, index, handled = self.getText(data, m.end(0))
        if not handled:
            return None, None, None
        second = _SECOND.match(data, pos=index)
        if second is None:
            return None, None, None
        element = Element("autoref")
        element.set("identifier", second.group(1) or text)
        element.text = text
        return element, m.start(0), second.end(0)


class _AutorefsExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        md.inlinePatterns.register(_AutorefsInlineProcessor(md), "linkfix-autorefs", 168)


def makeExtension(**kwargs: Any) -> Extension:
    return _AutorefsExtension(**kwargs)
