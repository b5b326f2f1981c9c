"""Cutting a very large markdown file into sections that are parsed one after the other.

markdown-it keeps several numbers per line and every token of the whole file until it is done:
on a file of millions of lines that is gigabytes. A file of more than SECTION_CHARS characters
or SECTION_LINES lines is therefore parsed in sections of about that size, so that the memory
used at once stays bounded whatever the file's size.

A section ends where a new top-level block must start whatever came before: after a blank line,
at a line that starts in column 0 (so no list item, block quote, paragraph or indented code
goes on over the cut), outside a fenced code block and outside an HTML block of the kinds that
run over blank lines (`<script>`, `<pre>`, `<style>`, `<textarea>`, comments, `<?...?>`,
`<!X...>`, CDATA). Parsing such sections one by one gives the blocks that parsing the whole
file gives; only a reference definition further down is not yet known to a section above it
(its links are then reported as unused definitions, still checked and fixable). Where no such
place is found within twice the section size, the section is cut at a line break, else at a
blank, else anywhere: a hostile file, whose links stay exact but may be cut in two.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

SECTION_CHARS = 1 << 20
SECTION_LINES = 50_000

# A blank line, then a line starting in column 0 that is no front matter fence (`---`).
_SAFE_CUT = re.compile(r"(?:\r\n?|\n)[ \t]*(?:\r\n?|\n)(?=[^\s\-])")
# Constructs that run over blank lines: a code fence, or an HTML block of kinds 1 to 5.
_OPENER = re.compile(
    r"^ {0,3}(?:(?P<fence>`{3,}(?=[^`\r\n]*$)|~{3,})"
    r"|(?P<raw><(?:script|pre|style|textarea)(?=[\s>]|$))"
    r"|(?P<comment><!--)|(?P<pi><\?)|(?P<cdata><!\[CDATA\[)|(?P<decl><![A-Za-z]))",
    re.MULTILINE | re.IGNORECASE,
)
_CLOSERS = {
    "raw": re.compile(r"</(?:script|pre|style|textarea)>", re.IGNORECASE),
    "comment": re.compile(r"-->"),
    "pi": re.compile(r"\?>"),
    "cdata": re.compile(r"\]\]>"),
    "decl": re.compile(r">"),
}


def section_bounds(text: str, chars: int = SECTION_CHARS, lines: int = SECTION_LINES) -> Iterator[tuple[int, int]]:
    """(start, end) of each section of `text`, in order, covering it exactly."""
    start, size = 0, len(text)
    while True:
        target = _target(text, start, chars, lines)
        if target >= size:
            yield start, size
            return
        limit = min(size, target + (target - start))
        cut = _safe_cut(text, start, target, limit) or _forced_cut(text, target, limit)
        if cut >= size:
            yield start, size
            return
        yield start, cut
        start = cut


def _target(text: str, start: int, chars: int, lines: int) -> int:
    """Where the section starting at `start` is full: after `chars` characters or `lines`
    line breaks, whichever comes first."""
    end = min(len(text), start + chars)
    if text.count("\n", start, end) + text.count("\r", start, end) <= lines:
        return start + chars
    pos = start
    for _ in range(lines // 1000):  # the 1000-line steps stay in C
        m = _THOUSAND_LINES.match(text, pos)
        if m is None:
            break
        pos = m.end()
    return max(pos, start + 1)


_THOUSAND_LINES = re.compile(r"(?:[^\r\n]*(?:\r\n?|\n)){1000}")


def _safe_cut(text: str, start: int, target: int, limit: int) -> int | None:
    """The first safe section start in [target, limit), or None."""
    pos = start
    while True:
        cut = _SAFE_CUT.search(text, max(pos, target), limit)
        opener = _OPENER.search(text, pos, cut.start() if cut else limit)
        if opener is None:
            return cut.end() if cut else None
        end = _construct_end(text, opener)
        if end is None or end >= limit:
            return None
        pos = end


def _construct_end(text: str, opener: re.Match[str]) -> int | None:
    """Where a fence or HTML block that `opener` starts ends; None: at the end of the text."""
    kind = opener.lastgroup
    if kind == "fence":
        fence = opener.group("fence")
        closer = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
        found = closer.search(text, text.find("\n", opener.end()) + 1 or len(text))
    else:
        found = _CLOSERS[kind or ""].search(text, opener.end())
    return found.end() if found else None


def _forced_cut(text: str, target: int, limit: int) -> int:
    """After the last line break before `limit`, else after a blank, else at `limit`."""
    for mark in ("\n", "\r", " ", "\t"):
        found = text.rfind(mark, target, limit)
        if found >= 0:
            return found + 1
    return limit
