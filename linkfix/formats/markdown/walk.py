"""Walking markdown-it's tokens: the links of each block with their exact source spans, the
page text (for recovery and contexts), heading ids and the page title.

Every target is verified against the source: `text[span.start:span.end] == link.url` always
holds for an exactly located link. Should a target fail that verification, it is still
reported, with a zero-width span at the best guess and a debug log, so that a patch never edits
a wrong slice. The one known case is a raw HTML attribute value that runs over several lines
inside a container (`> ` or list indentation): no slice of the source holds the value, whose
lines the markers interrupt.
"""

from __future__ import annotations

import functools
import html
import logging
import re
from collections.abc import Callable, Iterable, Sequence

from markdown_it.common.utils import normalizeReference
from markdown_it.token import Token

from ... import speedups
from ...files.yamlfile import YamlRefused, load_safely
from ...model import LinkKind
from ..html.values import _refresh_url
from ..rawhtml import Tag, scan_tags, srcset_urls
from ..slug import Heading
from .fastpath import holds_no_link
from .parser import inline_pieces
from .source import Block
from .tracking import MARK, Target
from .walked import TEXT_LIMIT, Found, PageText, Walk

__all__ = ["TEXT_LIMIT", "Found", "PageText", "Walk", "finish", "walk_tokens"]

log = logging.getLogger(__name__)
_SKIP_PLAIN_TEXT = speedups.ON  # see _inline

#: Elements and attributes of raw HTML whose values are links.
LINK_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "iframe": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "script": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
}

_WHITESPACE = re.compile(r"\s+")
# Python-Markdown attr_list: `{: #id .class key=value}` (the colon is optional).
_ATTR_LIST = re.compile(r"\{:?[ ]*([^}\n ][^}\n]*)\}")
_HEADING_ATTR_LIST = re.compile(r"[ ]+\{:?[ ]*([^}\n ][^\n]*)\}[ ]*$")
_ATTR_ID = re.compile(r"(?:^|\s)#([^\s#.}=]+)")
_CLOSE_A = re.compile(r"</a\s*>", re.IGNORECASE)
_ANCHOR_TOKENS = 200  # inline tokens searched for the `</a>` of a raw `<a>`
_TAG = re.compile(r"<[^>]*>")
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_HEADING_TEXT_LIMIT = 2_000  # characters of a heading's text kept (its id is made from them)


def _front_matter_title(content: str, path: str) -> str:
    try:
        data = load_safely(content)
    except YamlRefused as exc:  # not YAML, or a hostile document (nested thousands deep, aliases multiplying)
        log.debug("%s: front matter is not valid YAML: %s", path, exc)
        return ""
    title = data.get("title") if isinstance(data, dict) else None
    return str(title).strip() if isinstance(title, (str, int, float)) and not isinstance(title, bool) else ""


def _collect_definitions(walk: Walk) -> None:
    # The normalized -> original map is exact within a line, and a destination never spans
    # lines, so definition spans need no search. (Taken out of the env: the next section's
    # parse adds its own.)
    for definition in walk.env.pop(MARK, ()):
        start = walk.source.from_normalized(definition.start)
        span = walk.source.span(start, start + definition.end - definition.start)
        walk.definitions.setdefault(definition.label, []).append((definition, span))


def _unused_definitions(walk: Walk) -> None:
    """One link per definition nobody uses (duplicates of a label are never used)."""
    for label, definitions in walk.definitions.items():
        for index, (definition, span) in enumerate(definitions):
            if index == 0 and label in walk.uses:
                continue
            walk.add(
                Found(
                    url=walk.source.text[span.start : span.end],
                    kind=LinkKind.REFERENCE,
                    span=span,
                    order=span.start,
                    reference=definition.raw_label,
                )
            )


def walk_tokens(walk: Walk, tokens: Iterable[Token], parse_inline: Callable[[str], list[Token]]) -> None:
    """Walk one section's block tokens; each inline block is parsed (`parse_inline`) when it is
    reached and its tokens dropped once walked, so only one block's tokens are alive at a time."""
    _collect_definitions(walk)
    heading_level = ""
    for token in tokens:
        kind = token.type
        if kind == "inline" and token.map:
            # Past the link cap, only headings are still read (their ids are fragment targets).
            if heading_level or not walk.full:
                _inline(walk, token, token.map[0], heading_level, parse_inline)
        elif kind == "heading_open":
            heading_level = token.tag
        elif kind == "heading_close":
            heading_level = ""
            walk.text.add(" ")
        elif kind == "front_matter":
            walk.front_title = _front_matter_title(token.content, walk.source.path)
        elif kind == "html_block" and token.map:
            _html_block(walk, token, token.map[0])
        elif kind in ("fence", "code_block"):
            walk.text.add(f" {token.content} ")
        elif token.nesting == -1:
            walk.text.add(" ")


def finish(walk: Walk) -> None:
    """What can only be done once every section is walked."""
    _unused_definitions(walk)
    walk.found.sort(key=lambda f: f.order)


def _inline(walk: Walk, token: Token, line: int, heading_level: str, parse_inline: Callable[[str], list[Token]]) -> None:
    content = token.content
    if _SKIP_PLAIN_TEXT and not heading_level and not walk.text.limit and holds_no_link(content):
        return  # prose with nothing to find, and no page text wanted (the `markdown` speed trick)
    block = Block(walk.source, content, line, walk.cursors)
    pieces = inline_pieces(content)
    heading: list[str] = []
    custom_id = ""
    before = walk.text.size
    for number, (start, end) in enumerate(pieces):
        if walk.full and not heading_level:
            break  # past the link cap: the rest of a giant paragraph is not read
        children = parse_inline(content[start:end] if len(pieces) > 1 else content)
        if heading_level and number == len(pieces) - 1:
            custom_id = _take_heading_attributes(children)
        if end < len(content) and not content[end - 1].isspace():
            _forget_bare_url_at_end(children, end - start)
        _children(walk, block, start, children, heading_level)
        if heading_level and sum(map(len, heading)) < _HEADING_TEXT_LIMIT:
            heading.append(_plain(children))
    if heading_level:
        _heading(walk, " ".join(heading)[:_HEADING_TEXT_LIMIT], custom_id, heading_level)
    elif walk.text.size > before:
        walk.text.add(" ")


def _forget_bare_url_at_end(children: list[Token], size: int) -> None:
    """A bare URL that reaches a cut inside a run without whitespace goes on after it: not
    reporting it beats reporting half of it."""
    for child in children:
        target = child.meta.get(MARK) if child.type == "link_open" and child.markup == "linkify" else None
        if target is not None and target.end >= size:
            del child.meta[MARK]


def _children(walk: Walk, block: Block, base: int, children: list[Token], heading_level: str) -> None:
    """The links, text and ids of one block's inline tokens; `base` is where the text they
    were parsed from starts in the block's content."""
    closes = _link_closes(children)
    text = walk.text
    index = 0
    while index < len(children):
        child = children[index]
        kind = child.type
        if kind == "link_open":
            close = closes.get(index, len(children))
            anchor = _plain(children[index + 1 : close])
            words = (text.size, text.size + len(anchor))
            target = child.meta.get(MARK)
            if target is not None:
                _link(walk, block, target.moved(base), child, anchor, words)
        elif kind == "image":
            alt = _plain(child.children or [])
            words = text.add(alt)
            target = child.meta.get(MARK)
            if target is not None:
                _link(walk, block, target.moved(base), child, alt, words, image=True)
        elif kind == "html_inline":
            target = child.meta.get(MARK)
            if target is not None:
                _raw_html(
                    walk,
                    child.content,
                    base + target.start,
                    block,
                    functools.partial(_raw_anchor_text, children, index + 1),
                )
        elif kind in ("text", "code_inline"):
            text.add(child.content)
            if not heading_level:
                _attr_list_ids(walk, child.content if kind == "text" else "")
        elif kind in ("softbreak", "hardbreak"):
            text.add(" ")
        index += 1


def _link_closes(children: Sequence[Token]) -> dict[int, int]:
    closes: dict[int, int] = {}
    stack: list[int] = []
    for index, child in enumerate(children):
        if child.type == "link_open":
            stack.append(index)
        elif child.type == "link_close" and stack:
            closes[stack.pop()] = index
    return closes


def _plain(children: Iterable[Token]) -> str:
    """Rendered text of inline tokens: text, code, image alt; markup and raw HTML dropped."""
    parts: list[str] = []
    for child in children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(_plain(child.children or []))
    return _WHITESPACE.sub(" ", "".join(parts)).strip()


def _until_close_a(children: Sequence[Token], start: int) -> str:
    """Rendered text of the siblings up to the next `</a>`: the text of a raw `<a>`.
    Looks a bounded number of tokens ahead, so that thousands of unclosed `<a>` stay linear."""
    for stop in range(start, min(len(children), start + _ANCHOR_TOKENS)):
        if children[stop].type == "html_inline" and _CLOSE_A.match(children[stop].content):
            return _plain(children[start:stop])
    return ""


def _link(
    walk: Walk,
    block: Block,
    target: Target,
    token: Token,
    anchor: str,
    words: tuple[int, int],
    *,
    image: bool = False,
) -> None:
    line, expected = block.expected(target.start)
    order = expected if expected is not None else walk.source.starts[min(line, len(walk.source.starts) - 1)]
    if target.reference:
        label = normalizeReference(target.label)
        definitions = walk.definitions.get(label)
        if not definitions:
            log.debug("%s:%d: reference [%s] has no definition", walk.source.path, line + 1, target.label)
            return
        walk.uses.add(label)
        _, span = definitions[0]
        walk.add(
            Found(
                url=walk.source.text[span.start : span.end],
                kind=LinkKind.REFERENCE,
                span=span,
                order=order,
                anchor_text=anchor,
                reference=target.label,
                words=words,
            )
        )
        return
    raw = block.content[target.start : target.end]
    where = block.locate(raw, target.start)
    start, end = walk.exact(raw, where, "link target", line)
    if image:
        kind = LinkKind.IMAGE
    elif token.markup == "autolink":
        kind = LinkKind.AUTOLINK
    elif token.markup == "linkify":
        kind = LinkKind.BARE
    else:
        kind = LinkKind.INLINE
    walk.add(
        Found(
            url=walk.source.text[start:end] if end > start else raw,
            kind=kind,
            span=walk.source.span(start, end),
            order=order,
            anchor_text=anchor,
            words=words,
        )
    )


def _is_refresh(tag: Tag) -> bool:
    equiv = tag.get("http-equiv")
    return tag.name == "meta" and equiv is not None and equiv.value.strip().lower() == "refresh"


def _raw_html(
    walk: Walk, fragment: str, base: int, block: Block, text_of: Callable[[Tag], str]
) -> None:
    """Links and ids of a raw HTML fragment found at content offset `base` of `block`."""
    for tag in scan_tags(fragment):
        if tag.closing:
            continue
        if tag.name == "img" and (alt := tag.get("alt")) is not None:
            walk.text.add(f" {html.unescape(alt.value)} ")
        for attribute in tag.attributes:
            if (attribute.name == "id" or (attribute.name == "name" and tag.name == "a")) and attribute.value:
                walk.ids.add(attribute.value)
            if attribute.name == "content" and _is_refresh(tag):
                # <meta http-equiv="refresh" content="0; url=..."> (a hand-made redirect page)
                where = _refresh_url(attribute.value)
                pieces = [(attribute.start + where[0], attribute.start + where[1])] if where else []
            elif attribute.name not in LINK_ATTRIBUTES.get(tag.name, ()):
                continue
            elif attribute.name == "srcset":
                pieces = [(attribute.start + a, attribute.start + b) for a, b in srcset_urls(attribute.value)]
            else:
                pieces = [(attribute.start, attribute.end)]
            anchor = text_of(tag)
            words = (walk.text.size, walk.text.size)
            for start, end in pieces:
                raw = fragment[start:end]
                line, expected = block.expected(base + start)
                where = block.locate(raw, base + start)
                order = expected if expected is not None else walk.source.starts[min(line, len(walk.source.starts) - 1)]
                span_start, span_end = walk.exact(raw, where, "HTML attribute", line, guess=order)
                walk.add(
                    Found(
                        url=walk.source.text[span_start:span_end] if span_end > span_start else raw,
                        kind=LinkKind.HTML,
                        span=walk.source.span(span_start, span_end),
                        order=order,
                        anchor_text=anchor,
                        tag=f"{tag.name}[{attribute.name}]",
                        words=words,
                    )
                )


def _html_block(walk: Walk, token: Token, line: int) -> None:
    content = token.content
    block = Block(walk.source, content, line, walk.cursors)

    def text_of(tag: Tag) -> str:
        if tag.name in ("img", "source"):
            return _alt(tag)
        close = _CLOSE_A.search(content, tag.end, tag.end + 4000) if tag.name == "a" else None
        inner = content[tag.end : close.start()] if close else ""
        return _WHITESPACE.sub(" ", html.unescape(_TAG.sub(" ", inner))).strip()

    _raw_html(walk, content, 0, block, text_of)
    walk.text.add(" " + html.unescape(_TAG.sub(" ", _COMMENT.sub(" ", content))) + " ")


def _take_heading_attributes(children: list[Token]) -> str:
    """Remove a trailing `{#id .class}` from a heading's text; return the id it sets."""
    last = children[-1] if children else None
    if last is None or last.type != "text":
        return ""
    m = _HEADING_ATTR_LIST.search(last.content)
    if not m:
        return ""
    last.content = last.content[: m.start()]
    ids = _ATTR_ID.findall(m.group(1))
    return ids[-1] if ids else ""


def _heading(walk: Walk, text: str, custom_id: str, level: str) -> None:
    walk.headings.append(Heading(text=text, custom_id=custom_id))
    if level == "h1" and walk.first_h1 is None:
        walk.first_h1 = text


def _attr_list_ids(walk: Walk, text: str) -> None:
    if "{" in text:
        for m in _ATTR_LIST.finditer(text):
            walk.attr_ids.update(_ATTR_ID.findall(m.group(1)))


def _raw_anchor_text(children: Sequence[Token], following: int, tag: Tag) -> str:
    """What a raw tag among inline tokens shows: an image's alt, or a link's text up to its
    `</a>` among the tokens from `following` on."""
    return _alt(tag) if tag.name in ("img", "source") else _until_close_a(children, following)


def _alt(tag: Tag) -> str:
    alt = tag.get("alt")
    return html.unescape(alt.value) if alt else ""
