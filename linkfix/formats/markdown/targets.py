"""What a link target written in markdown points at, by how it is written and who renders it.

Backslash escapes and character references are decoded differently by kind of link and by
renderer. What each renderer does (CommonMark spec 0.31.2 examples 20, 21, 603, 631 and their
Python-Markdown equivalents; markdown-it-py 4.3, cmark-gfm, Python-Markdown 3.11):

| written as                        | CommonMark (cmark-gfm, markdown-it)   | Python-Markdown (MkDocs)       |
| --------------------------------- | ------------------------------------- | ------------------------------ |
| `[x](a\\_b)`, `![x](a\\_b)`       | escapes and references decoded         | its own escapes only (`\\_`,   |
|                                   |                                       | not `\\/`), references decoded |
| `[x]: a\\_b` (definition)         | escapes and references decoded         | backslashes kept, references   |
|                                   |                                       | decoded                        |
| `<https://x/?q=\\*>` (autolink)   | backslashes kept; references decoded   | as `[x](...)`                  |
|                                   | (cmark; markdown-it keeps them too)   |                                |
| `https://x/a\\_b` (bare URL)      | as written                            | references decoded (magiclink) |
| `<a href="a\\/b">` (raw HTML)     | backslashes kept, references decoded as a browser does (both)          |

"References" here are the complete ones (`&amp;`, `&#42;`, with their `;`): Python-Markdown
leaves them in the attribute it writes, where the browser decodes them, and writes any other
`&` as `&amp;`. A backslash CommonMark keeps is sent percent-encoded (`%5C`) by the browser.
"""

from __future__ import annotations

import re

from markdown_it.common.utils import unescapeAll

from ...model import Dialect, LinkKind
from ..html.values import unescape_attribute
from .gfm import is_gfm_email

# A character reference as CommonMark and Python-Markdown's serializer take one: with its `;`.
_REFERENCE = re.compile(r"&(?:#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{0,31});")
_BACKSLASH = re.compile(r"\\(.)", re.DOTALL)
# Python-Markdown's `Markdown.ESCAPED_CHARS` (3.x): the only characters its backslash escapes.
PYTHON_MARKDOWN_ESCAPED = frozenset("\\`*_{}[]()>#+-.!")


def markdown_target(url: str, kind: LinkKind, dialect: Dialect) -> str:
    """The target the link `url` (as written, of `kind`) has once rendered by `dialect`."""
    if kind is LinkKind.HTML:
        return unescape_attribute(url)
    if dialect is Dialect.PYTHON_MARKDOWN:
        if kind in (LinkKind.REFERENCE, LinkKind.BARE):
            return references_decoded(url)
        return references_decoded(_python_markdown_escapes(url))
    if kind is LinkKind.BARE:
        return f"mailto:{url}" if is_gfm_email(url) else url
    if kind is LinkKind.AUTOLINK:
        return f"mailto:{url}" if is_gfm_email(url) else references_decoded(url)
    return unescapeAll(url)


def references_decoded(text: str) -> str:
    """`text` with its complete character references decoded (an unknown name stays as written)."""
    return _REFERENCE.sub(_decoded, text) if "&" in text else text


def _decoded(match: re.Match[str]) -> str:
    # An attribute value of exactly one reference: the browser's decoding, which leaves an
    # unknown name (`&foo;`) as written and makes `&#0;` U+FFFD, as CommonMark does.
    return unescape_attribute(match.group())


def _python_markdown_escapes(text: str) -> str:
    if "\\" not in text:
        return text
    return _BACKSLASH.sub(lambda m: m.group(1) if m.group(1) in PYTHON_MARKDOWN_ESCAPED else m.group(), text)
