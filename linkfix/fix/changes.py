"""From planned fixes to file changes, and writing them.

`prepare_changes` reads the files a plan touches, checks that each span still holds the link
the report saw and that extracting the file as it is now finds a link target there (a page of
a MkDocs project as MkDocs renders it, like the check read it), and computes the new text;
`write_changes` writes it with `linkfix.fix.patch`'s safe writer. The plan is input, not
trusted (a report or a decisions file names files and offsets): anything that is not a link
target of a documentation file is refused, link by link.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import PatchError
from ..extract.documents import extract_document
from ..formats.css import unescape_css
from ..mkdocs.extensions.setup import MarkdownSetup, markdown_setup_for
from ..model import Link, LinkKind
from .patch import Edit, EditableFile, apply_file_edits, editable_path, format_target, patched_text, read_editable, unified_diff
from .plan import Fix, FixPlan


@dataclass(frozen=True, slots=True, kw_only=True)
class FileChange:
    path: str  # as the report names it
    original: EditableFile
    after: str
    edits: tuple[Edit, ...]

    @property
    def changed(self) -> bool:
        return self.after != self.original.text

    @property
    def diff(self) -> str:
        return unified_diff(self.path, self.original.text, self.after)


_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _holds(written: str, fix: Fix) -> bool:
    """Does the source text at the span still spell the link the report saw?"""
    if written == fix.url:
        return True
    if fix.kind is LinkKind.CSS:
        return unescape_css(written) == fix.url
    if fix.tag or fix.kind is LinkKind.HTML:
        return html.unescape(written) == fix.url
    return _MD_ESCAPE.sub(r"\1", written) == fix.url


def prepare_changes(
    plan: FixPlan, *, base: Path, root: Path | None = None, rewrite_read_only: bool = False, trust_project_code: bool = False
) -> tuple[list[FileChange], list[str]]:
    """Read every file the plan touches; returns the changes and the refusals, each a message.

    Paths are relative to `base`; only documentation files inside `root` (default: `base`) are
    read (see `patch.editable_path`). A file whose spans no longer hold the links the report
    saw was edited after the check: it is refused as a whole (its other edits could be just as
    stale). A span that holds the URL but is no link target when the file is extracted again
    (a code sample, plain text: a crafted report) is refused on its own."""
    root = root if root is not None else base
    by_file: dict[str, list[Fix]] = defaultdict(list)
    for fix in plan.fixes:
        by_file[fix.span.path].append(fix)
    changes: list[FileChange] = []
    problems: list[str] = []
    for path, fixes in sorted(by_file.items()):
        try:
            change, refused = _prepare_file(path, fixes, base / path, root, rewrite_read_only, trust_project_code)
        except PatchError as exc:
            problems.append(str(exc))
            continue
        problems.extend(refused)
        if change.edits:
            changes.append(change)
    return changes, problems


def _prepare_file(path: str, fixes: list[Fix], file: Path, root: Path, rewrite_read_only: bool,
                  trust_project_code: bool) -> tuple[FileChange, list[str]]:
    original = read_editable(editable_path(file, root, rewrite_read_only=rewrite_read_only, shown_as=path))
    text = original.text
    for fix in fixes:
        start, end = fix.span.start, fix.span.end
        if end > len(text) or not _holds(text[start:end], fix):
            raise PatchError(
                f"{path}:{fix.span.line}: no longer holds {fix.url!r:.120} where the report saw it; "
                "the file changed since the check, run it again"
            )
    markdown = markdown_setup_for(file, trust_project_code=trust_project_code)
    links = extract_document(file, text, want_text=False, markdown=markdown).links
    targets = _by_target_span(links)
    edits: list[Edit] = []
    refused: list[str] = []
    for fix in fixes:
        start, end = fix.span.start, fix.span.end
        link = next((link for link in targets.get((start, end), ()) if link.url == fix.url), None)
        if link is None:
            refused.append(
                f"{path}:{fix.span.line}: {fix.url!r:.120} at offset {start} is not a link target of this file "
                "as linkfix reads it (code, plain text?); not editing it"
            )
            continue
        # Spelled for the place the file itself has (the report's kind and tag are not trusted).
        new = format_target(fix.new_url, kind=link.kind, tag=link.tag, span=fix.span, text=text)
        edits.append(Edit(span=fix.span, old=text[start:end], new=new))
    after = patched_text(original, edits)
    _check_targets_read_back(path, file, after, edits, link_count=len(links), markdown=markdown)
    return FileChange(path=path, original=original, after=after, edits=tuple(edits)), refused


def _by_target_span(links: Iterable[Link]) -> dict[tuple[int, int], list[Link]]:
    targets: dict[tuple[int, int], list[Link]] = defaultdict(list)
    for link in links:
        if link.span.start < link.span.end:  # a zero-width span is a target extraction could not place
            targets[(link.span.start, link.span.end)].append(link)
    return targets


def _check_targets_read_back(path: str, file: Path, after: str, edits: list[Edit], *, link_count: int,
                             markdown: MarkdownSetup | None = None) -> None:
    """Every new target is read back as a link target where the old one was, and no link
    appears or disappears: a URL spelled wrongly for its place never reaches the disk."""
    if not edits:
        return
    shift = 0
    placed: list[tuple[Edit, int, int]] = []
    for edit in sorted(set(edits), key=lambda e: e.span.start):
        start = edit.span.start + shift
        placed.append((edit, start, start + len(edit.new)))
        shift += len(edit.new) - (edit.span.end - edit.span.start)
    links_after = extract_document(file, after, want_text=False, markdown=markdown).links
    spans_after = {(link.span.start, link.span.end) for link in links_after}
    for edit, start, end in placed:
        # the new text is the target, or holds it in `<...>` (a bare URL made an autolink)
        bracketed = edit.new.startswith("<") and edit.new.endswith(">")
        if (start, end) not in spans_after and not (bracketed and (start + 1, end - 1) in spans_after):
            raise PatchError(
                f"{path}:{edit.span.line}: {edit.new!r:.120} would not read back as a link target there; "
                "not editing this file (a linkfix bug: please report it)"
            )
    if len(links_after) != link_count:
        raise PatchError(
            f"{path}: the new URLs would change which links the file has; not editing it "
            "(a linkfix bug: please report it)"
        )


def write_changes(
    changes: list[FileChange], *, base: Path, root: Path, rewrite_read_only: bool = False
) -> tuple[list[str], list[str]]:
    """Write every change whose text differs. Returns (changed paths, problems)."""
    changed: list[str] = []
    problems: list[str] = []
    for change in changes:
        if not change.changed:
            continue
        try:
            if apply_file_edits(
                base / change.path, list(change.edits), expected_digest=change.original.digest, root=root,
                rewrite_read_only=rewrite_read_only, shown_as=change.path,
            ):
                changed.append(change.path)
        except PatchError as exc:
            problems.append(str(exc))
    return changed, problems
