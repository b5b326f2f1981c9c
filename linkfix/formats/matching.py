"""Scanning helpers shared by the markdown and HTML scanners."""

from __future__ import annotations

import re


def match_end(pattern: re.Pattern[str], text: str, pos: int, endpos: int | None = None) -> int:
    """Where a match of `pattern` at `pos` ends, for a pattern known to match there: one that
    matches the empty string (`\\s*`, `[^,]*+`), or one whose first character the caller has
    seen at `pos`. The scanners read only where such a run stops."""
    m = pattern.match(text, pos) if endpos is None else pattern.match(text, pos, endpos)
    if m is None:
        raise ValueError(f"{pattern.pattern!r} does not match at {pos}")
    return m.end()
