"""Reading one source file as text: size-capped, binary refused, encoding problems named.

Every stage that reads a documentation file (extraction, fragment look-ups in pages that are
not inputs, the mkdocs plugin) reads it through `read_text`, so the limits hold everywhere.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_FILE_BYTES = 64 * 1024 * 1024  # larger "documentation" is almost surely not documentation
_SNIFF_BYTES = 8192


class Unreadable(Exception):
    """A source that cannot be extracted; the message says why in a few words."""


def read_text(path: Path) -> tuple[str, str]:
    """Text of a source file and a warning ('' when clean). Raises Unreadable."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise Unreadable(f"file too large ({size // (1024 * 1024)} MB > {MAX_FILE_BYTES // (1024 * 1024)} MB)")
        data = path.read_bytes()
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from exc
    if b"\0" in data[:_SNIFF_BYTES]:
        raise Unreadable("binary file (NUL bytes), not a text document")
    try:
        return data.decode("utf-8-sig"), ""
    except UnicodeDecodeError as exc:
        # Still check it (links are usually ASCII) but say so; the fixer refuses to edit it.
        warning = f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); read with replacement characters"
        return data.decode("utf-8-sig", errors="replace"), warning


def display_path(path: Path) -> str:
    """Paths in reports are relative to the working directory when they are under it."""
    try:
        return os.path.relpath(path) if Path(os.path.relpath(path)).parts[:1] != ("..",) else str(path)
    except ValueError:
        return str(path)
