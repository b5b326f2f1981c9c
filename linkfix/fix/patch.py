"""Edit link targets in source files by span: plan, diff, and write safely.

`plan_edits` is pure: it replaces exact character ranges of a text and nothing else.
`apply_file_edits` is the I/O edge: it reads bytes, decodes them the way extraction did
(UTF-8, an optional BOM, newlines untouched), refuses a file that changed since it was read,
and writes atomically with the file's permissions kept. `format_target` spells a new URL so
that it parses back as the same URL in its place (HTML attribute or markdown destination).
"""

from __future__ import annotations

import difflib
import functools
import glob
import hashlib
import html
import logging
import os
import re
import secrets
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import PatchError
from ..inputs.read import Unreadable, read_bytes
from ..model import LinkKind, Span

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
class Source:
    """A source file as read for patching."""

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


def read_source(path: Path) -> Source:
    try:
        data = read_bytes(path)  # regular files only, size-capped: never a FIFO or a device
    except Unreadable as exc:
        raise PatchError(f"{path}: cannot read: {exc}") from exc
    text, bom = decode_source(data, path)
    return Source(path=path, text=text, bom=bom, digest=digest_bytes(data))


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
    for before, after in zip(unique, unique[1:]):
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


def patched_text(source: Source, edits: list[Edit]) -> str:
    """The source's new text (spans checked against the file as it is)."""
    if not _matches(source.text, edits):
        moved = _crlf_spans(source.text, edits)
        if moved is not None:
            edits = moved
    return plan_edits(source.text, edits)


def writable_path(path: Path, root: Path) -> Path:
    """The real file to write: refuses symlinks that lead out of `root` and non-regular files."""
    real = Path(os.path.realpath(path))
    real_root = Path(os.path.realpath(root))
    if real != real_root and real_root not in real.parents:
        raise PatchError(
            f"{path}: resolves to {real}, outside the project root {real_root}; not touching it "
            "(run linkfix from the project's directory)"
        )
    try:
        mode = real.stat().st_mode
    except OSError as exc:
        raise PatchError(f"{path}: cannot stat: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(mode):
        raise PatchError(f"{path}: not a regular file")
    return real


def apply_file_edits(path: Path, edits: list[Edit], *, expected_digest: str, root: Path | None = None) -> bool:
    """Apply `edits` to `path` in place. True when the file changed.

    `expected_digest` is the sha256 of the bytes the edits were planned from: a file that no
    longer has it changed underneath and is refused (PatchError) rather than clobbered.
    """
    real = writable_path(path, root if root is not None else Path.cwd())
    source = read_source(real)
    if source.digest != expected_digest:
        raise PatchError(f"{path}: changed since it was read; run linkfix again")
    after = patched_text(source, edits)
    if after == source.text:
        return False
    data = (_BOM if source.bom else b"") + after.encode("utf-8")
    _write_atomic(real, data, display=path)
    log.info("patched %s (%d edit(s))", path, len(set(edits)))
    return True


_TMP_SUFFIX = ".linkfix-tmp"


def _write_atomic(real: Path, data: bytes, *, display: Path) -> None:
    mode = stat.S_IMODE(real.stat().st_mode)
    # A run killed outright (SIGKILL, power loss) between creating its temporary file and the
    # replace leaves that file behind: the next write of the same file sweeps it away.
    for stale in real.parent.glob(f".{glob.escape(real.name)}.*{_TMP_SUFFIX}"):
        stale.unlink(missing_ok=True)
    # Named before it exists (not mkstemp): an interrupt landing anywhere after the file is
    # created still finds its name in the cleanup below.
    tmp = real.parent / f".{real.name}.{secrets.token_hex(6)}{_TMP_SUFFIX}"
    try:
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException as exc:  # Ctrl-C/SIGTERM too: never leave the temporary file behind
        if not isinstance(exc, FileExistsError):  # only O_EXCL raises it: that file is not ours
            tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise PatchError(f"{display}: cannot write: {exc.strerror or exc}") from exc
        raise


# ---------------------------------------------------------------------------------------------
# Spelling a URL for its place in the source

_MD_UNSAFE = re.compile(r"[\x00-\x20\x7f]")  # whitespace and controls end a destination
_AUTOLINK_UNSAFE = re.compile(r"[\x00-\x20\x7f<>]")
# CommonMark decodes `&amp;`, `&#38;` ... in a link destination: such an `&` is backslash-escaped.
_ENTITY_START = re.compile(r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]*;)")


def _percent(match: re.Match[str]) -> str:
    return "".join(f"%{b:02X}" for b in match.group().encode("utf-8"))


def format_target(url: str, *, kind: LinkKind, tag: str, span: Span, text: str) -> str:
    """`url` written so that it parses back as `url` at `span` of `text`.

    HTML attributes (links with a tag) get whitespace percent-encoded and `&`, quotes and angle
    brackets escaped. Markdown
    destinations get whitespace percent-encoded; inside `<...>` the brackets are encoded too;
    a bare URL that a linkifier would cut short becomes an autolink `<...>`;
    in a bare destination unbalanced parentheses and a leading `<` are backslash-escaped, which
    CommonMark removes again when it reads the link.
    """
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
