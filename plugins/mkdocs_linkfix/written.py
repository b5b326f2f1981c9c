"""What each Markdown link's target was before MkDocs rewrote it.

MkDocs turns `[x](guide/install.md#part)` into `href="../guide/install/#part"` while rendering
(its `relpath` treeprocessor, priority 0). This Markdown extension notes every `a[href]` and
`img[src]` of the page just before that rewriting and reads them again just after: for each
link, (as rendered, as written), in document order. The plugin adds it to the build's
extensions; it changes nothing in the output.
"""

from __future__ import annotations

from typing import Any
from xml.etree.ElementTree import Element

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor

_KEYS = {"a": "href", "img": "src"}


class WrittenTargets(Extension):
    """Collects, per page, (as rendered, as written) of the targets MkDocs rewrites."""

    def __init__(self) -> None:
        super().__init__()
        self.page = ""  # the page being rendered (set by the plugin before each page)
        self.pages: dict[str, list[tuple[str, str]]] = {}
        # per Markdown instance: a plugin may render other Markdown (docstrings) within a page
        self._seen: dict[int, list[tuple[Element, str, str]]] = {}

    def extendMarkdown(self, md: Markdown) -> None:
        md.registerExtension(self)
        md.treeprocessors.register(_Before(md, self), "linkfix_written", 0.5)  # MkDocs' relpath: 0
        md.treeprocessors.register(_After(md, self), "linkfix_rendered", -1)

    def reset(self) -> None:
        self._seen.clear()


class _Before(Treeprocessor):
    def __init__(self, md: Markdown, owner: WrittenTargets) -> None:
        super().__init__(md)
        self.owner = owner

    def run(self, root: Element) -> None:
        self.owner._seen[id(self.md)] = [(element, _KEYS[element.tag], element.get(_KEYS[element.tag]) or "")
                                         for element in root.iter() if element.tag in _KEYS and element.get(_KEYS[element.tag])]


class _After(Treeprocessor):
    def __init__(self, md: Markdown, owner: WrittenTargets) -> None:
        super().__init__(md)
        self.owner = owner

    def run(self, root: Element) -> Any:
        # every pair, rewritten or not: a link written as `a/` and one written `a.md` both render `a/`
        seen = self.owner._seen.pop(id(self.md), [])
        self.owner.pages[self.owner.page] = [(element.get(key) or "", original) for element, key, original in seen]
