"""Edit link targets in source files by span: plan, diff, and write safely.

`plan_edits` is pure: it replaces exact character ranges of a text and nothing else.
`editable_path` says which files may be edited at all: documentation files inside the project
root, writable unless asked otherwise. `apply_file_edits` is the I/O edge: it reads bytes,
decodes them the way extraction did (UTF-8, an optional BOM, newlines untouched), refuses a
file that changed since it was read, and writes with `linkfix.atomic.write_atomic` (one step;
permissions and owner kept). `format_target` spells a new URL so that it parses back as the
same URL in its place (HTML attribute or markdown destination).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import html
import itertools
import logging
import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..errors import PatchError
from ..files.read import Unreadable, read_bytes
from ..inputs.walk import DOCUMENT_SUFFIXES, not_documentation
from ..model import LinkKind, Span
from ..report.common import is_invisible

log = logging.getLogger(__name__)

_BOM = b"\xef\xbb\xbf"
# BOMs of encodings we do not edit: better to refuse than to re-encode a file.
_FOREIGN_BOMS = {
    b"\xff\xfe\x00\x00": "UTF-32-LE",
    b"\x00\x00\xfe\xff": "UTF-32-BE",
    b"\xff\xfe": "UTF-16-LE",
    b"\xfe\xff": "UTF-16-BE",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Edit:
    """Replace `old` (what the span holds now) with `new`."""

    span: Span
    old: str
    new: str


@dataclass(frozen=True, slots=True, kw_only=True)
class EditableFile:
    """A documentation file as read for editing (strictly: UTF-8 or refused)."""

    path: Path
    text: str  # decoded, BOM removed, newlines as in the file
    bom: bool
    digest: str  # sha256 of the bytes read


def digest_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode_source(data: bytes, path: Path | str) -> tuple[str, bool]:
    """Text and whether it had a UTF-8 BOM. Refuses anything that is not UTF-8 (PatchError)."""
    for bom, name in _FOREIGN_BOMS.items():
        if data.startswith(bom):
            raise PatchError(f"{path}: encoded as {name}; linkfix only edits UTF-8 files")
    has_bom = data.startswith(_BOM)
    try:
        return data[len(_BOM) if has_bom else 0 :].decode("utf-8"), has_bom
    except UnicodeDecodeError as exc:
        raise PatchError(
            f"{path}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); not editing it"
        ) from None


def read_editable(path: Path) -> EditableFile:
    """The file as the edits will see it. Unlike `linkfix.files.read.read_text` (which reads
    a source for checking, with replacement characters if need be) it refuses what it could
    not write back byte for byte."""
    try:
        data = read_bytes(path)  # regular files only, size-capped: never a FIFO or a device
    except Unreadable as exc:
        raise PatchError(f"{path}: cannot read: {exc}") from exc
    text, bom = decode_source(data, path)
    return EditableFile(path=path, text=text, bom=bom, digest=digest_bytes(data))


def plan_edits(text: str, edits: list[Edit]) -> str:
    """`text` with every edit applied. Identical edits of one span count once (a reference
    definition shared by many uses); different edits that overlap are refused."""
    unique = sorted(set(edits), key=lambda e: (e.span.start, e.span.end, e.new))
    for edit in unique:
        start, end = edit.span.start, edit.span.end
        if not 0 <= start <= end <= len(text) or text[start:end] != edit.old:
            found = text[start:end] if 0 <= start <= end <= len(text) else "<outside the file>"
            raise PatchError(
                f"{edit.span.path}:{edit.span.line}: expected {edit.old!r:.120} at offset {start}, "
                f"found {found!r:.120}; the file changed since it was checked"
            )
    for before, after in itertools.pairwise(unique):
        same_span = (before.span.start, before.span.end) == (after.span.start, after.span.end)
        if after.span.start < before.span.end or same_span:
            raise PatchError(
                f"{after.span.path}:{after.span.line}: conflicting edits of one place "
                f"({before.new!r:.80} and {after.new!r:.80})"
            )
    pieces: list[str] = []
    position = 0
    for edit in unique:
        pieces.append(text[position : edit.span.start])
        pieces.append(edit.new)
        position = edit.span.end
    pieces.append(text[position:])
    return "".join(pieces)


def unified_diff(path: str, before: str, after: str) -> str:
    """A `git apply`-able diff of one file ('' when nothing changed)."""
    if before == after:
        return ""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
    )
    out: list[str] = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:  # last line of a file without a final newline
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _crlf_spans(text: str, edits: list[Edit]) -> list[Edit] | None:
    """Edits whose offsets count CRLF as one character (text read with universal newlines),
    moved to offsets into `text`; None when they do not match that way either."""
    crs = [m.start() for m in re.finditer("\r\n", text)]
    if not crs:
        return None
    # Position p of the normalised text is raw position p + (number of CRLFs before it).
    normalised_crs = [raw - i for i, raw in enumerate(crs)]

    def raw(offset: int) -> int:
        lo, hi = 0, len(normalised_crs)
        while lo < hi:
            mid = (lo + hi) // 2
            if normalised_crs[mid] < offset:
                lo = mid + 1
            else:
                hi = mid
        return offset + lo

    moved = []
    for edit in edits:
        start, end = raw(edit.span.start), raw(edit.span.end)
        if text[start:end].replace("\r\n", "\n") != edit.old:
            return None
        moved.append(replace(edit, span=replace(edit.span, start=start, end=end), old=text[start:end]))
    return moved


def _matches(text: str, edits: list[Edit]) -> bool:
    return all(0 <= e.span.start <= e.span.end <= len(text) and text[e.span.start : e.span.end] == e.old for e in edits)


def patched_text(file: EditableFile, edits: list[Edit]) -> str:
    """The file's new text (spans checked against the file as it is)."""
    if not _matches(file.text, edits):
        moved = _crlf_spans(file.text, edits)
        if moved is not None:
            edits = moved
    return plan_edits(file.text, edits)


def editable_path(path: Path, root: Path, *, rewrite_read_only: bool = False, shown_as: str = "") -> Path:
    """The real file to write for `path`, or PatchError saying why it may not be edited
    (naming the file `shown_as`, by default `path`).

    Only documentation files are edited: a regular file with a markdown or HTML suffix (under
    its own name and its real one), inside `root` (symlinks that lead out of it are refused),
    not under a directory linkfix never reads (.git, node_modules, a virtualenv...). A file
    without write permission for its owner is left alone unless `rewrite_read_only`.
    """
    shown = shown_as or str(path)
    real = Path(os.path.realpath(path))
    real_root = Path(os.path.realpath(root))
    if real != real_root and real_root not in real.parents:
        raise PatchError(
            f"{shown}: resolves to {real}, outside the project root {real_root}; not touching it "
            "(run linkfix from the project's directory)"
        )
    try:
        mode = real.stat().st_mode
    except OSError as exc:
        raise PatchError(f"{shown}: cannot stat: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(mode):
        raise PatchError(f"{shown}: not a regular file")
    reason = not_documentation(real, real_root)
    if not reason and path.suffix.lower() not in DOCUMENT_SUFFIXES:
        reason = f"a link to {real.relative_to(real_root).as_posix()} under a name that is not a documentation file's"
    if reason:
        raise PatchError(f"{shown}: {reason}; linkfix only edits the documentation it reads")
    if not mode & stat.S_IWUSR and not rewrite_read_only:
        raise PatchError(
            f"{shown}: read-only (mode {stat.S_IMODE(mode):04o}); not changing it "
            "(--rewrite-read-only rewrites it and keeps it read-only)"
        )
    return real


def apply_file_edits(
    path: Path,
    edits: list[Edit],
    *,
    expected_digest: str,
    root: Path | None = None,
    rewrite_read_only: bool = False,
    shown_as: str = "",
) -> bool:
    """Apply `edits` to `path` in place. True when the file changed.

    `expected_digest` is the sha256 of the bytes the edits were planned from: a file that no
    longer has it changed underneath and is refused (PatchError) rather than clobbered.
    """
    shown = shown_as or str(path)
    real = editable_path(path, root if root is not None else Path.cwd(), rewrite_read_only=rewrite_read_only, shown_as=shown)
    current = read_editable(real)
    if current.digest != expected_digest:
        raise PatchError(f"{shown}: changed since it was read; run linkfix again")
    after = patched_text(current, edits)
    if after == current.text:
        return False
    try:
        write_atomic(real, (_BOM if current.bom else b"") + after.encode("utf-8"))
    except OSError as exc:
        raise PatchError(f"{shown}: cannot write: {exc.strerror or exc}") from exc
    log.info("patched %s (%d edit(s))", shown, len(set(edits)))
    return True


# ---------------------------------------------------------------------------------------------
# Spelling a URL for its place in the source

_MD_UNSAFE = re.compile(r"[\x00-\x20\x7f]")  # whitespace and controls end a destination
_AUTOLINK_UNSAFE = re.compile(r"[\x00-\x20\x7f<>]")
_CSS_UNSAFE = re.compile(r"[\x00-\x20\x7f\"'()\\]")
# CommonMark decodes `&amp;`, `&#38;` ... in a link destination: such an `&` is backslash-escaped.
_ENTITY_START = re.compile(r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]*;)")


def _percent(match: re.Match[str]) -> str:
    return _percent_char(match.group())


def _percent_char(chars: str) -> str:
    return "".join(f"%{b:02X}" for b in chars.encode("utf-8"))


def _without_hidden_characters(url: str) -> str:
    """`url` with `|` and the characters that do not show as themselves percent-encoded.

    `|` ends a table cell in a markdown table row, wherever it stands (GFM splits cells before
    it parses links); invisible characters (controls, bidi overrides, zero-width characters,
    U+2028 and other separators) hide what a URL says, or end its line. None of them may stand
    unencoded in a URL (RFC 3986), and a browser percent-encodes them as these bytes anyway,
    so the encoded URL is the same URL. (`is_safe_url` refused such characters in the host.)
    """
    if url.isascii() and "|" not in url:
        return url  # ASCII controls and spaces: each place below has its own rule
    return "".join(_percent_char(c) if c == "|" or (not c.isascii() and is_invisible(c)) else c for c in url)


def format_target(url: str, *, kind: LinkKind, tag: str, span: Span, text: str) -> str:
    """`url` written so that it parses back as `url` at `span` of `text`.

    HTML attributes (links with a tag) get whitespace percent-encoded and `&`, quotes and angle
    brackets escaped. Markdown
    destinations get whitespace percent-encoded; inside `<...>` the brackets are encoded too;
    a bare URL that a linkifier would cut short becomes an autolink `<...>`;
    in a bare destination unbalanced parentheses and a leading `<` are backslash-escaped, which
    CommonMark removes again when it reads the link. Everywhere, `|` and invisible characters
    are percent-encoded (`_without_hidden_characters`).
    """
    url = _without_hidden_characters(url)
    if kind is LinkKind.CSS or tag.endswith("[style]"):
        # A CSS url: whitespace, quotes, parentheses and backslashes would end or change it
        # (an unquoted `url(...)` ends at the first of them); in a style attribute, escaped too.
        url = _CSS_UNSAFE.sub(_percent, url)
        return url if kind is LinkKind.CSS else html.escape(url, quote=True)
    if tag or kind is LinkKind.HTML:
        if tag == "meta[content]":
            # In a refresh `content` a quote opens or closes the URL itself: encode quotes.
            url = url.replace('"', "%22").replace("'", "%27")
        # Whitespace would be trimmed from href or split a srcset: encode it, then escape.
        return html.escape(_MD_UNSAFE.sub(_percent, url), quote=True)
    if kind is LinkKind.AUTOLINK:
        return _AUTOLINK_UNSAFE.sub(_percent, url)
    if kind is LinkKind.BARE:
        # A linkifier leaves trailing punctuation and unbalanced brackets out of a bare URL;
        # such a URL is written as an autolink, which keeps every character.
        spelled = _AUTOLINK_UNSAFE.sub(_percent, url)
        return spelled if _linkifies_whole(spelled) else f"<{spelled}>"
    start, end = span.start, span.end
    bracketed = start > 0 and text[start - 1 : start] == "<" and text[end : end + 1] == ">"
    if bracketed:
        return _ENTITY_START.sub(r"\\&", _AUTOLINK_UNSAFE.sub(_percent, url).replace("\\", "%5C"))
    spelled = _MD_UNSAFE.sub(_percent, url)
    # Keep a literal backslash literal, also a last one (it would escape the closing `)`).
    spelled = re.sub(r"\\(?=[!-/:-@\[-`{-~]|$)", r"\\\\", spelled)
    spelled = _ENTITY_START.sub(r"\\&", spelled)
    if not _parens_balanced(spelled):
        spelled = spelled.replace("(", "\\(").replace(")", "\\)")
    if spelled.startswith("<"):
        spelled = "\\" + spelled
    return spelled


@functools.cache
def _linkifier() -> Any:
    from linkify_it import LinkifyIt  # what markdown-it's linkify (and so extraction) uses

    return LinkifyIt().set({"fuzzy_link": False, "fuzzy_email": False})


def _linkifies_whole(url: str) -> bool:
    """Would a linkifier take all of `url`, standing alone in prose, as one link?"""
    matches = _linkifier().match(f" {url} ") or []
    return len(matches) == 1 and matches[0].raw == url


def _parens_balanced(value: str) -> bool:
    depth = 0
    for char in value:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0
