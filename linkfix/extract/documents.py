"""Files to Documents: pick the extractor by suffix, and reuse an earlier run's extraction.

`iter_documents` is the in-process path; `extract.worker` does the same with the parsing in a
second process. Both go through the same extraction cache (`cached_outcome`/`remember_outcome`).
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import AsyncGenerator, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..files.read import Unreadable, display_path, read_bytes, read_text
from ..formats import extract_html, extract_markdown
from ..formats.silence import silenced_in
from ..inputs.sources import Project
from ..inputs.walk import MARKDOWN_SUFFIXES
from ..model import Document, Silenced
from ..store.cache import Cache
from . import codec

if TYPE_CHECKING:
    from ..mkdocs.pages.extract import MarkdownSetup

log = logging.getLogger(__name__)

EXTRACT_NAMESPACE = "extract"

Outcome = tuple[Document, str] | str  # (document, warning) for one file, or why it could not be read
# Extracted documents, keyed by root-relative path: read in this process, or a worker's.
Documents = Iterable[tuple[str, Document]] | AsyncGenerator[tuple[str, Document], None]


def extract_document(path: Path, text: str, *, want_text: bool, markdown: MarkdownSetup | None = None, links: bool = True) -> Document:
    """The links of one file: markdown as MkDocs renders it when `markdown` (a MkDocs
    project's setup) is given, else as CommonMark reads it; HTML as it is. With the lines its
    ignore comments cover. `links` false: only its Page is wanted (a rendered page's links may
    then be left out)."""
    display = display_path(path)
    if path.suffix.lower() in MARKDOWN_SUFFIXES:
        if markdown is not None:
            from ..mkdocs.pages.extract import extract_mkdocs

            document = extract_mkdocs(text, display, markdown, want_text=want_text, links=links)
        else:
            document = extract_markdown(text, display, want_text=want_text)
    elif path.suffix.lower() == ".css":
        from ..formats.css import extract_css

        document = extract_css(text, display)
    else:
        document = extract_html(text, display, want_text=want_text)
    return with_silenced(document, silenced_in(text))


def with_silenced(document: Document, silenced: tuple[Silenced, ...]) -> Document:
    """`document` with the lines its file's ignore comments cover."""
    return replace(document, silenced=silenced) if silenced else document


STDIN_PATH = "-"  # how a document read from stdin is named in reports


def stdin_document(text: str, *, want_text: bool) -> tuple[str, Document]:
    """(key, document) of a document read from stdin: HTML when it starts like an HTML page,
    else markdown (as CommonMark and GitHub read it). Its links are shown at `-`; the key
    ('-.md' or '-.html') says how it was read."""
    head = text.lstrip()[:20].lower()
    is_html = head.startswith(("<!doctype html", "<html"))
    document = extract_html(text, STDIN_PATH, want_text=want_text) if is_html else extract_markdown(text, STDIN_PATH, want_text=want_text)
    return f"{STDIN_PATH}.{'html' if is_html else 'md'}", with_silenced(document, silenced_in(text))


def markdown_setup(project: Project) -> MarkdownSetup | None:
    """How the project's markdown renders: its MkDocs setup (what cannot be loaded here is
    said once), or None for plain CommonMark (not a MkDocs project, or no Python-Markdown)."""
    if project.mkdocs is None:
        return None
    from ..mkdocs.pages.extract import announce, setup_of

    setup = setup_of(project.mkdocs)
    return setup if announce(setup) else None


def extract_file(path: Path, want_text: bool, markdown: MarkdownSetup | None = None) -> Outcome:
    """(document, warning) for one file, or why it could not be read."""
    try:
        text, warning = read_text(path)
    except Unreadable as exc:
        return str(exc)
    return extract_document(path, text, want_text=want_text, markdown=markdown), warning


def iter_documents(project: Project, *, want_text: bool, cache: Cache | None, errors: list[str]) -> Iterator[tuple[str, Document]]:
    """Extract the input files one by one (lazily: the pipeline starts checking a file's
    external links while the next ones are extracted), appending read errors to `errors`."""
    errors.extend(project.errors)
    markdown = markdown_setup(project)
    for path in project.files:
        key = extraction_key(path, want_text, markdown) if cache is not None else ""
        outcome = cached_outcome(cache, key)
        if outcome is None:
            outcome = extract_file(path, want_text, markdown)
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
    most of the time left. Only successful extractions are kept, as data (`codec`): anything
    else under the key is a miss, and the file is extracted again."""
    if cache is None or not key:
        return None
    stored = cache.get(EXTRACT_NAMESPACE, key)
    if not isinstance(stored, dict) or type(stored.get("warning")) is not str:
        return None
    document = codec.decode(stored.get("document"))
    return None if document is None else (document, stored["warning"])


def remember_outcome(cache: Cache | None, key: str, outcome: Outcome) -> None:
    """Keep a successful extraction for `cached_outcome` in later runs."""
    if cache is not None and key and not isinstance(outcome, str):
        document, warning = outcome
        cache.set(EXTRACT_NAMESPACE, key, {"document": codec.encode(document), "warning": warning}, cache.max_age)


def extraction_key(path: Path, want_text: bool, markdown: MarkdownSetup | None = None) -> str:
    """Digest of what the extraction depends on (the MkDocs Markdown setup too), or "" when
    the file cannot be read."""
    try:
        data = read_bytes(path)
    except Unreadable:
        return ""
    if not data:
        return ""
    digest = hashlib.blake2b(data, digest_size=20)
    setup = _render_fingerprint(markdown) if markdown is not None else ""
    digest.update(f"\0{display_path(path)}\0{want_text}\0{setup}\0{_extractor_fingerprint()}".encode("utf-8", "surrogatepass"))
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


def _render_fingerprint(markdown: MarkdownSetup) -> str:
    from ..mkdocs.extensions.setup import fingerprint

    return fingerprint(markdown)
