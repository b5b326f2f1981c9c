"""Where each link target sits in the text markdown-it parses: notes taken while it parses.

A thin wrapper around markdown-it's own inline rules (link, image, autolink, html_inline,
linkify) and the block rule for reference definitions records, while parsing, where each
target sits in the text the rule parsed (a block's content). Destinations are re-read with
markdown-it's own helpers, so nested brackets, `<...>` destinations, titles and escapes are
handled exactly as the parser handled them. `source.Block` then maps those offsets to the file.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference, unescapeAll
from markdown_it.helpers import parseLinkDestination
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_inline.state_inline import StateInline

from ..matching import match_end

MARK = "linkfix"  # key of our notes in token.meta and in the parser env
_LAST_BRACKET = "linkfix_last_bracket"  # key in the parser env: (text, offset of its last `]`)
_BLANK = re.compile(r"\s")
_BRACKETS = re.compile(r"\[+")
_URL_WINDOW = 512  # characters of text after a `://` handed to linkify-it at first
# Characters of pending text searched for a URL scheme: more than the longest scheme
# linkify-it knows (`mailto`, `https`, `ftp`, ...; a user-added one is no longer than this).
_SCHEME_LOOK = 64
# The scheme at the end of pending text, as markdown-it's linkify rule reads it (its SCHEME_RE,
# markdown-it-py 3.0 to 4.3; a module constant, not its API, so spelled here).
_SCHEME_AT_END = re.compile(r"(?:^|[^a-z0-9.+-])([a-z][a-z0-9.+-]*)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Target:
    """Where a rule found a target, in the source string of the rule's state."""

    start: int
    end: int
    label: str = ""  # raw reference label, for reference-style links
    reference: bool = False

    def moved(self, by: int) -> Target:
        """The same target in a text `by` characters longer in front."""
        return Target(self.start + by, self.end + by, self.label, self.reference) if by else self


@dataclass(frozen=True, slots=True)
class Definition:
    label: str  # normalized, as markdown-it keys env["references"]
    raw_label: str
    start: int  # offsets of the destination in the normalized source
    end: int
    line: int  # first line of the definition (0-based)


class _Destination:
    """What markdown-it's parseLinkDestination returns (its callers read these; markdown-it-py
    3.x's reference rule also reads `lines`, which a destination without blanks never spans)."""

    __slots__ = ("lines", "ok", "pos", "str")

    def __init__(self, ok: bool, pos: int, text: str) -> None:
        self.ok, self.pos, self.str, self.lines = ok, pos, text, 0


# The characters markdown-it's destination loop passes over without a second look.
_PLAIN_DESTINATION = re.compile(r"[^\x00-\x20\x7f()\\]*")


def parse_link_destination(string: str, pos: int, maximum: int) -> Any:
    """markdown-it's parseLinkDestination, with a fast path for the common destination: no
    `<...>`, no parentheses, no backslash. The loop it replaces stops at the first blank,
    control character or unbalanced `)`, which is where such a run ends; anything else is
    handed to markdown-it's own function."""
    if pos >= maximum or string.startswith("<", pos):
        return parseLinkDestination(string, pos, maximum)
    end = match_end(_PLAIN_DESTINATION, string, pos, maximum)
    if end < maximum and string[end : end + 1] in ("(", "\\"):
        return parseLinkDestination(string, pos, maximum)
    if end == pos:
        return _Destination(False, 0, "")
    return _Destination(True, end, unescapeAll(string[pos:end]))


def linkify(state: StateInline, silent: bool) -> bool:
    """markdown-it's inline linkify rule, except that it hands linkify-it the text up to the
    next blank instead of the whole rest of the block (quadratic on a long line of URLs).
    A URL never contains a blank, so what is matched is the same."""
    if state.linkLevel > 0 or not state.src.startswith("://", state.pos):
        return False
    found = bare_url(state.md, state.src, state.pos, state.posMax, state.pending)
    if found is None:
        return False
    url, proto = found
    if not silent:
        state.pending = state.pending[: -len(proto)]
        token = state.push("link_open", "a", 1)
        token.attrs = {"href": url}
        token.markup, token.info = "linkify", "auto"
        state.push("text", "", 0).content = url
        token = state.push("link_close", "a", -1)
        token.markup, token.info = "linkify", "auto"
    state.pos += len(url) - len(proto)
    return True


def bare_url(md: MarkdownIt, src: str, pos: int, limit: int, pending: str) -> tuple[str, str] | None:
    """(URL, its scheme) of a bare URL whose `://` is at `pos`, the scheme being the end of
    the text markdown-it has pending; None if there is none."""
    if pos + 3 > limit or not src.startswith("://", pos) or md.linkify is None:
        return None
    proto = _scheme_before(pending)
    if not proto:
        return None
    # While a link label is skipped (silent mode) `pending` is stale: the scheme must really
    # be in front of `pos`, and the rule must move forward, or markdown-it raises RuntimeError.
    if not src.startswith(proto, pos - len(proto)):
        return None
    # linkify-it is handed the text up to the next blank (a URL never holds one), and at most
    # a window of it: on a line of `<http://<http://...` without blanks, handing it the whole
    # rest at every `://` was quadratic. A URL that fills the window is looked for again in
    # a window eight times larger, so a long URL costs about its own length.
    begin, window = pos - len(proto), _URL_WINDOW
    while True:
        stop = min(limit, pos + window)
        blank = _BLANK.search(src, pos, stop)
        end = blank.start() if blank else stop
        link = md.linkify.match_at_start(src[begin:end])
        if not link or blank or end >= limit or begin + link.last_index < end:
            break
        window *= 8
    if not link:
        return None
    url = link.url.rstrip("*")  # a trailing '*' belongs to emphasis
    if len(url) <= len(proto) or not md.validateLink(url):
        return None
    return url, proto


def _scheme_before(pending: str) -> str:
    """markdown-it's `SCHEME_RE.search(pending).group(1)` (or ""), looking at the end of
    `pending` only: on `://://://...` pending grows to the whole line, and searching all of it
    at every `://` was quadratic. A scheme longer than any linkify-it knows is never a link's,
    so a run of scheme characters longer than _SCHEME_LOOK is no scheme here."""
    tail = pending[-_SCHEME_LOOK:]
    m = _SCHEME_AT_END.search(tail)
    if not m:
        return ""
    if m.start(1) == 0 and len(tail) < len(pending):
        return ""  # the run may go on before the tail: longer than any known scheme
    return m.group(1)


#: The character each tracked inline rule starts at; the rule itself rejects any other, and
#: markdown-it tries every rule at every punctuation mark of the text.

_RULE_STARTS = {"link": "[", "image": "!", "autolink": "<", "html_inline": "<", "linkify": ":"}


def tracking_inline(name: str, rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    marker = _RULE_STARTS[name]

    def tracked(state: StateInline, silent: bool) -> bool:
        if state.src[state.pos] != marker:
            return False
        if marker in "[!" and _last_close_bracket(state) < state.pos:
            # No `]` further on: no link or image can start here. markdown-it would find that
            # out by skipping every token up to the end, nested up to maxNesting deep, at
            # every `[` of a run of them. A run of `[` is text (no rule before this one acts
            # on `[`): taken at once, as markdown-it takes text it has no rule for.
            if marker == "[":
                end = match_end(_BRACKETS, state.src, state.pos, state.posMax)  # `[` is at state.pos
                state.pending += state.src[state.pos : end]
                state.pos = end
                return True
            return False
        # `pending` only matters to linkify (reading it costs a join on markdown-it >= 4.3)
        start, first = state.pos, len(state.tokens)
        pending = state.pending if marker == ":" else ""
        if not rule(state, silent):
            return False
        if not silent:
            token = next((t for t in state.tokens[first:] if t.type in ("link_open", "image", "html_inline")), None)
            if token is not None and (target := _target(name, state, start, pending)) is not None:
                token.meta[MARK] = target
        return True

    return tracked


def _last_close_bracket(state: StateInline) -> int:
    """Where the last `]` of the text being parsed is: found once per text and kept in the parse
    env (markdown-it's public place for a rule's notes), beside the text it was found in."""
    known = state.env.get(_LAST_BRACKET)
    if known is None or known[0] is not state.src:
        known = state.env[_LAST_BRACKET] = (state.src, state.src.rfind("]"))
    last: int = known[1]
    return last


def _target(name: str, state: StateInline, start: int, pending: str) -> Target | None:
    end = state.pos
    if name == "autolink":
        return Target(start + 1, end - 1)
    if name == "html_inline":
        return Target(start, end)
    if name == "linkify":
        scheme = _scheme_before(pending)
        return Target(start - len(scheme), end) if scheme else None
    return _link_target(state, start + (name == "image"), end, nested=name == "image")


def _link_target(state: StateInline, label_start: int, end: int, *, nested: bool) -> Target | None:
    """Re-read `[label](dest "title")` / `[label][ref]` the way markdown-it's link rule does."""
    src, limit, helpers = state.src, state.posMax, state.md.helpers
    label_end = helpers.parseLinkLabel(state, label_start, not nested)
    if label_end < 0:
        return None
    pos = label_end + 1
    if pos < limit and src[pos] == "(":
        inline = _inline_destination(src, pos + 1, limit, helpers)
        if inline is not None and inline[2] == end:
            start, stop = inline[0], inline[1]
            if stop - start >= 2 and src[start] == "<" and src[stop - 1] == ">":
                start, stop = start + 1, stop - 1
            return Target(start, stop)
    label = ""
    if pos < limit and src[pos] == "[":
        second_end = helpers.parseLinkLabel(state, pos)
        if second_end >= 0:
            label = src[pos + 1 : second_end]
    return Target(label_start, label_start, label=label or src[label_start + 1 : label_end], reference=True)


def _inline_destination(src: str, pos: int, limit: int, helpers: Any) -> tuple[int, int, int] | None:
    """(dest start, dest end, end after ')') of an inline link's parenthesised part."""
    pos = _skip_space(src, pos, limit)
    if pos >= limit:
        return None
    start = stop = pos
    result = helpers.parseLinkDestination(src, pos, limit)
    if result.ok:
        stop = pos = result.pos
        before_title = pos
        pos = _skip_space(src, pos, limit)
        title = helpers.parseLinkTitle(src, pos, limit)
        if pos < limit and before_title != pos and title.ok:
            pos = _skip_space(src, title.pos, limit)
    if pos >= limit or src[pos] != ")":
        return None
    return start, stop, pos + 1


def _skip_space(src: str, pos: int, limit: int) -> int:
    while pos < limit and src[pos] in " \t\n":
        pos += 1
    return pos


def tracking_definition(rule: Callable[..., bool]) -> Callable[..., bool]:
    def tracked(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        if not rule(state, start_line, end_line, silent):
            return False
        if not silent:
            definition = _definition(state, start_line, state.line)
            if definition is not None:
                state.env.setdefault(MARK, []).append(definition)
        return True

    return tracked


def _definition(state: StateBlock, first: int, stop: int) -> Definition | None:
    """Re-read `[label]: dest` from the lines the reference rule consumed."""
    pieces: list[str] = []
    offsets: list[int] = []  # offset of each piece in `string`
    starts: list[int] = []  # offset of each piece in the normalized source
    size = 0
    for line in range(first, stop):
        begin = state.bMarks[line] + state.tShift[line]
        piece = state.src[begin : state.eMarks[line] + 1]
        pieces.append(piece)
        offsets.append(size)
        starts.append(begin)
        size += len(piece)
    string = "".join(pieces)
    pos = 1
    while pos < size and string[pos] != "]":
        pos += 2 if string[pos] == "\\" else 1
    if pos >= size:
        return None
    raw_label = string[1:pos]
    pos = pos + 2  # past "]:"
    while pos < size and string[pos] in " \t\n":
        pos += 1
    result = state.md.helpers.parseLinkDestination(string, pos, size)
    if not result.ok:
        return None
    start, end = pos, result.pos
    if end - start >= 2 and string[start] == "<" and string[end - 1] == ">":
        start, end = start + 1, end - 1
    index = bisect.bisect_right(offsets, start) - 1
    shift = starts[index] - offsets[index]
    return Definition(normalizeReference(raw_label), raw_label, start + shift, end + shift, first)

