"""Reading one source file: regular files only, size-capped while reading, binary refused,
encoding problems named.

Every stage that reads a documentation file (extraction and its cache key, fragment look-ups in
pages that are not inputs, the mkdocs plugin, the fixer) and every YAML/TOML config file goes
through `read_bytes`, so the limits hold everywhere. A hostile tree can hold a symlink to
`/dev/zero` (size 0 on stat, endless when read) or a FIFO (open() waits for a writer forever):
the file is opened without blocking, and what the opened descriptor is decides, not the name.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import InputError

MAX_FILE_BYTES = 64 * 1024 * 1024  # larger "documentation" is almost surely not documentation
_SNIFF_BYTES = 8192
_CHUNK = 1024 * 1024
_KINDS = ((stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"),
          (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"))


class Unreadable(InputError):
    """A source that cannot be extracted; the message says why in a few words."""


def read_bytes(path: Path, *, limit: int | None = None) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (default MAX_FILE_BYTES). Raises
    Unreadable for anything else, without blocking on a FIFO or reading a device."""
    cap = MAX_FILE_BYTES if limit is None else limit
    try:
        # O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "special file")
            raise Unreadable(f"not a regular file ({kind}); not read")
        if info.st_size > cap:
            raise Unreadable(_too_large(info.st_size, cap))
        chunks: list[bytes] = []
        size = 0
        while size <= cap:  # the size on record can be wrong (procfs, a file still growing)
            chunk = os.read(fd, min(_CHUNK, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap:
            raise Unreadable(_too_large(size, cap))
        return b"".join(chunks)
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from exc
    finally:
        os.close(fd)


def _too_large(size: int, cap: int) -> str:
    mib = 1024 * 1024
    if cap >= mib:
        return f"file too large ({size // mib} MB > {cap // mib} MB)"
    return f"file too large (more than {cap} bytes)"


def read_text(path: Path) -> tuple[str, str]:
    """Text of a source file and a warning ('' when clean). Raises Unreadable."""
    data = read_bytes(path)
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
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return relative if Path(relative).parts[:1] != ("..",) else str(path)
