"""The markdown-it parser linkfix uses: CommonMark + tables, strikethrough, bare URLs (linkify)
and front matter, with position tracking (`tracking`) and the fast paths (`fastpath`) wired in
unless the speed tricks are off (linkfix.speedups, LINKFIX_PLAIN).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from markdown_it import MarkdownIt, rules_block, rules_inline
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core.state_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from ... import speedups
from . import gfm
from .fastpath import FAST_BLOCK_RULES, FAST_INLINE_RULES, FAST_INLINE_RULES2, plain_inline, plain_paragraph
from .tracking import linkify, parse_link_destination, tracking_definition, tracking_inline

log = logging.getLogger(__name__)

#: The inline rules whose targets `tracking` notes, and the function each wraps.
_TRACKED_INLINE: dict[str, Callable[..., bool]] = {
    "link": rules_inline.link,
    "image": rules_inline.image,
    "autolink": rules_inline.autolink,
    "html_inline": rules_inline.html_inline,
    "linkify": linkify,  # tracking's own linkify, not markdown-it's (see there)
}

#: Inline content longer than this is parsed in pieces (see `inline_pieces`).
INLINE_PIECE = 32_768

#: missing one costs a KeyError inside OptionsDict on every inline block and every link.
_OPTION_DEFAULTS = {
    "store_labels": False,
    "strikethrough_single_tilde": False,
    "inline_definitions": False,
    "alerts": False,
    "tasklists": False,
}


@functools.cache
def parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"linkify": True, **_OPTION_DEFAULTS}).enable(["linkify", "table", "strikethrough"])
    # This parser's own helpers (the module markdown-it shares is left alone): link
    # destinations are read by a regex where markdown-it walks them a character at a time
    # (the `markdown` speed trick, linkfix.speedups).
    if speedups.ON:
        md.helpers = SimpleNamespace(  # type: ignore[assignment]  # markdown-it reads its helpers by attribute: a namespace serves
            parseLinkLabel=md.helpers.parseLinkLabel,
            parseLinkDestination=parse_link_destination,
            parseLinkTitle=md.helpers.parseLinkTitle,
        )
    md.use(front_matter_plugin)
    # Targets are read from the source as written; markdown-it's own normalisation of hrefs
    # (percent-encoding, punycode) is unused work, and the biggest cost on link-dense pages.
    # (This instance's own normalisers; markdown-it calls both with one positional argument.)
    md.normalizeLink = _as_written  # type: ignore[method-assign]  # see above
    md.normalizeLinkText = _as_written  # type: ignore[method-assign, assignment]  # see above: the parameter's name differs
    # Only URLs with a scheme are bare links: `setup.py` or `user@host` in prose are not.
    if md.linkify is None:  # markdown-it leaves it out when linkify-it-py cannot be imported
        raise ImportError("linkify-it-py is needed to read bare URLs (a dependency of linkfix: reinstall it)")
    md.linkify.set({"fuzzy_link": False, "fuzzy_email": False})
    # The inline linkify rule finds `scheme://...` while parsing, where positions are known.
    # The core rule would add only `mailto:x@y` and `//host` (which we do not check) by
    # rescanning all text after parsing, which is most of the time spent on plain prose.
    md.core.ruler.disable("linkify")
    md.core.ruler.at("normalize", _normalize)
    # markdown-it's own rule functions (its public rules_inline/rules_block modules) replaced by
    # name through the ruler's public `at`; none of them has an alt chain (markdown-it-py 3 and 4).
    for name, fn in _TRACKED_INLINE.items():
        md.inline.ruler.at(name, tracking_inline(name, fn))
    # GitHub's `www.` autolinks (gfm.py): a `text` rule that stops where one may start, and the rule.
    md.inline.ruler.at("text", gfm.text)
    md.inline.ruler.after("linkify", "www_autolink", gfm.www_autolink)
    md.inline.ruler.after("www_autolink", "email_autolink", gfm.email_autolink)
    # `at` takes the rule's alt chains from its options (none given: none kept), and they say which
    # blocks a list or a blockquote may interrupt (a paragraph's next line `- b` starts a list).
    md.block.ruler.at("reference", tracking_definition(gfm.not_a_footnote(rules_block.reference)), {"alt": _alt(md, "reference")})
    md.block.ruler.at("list", _within_nesting(rules_block.list_block), {"alt": _alt(md, "list")})
    md.block.ruler.at("blockquote", _within_nesting(rules_block.blockquote), {"alt": _alt(md, "blockquote")})
    if not speedups.ON:
        log.debug("speed tricks off (LINKFIX_PLAIN): markdown-it parses every paragraph")
    elif tuple(md.block.ruler.get_active_rules()) == FAST_BLOCK_RULES:
        md.block.ruler.before("front_matter", "plain_paragraph", plain_paragraph)
    else:  # the fast path knows these rule sets only: another markdown-it gets the slow one
        log.debug("markdown-it block rules changed; one-line paragraph fast path disabled")
    # Inline content is parsed block by block while the tokens are walked (`inline_parser`),
    # so that only one block's inline tokens are alive at a time; text_join is done there.
    md.core.ruler.disable(["inline", "text_join"])
    return md


def fast_inline(md: MarkdownIt) -> bool:
    """Whether the plain-paragraph fast path knows this markdown-it's inline rules (and the
    `markdown` speed trick is on: linkfix.speedups)."""
    if not speedups.ON:
        return False
    if (
        tuple(md.inline.ruler.get_active_rules()) == FAST_INLINE_RULES
        and tuple(md.inline.ruler2.get_active_rules()) == FAST_INLINE_RULES2
    ):
        return True
    log.debug("markdown-it inline rules changed; plain-paragraph fast path disabled")
    return False


def inline_parser(md: MarkdownIt, env: dict[str, Any]) -> Callable[[str], list[Token]]:
    """A function that turns one block's inline content into its tokens, as markdown-it's core
    `inline` and `text_join` rules would (by the fast path when the content is plain)."""
    fast = fast_inline(md)

    def parse(content: str) -> list[Token]:
        children = plain_inline(content, md, env) if fast else None
        if children is None:
            children = []
            md.inline.parse(content, md, env, children)
        for child in children:
            if child.children:  # an image's alt text
                child.children = _join_text(child.children)
        return _join_text(children)

    return parse


def _join_text(tokens: list[Token]) -> list[Token]:
    """markdown-it's `text_join`: escapes (`text_special`) become text, adjacent texts merge."""
    joined: list[Token] = []
    run: list[str] = []
    for token in tokens:
        if token.type == "text_special":
            token.type = "text"
        if token.type == "text" and joined and joined[-1].type == "text":
            run.append(token.content)
            continue
        if run:
            joined[-1].content += "".join(run)
            run = []
        joined.append(token)
    if run:
        joined[-1].content += "".join(run)
    return joined


def inline_pieces(content: str, size: int = INLINE_PIECE) -> list[tuple[int, int]]:
    """(start, end) of the pieces a block's inline content is parsed in.

    Content up to `size` characters (every paragraph of real documentation) is one piece.
    Longer content is cut at a line break (else a blank) in the last half of each `size`
    characters: the tokens alive at once and markdown-it's work per piece stay bounded on
    hostile input. A link whose text runs over a cut is not found; a URL never holds a blank,
    so none is cut, except in a run of `size` characters without any whitespace, which is
    cut where it must be (the walk then drops a bare URL ending at such a cut).
    """
    end = len(content)
    if end <= size:
        return [(0, end)]
    pieces = []
    start = 0
    while end - start > size:
        window = start + size
        cut = content.rfind("\n", start + size // 2, window) + 1
        if not cut:
            cut = max(content.rfind(" ", start + size // 2, window), content.rfind("\t", start + size // 2, window)) + 1
        if not cut:
            cut = window
        pieces.append((start, cut))
        start = cut
    pieces.append((start, end))
    return pieces


def _within_nesting(rule: Callable[..., bool]) -> Callable[..., bool]:
    """A container rule (list, blockquote) that opens nothing within two levels of markdown-it's
    nesting limit. At the limit markdown-it stops reading the container and takes every line to
    its end along (one line of 490 `- ` emptied the rest of a page, in silence); refused here,
    the line is read as a paragraph, its markers as text, and the page goes on."""

    def within(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        if state.level >= state.md.options["maxNesting"] - 2:
            return False
        return rule(state, start_line, end_line, silent)

    return within


def _alt(md: MarkdownIt, name: str) -> list[str]:
    """The alt chains markdown-it gives its block rule `name` (3.x and 4.x keep them alike)."""
    return list(next((rule.alt for rule in getattr(md.block.ruler, "__rules__", ()) if rule.name == name), ()))


def _as_written(url: str) -> str:
    return url


def _normalize(state: StateCore) -> None:
    """markdown-it's `normalize` core rule (CRLF and CR to LF, NUL to U+FFFD) without its
    regex substitution of every LF by itself."""
    src = state.src
    if "\r" in src:
        src = src.replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in src:
        src = src.replace("\0", "\ufffd")
    state.src = src


