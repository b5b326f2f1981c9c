"""GitHub's extensions this parser follows, for markdown outside MkDocs (a README, docs that
GitHub renders); MkDocs' Python-Markdown makes none of these, and MkDocs sources are not read
by this parser:

- extended `www.` autolinks: `www.example.com/page` in prose is a link on GitHub (GFM spec
  6.9), to `http://www.example.com/page`;
- extended e-mail autolinks: `user@example.com` in prose is a `mailto:` link (GFM spec 6.9:
  `[A-Za-z0-9.+_-]+@` then dot-separated `[A-Za-z0-9_-]+` parts, at least one dot, not ending
  in `-` or `_`); the link's span is the address as written;
- footnotes: `[^note]: text` defines a footnote, not a link reference (and `[^note]` uses it):
  the definition is read as the paragraph of text it is on GitHub, its own links found there.

markdown-it knows only `scheme://` bare URLs, and its `text` rule swallows a `www.` in the middle
of a run of prose, so two rules: `text`, which also stops where a `www.` autolink may start,
and `www_autolink`, which takes it. Where the link ends follows the spec: a valid domain, then
anything up to a blank or `<`, less trailing punctuation (`?!.,:*_~`), unbalanced `)` and an
entity-like `&name;`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_inline.state_inline import StateInline

from .tracking import MARK, Target

_EMAIL_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_")
_EMAIL_DOMAIN = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+")
_MAX_LOCAL = 64  # characters looked back for an address's local part (RFC 5321's limit)
# Where an e-mail autolink may be: what the fast path leaves to markdown-it's rules.
EMAIL_HINT = re.compile(r"[A-Za-z0-9.+_-]@[A-Za-z0-9_-]+\.[A-Za-z0-9_-]")
# markdown-it's own terminator characters (its `text` rule stops at each: another rule may start).
TERMINATORS = "\n!#$%&*+-:<=>@[\\]^_`{}~"
# A `www.` at the start, after a blank, or after `*`, `_`, `~`, `(`: where GFM looks for one.
WWW_START = re.compile(r"(?<![^\s*_~(])www\.")
_TERMINATOR = re.compile("[" + re.escape(TERMINATORS) + "]")
_DOMAIN = re.compile(r"www\.(?:[A-Za-z0-9_-]+\.)*[A-Za-z0-9_-]+")
_PATH = re.compile(r"[^\s<]*")
_TRAILING = "?!.,:*_~"
_ENTITY_END = re.compile(r"&[A-Za-z0-9]+;$")


def text(state: StateInline, silent: bool) -> bool:
    """markdown-it's `text` rule (pending text up to the next terminator), stopping at a
    possible `www.` autolink too."""
    src, start = state.src, state.pos
    stop = _TERMINATOR.search(src, start, state.posMax)
    pos = stop.start() if stop else state.posMax
    www = src.find("www.", start, pos)  # str.find: a second regex alternative made the scan 2.5x slower
    while www >= 0:
        if WWW_START.match(src, www):
            pos = www
            break
        www = src.find("www.", www + 1, pos)
    if pos == start:
        return False
    if not silent:
        append = getattr(state, "append_pending", None)  # markdown-it >= 4.3 buffers pending text
        if append is not None:
            append(src[start:pos])
        else:
            state.pending += src[start:pos]
    state.pos = pos
    return True


def www_autolink(state: StateInline, silent: bool) -> bool:
    """The autolink at `state.pos`. Never inside a link's text (GitHub finds these in text
    that is not a link's), so not while a link label is being skipped (`silent`) either: the
    path would run past its `]`."""
    pos = state.pos
    if silent or state.linkLevel > 0 or not WWW_START.match(state.src, pos):
        return False
    end = www_link_end(state.src, pos, state.posMax)
    if end is None:
        return False
    return _autolink(state, pos, end, "http://")


def _autolink(state: StateInline, start: int, end: int, scheme: str) -> bool:
    """The tokens of the autolink written at `state.src[start:end]`, to `scheme` + it, as
    markdown-it's linkify makes them (our note of its target in the first)."""
    text = state.src[start:end]
    token = state.push("link_open", "a", 1)
    token.attrs = {"href": f"{scheme}{text}"}
    token.markup, token.info = "linkify", "auto"
    token.meta[MARK] = Target(start, end)
    state.push("text", "", 0).content = text
    token = state.push("link_close", "a", -1)
    token.markup, token.info = "linkify", "auto"
    state.pos = end
    return True


def www_link_end(src: str, pos: int, limit: int) -> int | None:
    """Where the `www.` autolink starting at `pos` ends, or None when there is none (no valid
    domain: a period, no `_` in its last two parts)."""
    domain = _DOMAIN.match(src, pos, limit)
    if domain is None or "_" in ".".join(domain.group().split(".")[-2:]):
        return None
    end = _PATH.match(src, domain.end(), limit).end()  # type: ignore[union-attr]  # matches the empty string at least
    while end > pos + 4:
        last = src[end - 1]
        if last in _TRAILING or (last == ")" and src.count(")", pos, end) > src.count("(", pos, end)):
            end -= 1
        elif last == ";" and (entity := _ENTITY_END.search(src, pos, end)) is not None:
            end = entity.start()
        else:
            break
    return end if end > pos + 4 else None


def is_gfm_www(url: str) -> bool:
    """A link target written as a `www.` autolink (checked as http://...)."""
    return url.startswith("www.")


def email_autolink(state: StateInline, silent: bool) -> bool:
    """The e-mail autolink whose `@` is at `state.pos`: its local part is the pending text
    before it (markdown-it's `text` rule stops at `@`), taken back out of that text."""
    src, pos = state.src, state.pos
    if silent or state.linkLevel > 0 or src[pos] != "@":
        return False
    domain = _EMAIL_DOMAIN.match(src, pos + 1, state.posMax)
    if domain is None:
        return False
    end = domain.end()
    while src[end - 1] == ".":  # a trailing period ends the sentence, not the address
        end -= 1
    if src[end - 1] in "-_" or "." not in src[pos + 1 : end]:
        return False
    pending = state.pending
    start = pos
    while start > pos - _MAX_LOCAL and start > 0 and src[start - 1] in _EMAIL_LOCAL:
        start -= 1
    while start < pos and not pending.endswith(src[start:pos]):
        start += 1  # only what is still pending text (not an earlier token's) can be the local part
    if start == pos:
        return False
    state.pending = pending[: len(pending) - (pos - start)]
    return _autolink(state, start, end, "mailto:")


def is_gfm_email(url: str) -> bool:
    """A link target written as an e-mail autolink (checked as mailto:...)."""
    return "@" in url and ":" not in url and "/" not in url


def not_a_footnote(rule: Callable[..., bool]) -> Callable[..., bool]:
    """markdown-it's `reference` rule, declining a footnote definition (`[^note]: ...`)."""

    def reference(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        begin = state.bMarks[start_line] + state.tShift[start_line]
        if state.src.startswith("[^", begin):
            return False
        return rule(state, start_line, end_line, silent)

    return reference
