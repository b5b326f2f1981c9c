"""The source as written, and where a block's content sits in it.

markdown-it only tells where blocks are (line maps). A block's content (container markers like
`> ` and indentation removed) is aligned line by line with the source, so that an offset in
the content (what `tracking` records) maps to an offset in the file.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from itertools import accumulate

from ...model import Span

_NEWLINE = re.compile(r"\r\n?|\n")
_ATX_CLOSING = re.compile(r"[ \t]+#+[ \t]*$|^#+[ \t]*$")
_NEAR = 4096  # characters around its expected place a target is looked for
_MARKERS_AND_SPACE = re.compile(r"[\s>*+\-0-9.)]*")  # a line of container markers and blanks


class Source:
    """The text as given (or one section of it: `start` to `end`), its lines, and the map from
    markdown-it's normalized text to it.

    markdown-it turns CRLF/CR into LF and NUL into U+FFFD before parsing; lines are the same,
    so a normalized offset maps to the same line and column of the original. Offsets are
    offsets in the whole text; line numbers are the section's own (`line_base` is added in
    spans), as are normalized offsets (markdown-it parses the section alone).
    """

    def __init__(
        self,
        text: str,
        path: str,
        *,
        shadow: str | None = None,
        start: int = 0,
        end: int | None = None,
        line_base: int = 0,
        column_base: int = 0,
    ) -> None:
        self.text = text
        self.path = path
        self.bom = 1 if start == 0 and text.startswith("\ufeff") else 0
        start += self.bom
        end = len(text) if end is None else end
        self.start, self.end = start, end
        self.line_base = line_base  # lines of the text before this section
        self.column_base = column_base  # characters of its first line before the section
        # What markdown-it sees, at the original's offsets (NUL -> U+FFFD keeps lengths).
        self.shadow = text.replace("\0", "\ufffd") if shadow is None else shadow
        if "\r" in text:
            self.starts = [start]
            self.ends: list[int] = []
            for m in _NEWLINE.finditer(text, start, end):
                self.ends.append(m.start())
                self.starts.append(m.end())
            self.ends.append(end)
            self.normalized: list[int] = []
            size = 0
            for line_start, line_end in zip(self.starts, self.ends):
                self.normalized.append(size)
                size += line_end - line_start + 1
        else:  # every line break is one LF: the same lists, from the line lengths
            steps = [len(line) + 1 for line in text[start:end].split("\n")]
            self.starts = list(accumulate(steps[:-1], initial=start))
            self.ends = [line_start + step - 1 for line_start, step in zip(self.starts, steps)]
            self.normalized = list(accumulate(steps[:-1], initial=0))

    def parsed(self) -> str:
        """The text markdown-it parses: the section, byte order mark left out."""
        return self.shadow[self.start : self.end]

    def line_text(self, line: int) -> str:
        return self.shadow[self.starts[line] : self.ends[line]]

    def from_normalized(self, offset: int) -> int:
        line = bisect.bisect_right(self.normalized, offset) - 1
        return self.starts[line] + offset - self.normalized[line]

    def line_of(self, offset: int) -> int:
        return max(0, bisect.bisect_right(self.starts, offset) - 1)

    def span(self, start: int, end: int) -> Span:
        line = self.line_of(start)
        column = start - self.starts[line] + 1 + (self.column_base if line == 0 else 0)
        return Span(path=self.path, line=self.line_base + line + 1, column=column, start=start, end=end)

    def find_near(self, raw: str, expected: int | None, line: int) -> int | None:
        """The occurrence of `raw` on `line` nearest to `expected`."""
        if line >= len(self.starts):
            return None
        lo, hi = self.starts[line], self.ends[line]
        if expected is not None and lo <= expected and self.shadow.startswith(raw, expected, hi):
            return expected
        if not raw:
            return None
        anchor = lo if expected is None else min(max(expected, lo), hi)
        # Near the expected place only: on a megabyte line, searching all of it for every
        # link that cannot be found would be quadratic.
        lo, hi = max(lo, anchor - _NEAR), min(hi, anchor + len(raw) + _NEAR)
        after = self.shadow.find(raw, anchor, hi)
        before = self.shadow.rfind(raw, lo, min(hi, anchor + len(raw) - 1))
        hits = [h for h in (after, before) if h >= 0]
        return min(hits, key=lambda h: abs(h - anchor)) if hits else None


class Block:
    """A block's content (what markdown-it parsed inline) aligned with its source lines."""

    def __init__(self, source: Source, content: str, first_line: int, cursors: dict[int, int]) -> None:
        self.source = source
        self.content = content
        # markdown-it strips a paragraph's content with str.strip(): leading source lines of
        # Unicode whitespace only (\v, \f, U+2028 ...), after any container markers, vanish,
        # so the content starts further down.
        first = content.split("\n", 1)[0]
        if first.strip():
            while (
                first_line + 1 < len(source.starts)
                and first not in source.line_text(first_line)
                and _MARKERS_AND_SPACE.fullmatch(source.line_text(first_line))
            ):
                first_line += 1
        self.first_line = first_line
        self.offsets: list[int] = []  # where each content line starts in `content`
        self.origins: list[int | None] = []  # where it starts in the source, if found
        offset = 0
        for index, piece in enumerate(content.split("\n")):
            line = first_line + index
            self.offsets.append(offset)
            self.origins.append(_align(source, piece, line, cursors))
            offset += len(piece) + 1

    def expected(self, offset: int) -> tuple[int, int | None]:
        """(source line, expected source offset) of a content offset."""
        index = max(0, bisect.bisect_right(self.offsets, offset) - 1)
        origin = self.origins[index]
        return self.first_line + index, None if origin is None else origin + offset - self.offsets[index]

    def locate(self, raw: str, offset: int) -> tuple[int, int] | None:
        """Source span where `raw`, found at `offset` of the content, is written."""
        line, expected = self.expected(offset)
        if "\n" in raw:
            return self._locate_lines(raw, line, expected)
        found = self.source.find_near(raw, expected, line)
        if found is not None:
            return found, found + len(raw)
        if "|" in raw:
            # In table cells markdown-it drops the backslash of `\|` before parsing the cell.
            written = raw.replace("|", "\\|")
            found = self.source.find_near(written, expected, line)
            if found is not None:
                return found, found + len(written)
        return None

    def _locate_lines(self, raw: str, line: int, expected: int | None) -> tuple[int, int] | None:
        """A value that spans lines (a quoted raw HTML attribute): its first line is found
        on `line`, the rest must follow in the source as written (any line break style)."""
        first = raw[: raw.index("\n")]
        start = self.source.find_near(first, expected, line) if first else expected
        if start is None:
            return None
        written = re.compile(r"(?:\r\n?|\n)".join(map(re.escape, raw.split("\n"))))
        m = written.match(self.source.shadow, start)
        return (start, m.end()) if m else None


def _line_ends(text: str) -> Iterable[int]:
    """Where a content line may end in its source line: at the end, before trailing blanks,
    before an ATX heading's closing `#`s."""
    yield len(text)
    stripped = text.rstrip()
    yield len(stripped)
    if stripped.endswith("#"):
        yield len(_ATX_CLOSING.sub("", stripped).rstrip())


def _align(source: Source, piece: str, line: int, cursors: dict[int, int]) -> int | None:
    """Source offset where a content line starts: content lines are the source line minus
    container markers/indentation in front, and minus trailing blanks or an ATX closing
    sequence behind; table cells sit left to right on their row."""
    if line >= len(source.starts) or not piece:
        return None
    text = source.line_text(line)
    cursor = cursors.get(line, 0)
    column = None
    for end in _line_ends(text):
        if end - len(piece) >= cursor and text.startswith(piece, end - len(piece), end):
            column = end - len(piece)
            break
    if column is None:
        found = text.find(piece, cursor)
        if found < 0:
            # Tabs partly expanded to spaces in front: align on the rest.
            rest = piece.lstrip(" ")
            found = text.find(rest, cursor) if rest else -1
            if found < 0:
                return None
            found -= len(piece) - len(rest)
        column = found
    cursors[line] = column + len(piece)
    return source.starts[line] + column


