"""Files to Documents: pick the extractor by suffix, and reuse an earlier run's extraction.

`iter_documents` is the in-process path; `extract.worker` does the same with the parsing in a
second process. Both go through the same extraction cache (`cached_outcome`/`remember_outcome`).
"""

from __future__ import annotations

import functools
import hashlib
import logging
from pathlib import Path
from typing import Callable, Iterator

from ..inputs.read import MAX_FILE_BYTES, Unreadable, display_path, read_text
from ..inputs.sources import MARKDOWN_SUFFIXES, Project
from ..model import Document, Page
from ..store.cache import Cache
from . import extract_html, extract_markdown

log = logging.getLogger(__name__)

EXTRACT_NAMESPACE = "extract"

Outcome = tuple[Document, str] | str  # (document, warning) for one file, or why it could not be read


def extract_document(path: Path, text: str, *, want_text: bool) -> Document:
    display = display_path(path)
    if path.suffix.lower() in MARKDOWN_SUFFIXES:
        return extract_markdown(text, display, want_text=want_text)
    return extract_html(text, display, want_text=want_text)


def extract_file(path: Path, want_text: bool) -> Outcome:
    """(document, warning) for one file, or why it could not be read."""
    try:
        text, warning = read_text(path)
    except Unreadable as exc:
        return str(exc)
    return extract_document(path, text, want_text=want_text), warning


def iter_documents(project: Project, *, want_text: bool, cache: Cache | None, errors: list[str]) -> Iterator[tuple[str, Document]]:
    """Extract the input files one by one (lazily: the pipeline starts checking a file's
    external links while the next ones are extracted), appending read errors to `errors`."""
    errors.extend(project.errors)
    for path in project.files:
        key = extraction_key(path, want_text) if cache is not None else ""
        outcome = cached_outcome(cache, key)
        if outcome is None:
            outcome = extract_file(path, want_text)
            remember_outcome(cache, key, outcome)
        document = accept_outcome(project, path, outcome, errors)
        if document is not None:
            yield document


def accept_outcome(project: Project, path: Path, outcome: Outcome, errors: list[str]) -> tuple[str, Document] | None:
    """(root-relative key, document) for a file's extraction; problems go to `errors`."""
    if isinstance(outcome, str):
        errors.append(f"{display_path(path)}: {outcome}")
        log.warning("skipping %s: %s", path, outcome)
        return None
    document, warning = outcome
    for problem in (warning, *document.warnings) if warning else document.warnings:
        errors.append(f"{display_path(path)}: {problem}")
        log.warning("%s: %s", path, problem)
    return project.relative(path) or path.resolve().as_posix(), document


def cached_outcome(cache: Cache | None, key: str) -> Outcome | None:
    """A file's extraction from an earlier run: the file's bytes (and display path, and the
    extractor's own code) are unchanged. On a warm run over an unchanged site, extraction was
    most of the time left. Only successful extractions are kept."""
    if cache is None or not key:
        return None
    outcome = cache.get(EXTRACT_NAMESPACE, key)
    return outcome if isinstance(outcome, tuple) and outcome and isinstance(outcome[0], Document) else None


def remember_outcome(cache: Cache | None, key: str, outcome: Outcome) -> None:
    """Keep a successful extraction for `cached_outcome` in later runs."""
    if cache is not None and key and not isinstance(outcome, str):
        cache.set(EXTRACT_NAMESPACE, key, outcome, cache.max_age)


def extraction_key(path: Path, want_text: bool) -> str:
    """Digest of what the extraction depends on, or "" when the file cannot be read."""
    try:
        data = path.read_bytes() if path.stat().st_size <= MAX_FILE_BYTES else b""
    except OSError:
        return ""
    if not data:
        return ""
    digest = hashlib.blake2b(data, digest_size=20)
    digest.update(f"\0{display_path(path)}\0{want_text}\0{_extractor_fingerprint()}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def _extractor_fingerprint() -> str:
    """Changes whenever the code that turns a file into a Document changes (no stale parses
    after an upgrade or a local edit)."""
    package = Path(__file__).resolve().parent
    digest = hashlib.blake2b(digest_size=16)
    for source in sorted([package.parent / "model.py", package.parent / "inputs" / "read.py", *package.rglob("*.py")]):
        try:
            digest.update(source.read_bytes())
        except OSError:
            digest.update(source.name.encode())
    return digest.hexdigest()


def page_loader(project: Project) -> Callable[[str], Page | None]:
    """Extracts a target page on demand (a fragment check into a file not among the inputs)."""

    def load(rel: str) -> Page | None:
        path = project.root / rel
        try:
            text, _ = read_text(path)
        except Unreadable:
            return None
        return extract_document(path, text, want_text=False).page

    return load
