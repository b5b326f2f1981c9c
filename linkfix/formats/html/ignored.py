"""Elements whose links are not to be checked: an element carrying `data-proofer-ignore` (the
attribute html-proofer honours, which sites already carry for it) or linkfix's own
`data-linkfix-ignore`, with everything inside it, as html-proofer ignores an element and its
descendants. Any value counts, none too (`<div data-proofer-ignore>`); a value that is not
`true` is kept as the reason (`data-linkfix-ignore="behind a login"`). The attribute is looked
for spelt in lower case, as sites write it: every page is searched for it, and a case-blind
search is several times slower than the two plain ones.

An element's extent is its start tag to its matching end tag (same name, counted through
nesting); a void element (`<img>`, `<link>`), a self-closing tag or an element never closed
covers its start tag only: a browser's implied end tags are not guessed at, so less is ignored,
never more. Like the ignore comments, the attribute is found in the text as written: in a
markdown source's raw HTML too, where it also covers the markdown links written inside the
element (what `md_in_html` renders there).
"""

from __future__ import annotations

import re

from ...model import Silenced
from .grammar import _ATTR, _COMMENT, _SPACES, _TAG_BODY, _TAG_NAME, _WS
from .values import unescape_attribute

IGNORE_ATTRIBUTES = ("data-proofer-ignore", "data-linkfix-ignore")

# Elements that have no content and no end tag.
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "param"})
_QUICK = re.compile(r"data-(?:proofer|linkfix)-ignore")
# A start tag, an end tag or a comment (comments are skipped whole: what they hold is no element).
_TAG = re.compile(rf"<(?P<end>/?)(?P<name>{_TAG_NAME})(?P<body>{_TAG_BODY})>|{_COMMENT}", re.S)
_MAX_REASON = 200  # characters of an attribute's value kept as the reason


def ignored_elements(text: str) -> tuple[Silenced, ...]:
    """The elements of `text` that carry an ignore attribute, each with the characters it
    covers, in order; an element inside another ignored one is covered already and not listed."""
    if "data-proofer-ignore" not in text and "data-linkfix-ignore" not in text:  # most pages: two scans in C
        return ()
    found: list[Silenced] = []
    covered_to = 0
    for tag in _TAG.finditer(text):
        if tag.start() < covered_to or tag["name"] is None or tag["end"] or _QUICK.search(tag["body"]) is None:
            continue
        attribute = _ignore_attribute(tag["body"])
        if attribute is None:
            continue
        name = tag["name"].lower()
        end = tag.end() if name in _VOID or tag["body"].rstrip(_SPACES).endswith("/") else _element_end(text, name, tag.end())
        line = text.count("\n", 0, tag.start()) + 1
        found.append(Silenced(first=line, last=text.count("\n", 0, end) + 1, comment=f"<{name} {attribute}>", line=line,
                              start=tag.start(), end=end))
        covered_to = end
    return tuple(found)


def _ignore_attribute(body: str) -> str | None:
    """The tag's ignore attribute as the reason shows it (`data-linkfix-ignore: behind a login`), or None."""
    for attr in _ATTR.finditer(body):
        name = attr[1].lower()
        if name in IGNORE_ATTRIBUTES:
            value = attr[2] or ""
            if value[:1] in ("'", '"'):
                value = value[1:-1]
            value = " ".join(unescape_attribute(value).split())[:_MAX_REASON]
            return f"{name}: {value}" if value and value.lower() != "true" else name
    return None


def _element_end(text: str, name: str, after: int) -> int:
    """Where the element `name` opened just before `after` ends: after its matching end tag,
    or at `after` (its start tag alone) when it is never closed."""
    depth = 1
    same = re.compile(rf"<(?P<end>/?)(?P<name>{re.escape(name)})(?=[{_WS}/>]){_TAG_BODY}>|{_COMMENT}", re.S | re.I)
    for tag in same.finditer(text, after):
        if tag["name"] is None:
            continue
        depth += -1 if tag["end"] else 1
        if depth == 0:
            return tag.end()
    return after
