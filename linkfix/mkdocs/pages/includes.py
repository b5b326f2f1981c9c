"""Links a page renders from other files (`pymdownx.snippets`, `{!file!}` of mdx_include and
markdown-include): whose are they?

A link that `--8<-- "file.md"` or `{!file.md!}` brings into a page is written in `file.md`: it is reported
there, at its exact place, so that `fix` edits the file that holds it (and it is checked from
the page that renders it, as the site shows it). When the included file cannot be read here
(outside the project, a URL, gone), the link is reported at the include line with an empty
span: the fixer leaves such a link alone.

A link is checked only when its whole target is written in one file (`written_in_one`). A
target made of an included file's text spliced into a tag the page writes (`<a href='http://x/?q=`,
then `--8<-- "secrets:7:7"`, then `'>`) is never fetched, and never shown: it is reported as
unverified (SPLICED), with SPLICED_TARGET for its target, at the page's first include.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ...files.read import Unreadable, display_path, read_text
from ...model import Link, LinkKind, Span
from ..extensions.include_ext import DIRECTIVE
from ..extensions.setup import INCLUDE_NAMES, MarkdownSetup
from ..extensions.snippet_reads import SNIPPETS, allowed_bases, read_refusal, snippets_name
from .candidates import candidates, key_of, search

MAX_DEPTH = 4  # includes within includes followed
#: What a spliced link is reported as, instead of its target (which may hold what was included).
SPLICED_TARGET = "[target made of included text]"
SPLICED = ("its target is made of an included file's text spliced into this page's: not fetched, and not shown "
           "(a link is checked only when its whole target is written in one file)")

# pymdownx.snippets' own syntax: `--8<-- "file"` on a line, or a block of file names between
# two `--8<--` lines; `;--8<--` is escaped (not an include).
_INLINE = re.compile(r"""^[ \t]*(?P<escape>;*)-{1,}8<-{1,}[ \t]+(?P<name>"(?:\\"|[^"\n\r])+?"|'(?:\\'|[^'\n\r])+?')[ \t]*\r?$""", re.MULTILINE)
_BLOCK = re.compile(r"^[ \t]*(?P<escape>;*)-{1,}8<-{1,}[ \t]*\r?$", re.MULTILINE)
_LINES_OR_SECTION = re.compile(r"(?i)(?::-?[0-9]*){1,2}(?:,-?[0-9]*(?::-?[0-9]*)?)*$|:[a-z][-_0-9a-z]*$")


@dataclass(frozen=True, slots=True)
class Include:
    start: int  # where the directive is written in the page
    name: str  # the file name as written (line ranges and sections removed)


def includes(text: str) -> list[Include]:
    """The include directives of `text` (snippets', and `{!file!}`), in order."""
    found = [Include(_marker_start(m), _bare(m.group("name")[1:-1])) for m in _INLINE.finditer(text) if not m.group("escape")]
    if "{!" in text:
        found += [Include(m.start(), m.group("path")) for m in DIRECTIVE.finditer(text) if not m.group("escape")]
    markers = [m for m in _BLOCK.finditer(text) if not m.group("escape")]
    for opening, closing in zip(markers[::2], markers[1::2]):
        line_start = opening.end() + 1
        for line in text[line_start : closing.start()].splitlines(keepends=True):
            name = line.strip()
            if name and not name.startswith(";"):
                found.append(Include(line_start + len(line) - len(line.lstrip()), _bare(name)))
            line_start += len(line)
    return sorted(found, key=lambda include: include.start)


def _marker_start(match: re.Match[str]) -> int:
    return match.start() + len(match.group()) - len(match.group().lstrip(" \t"))


def _bare(name: str) -> str:
    return _LINES_OR_SECTION.sub("", name.replace('\\"', '"').replace("\\'", "'"))


class IncludedFiles:
    """Reads the files a page includes (once each), from the setup's snippet base paths and the
    `{!file!}` extensions' base path, as the renderer may (snippet_reads: inside the project,
    never a VCS directory)."""

    def __init__(self, setup: MarkdownSetup) -> None:
        configs = setup.configs()
        snippets = configs.get(snippets_name(setup.extensions) or SNIPPETS, {})
        bases = snippets.get("base_path", ["."]) if isinstance(snippets, dict) else ["."]
        bases = [bases] if isinstance(bases, str) else list(bases) if isinstance(bases, list) else ["."]
        for name in INCLUDE_NAMES:
            given = configs.get(name)
            if name in setup.extensions:
                bases.append(given.get("base_path", ".") if isinstance(given, dict) and isinstance(given.get("base_path"), str) else ".")
        self.project = setup.project_dir
        self.bases = [base for base, refusal in allowed_bases(list(dict.fromkeys(bases)), setup.config_dir, setup.project_dir,
                                                              build_dir=setup.build_dir) if refusal is None]
        self.texts: dict[str, tuple[Path, str] | None] = {}

    def read(self, name: str) -> tuple[Path, str] | None:
        if name not in self.texts:
            self.texts[name] = self._read(name)
        return self.texts[name]

    def _read(self, name: str) -> tuple[Path, str] | None:
        if "://" in name:
            return None
        for base in self.bases:
            path = base if base.is_file() and base.name == name else base / name
            if read_refusal(path, self.project) is not None:
                continue
            try:
                return path, read_text(path)[0]
            except Unreadable:
                return None
        return None


    def written_in_one(self, target: str, page: str) -> bool:
        """Whether `target` is written whole in the page's text or in one included file's text
        (of those read so far: a file not read cannot vouch for anything)."""
        target = target.strip()
        return target in page or any(read is not None and target in read[1] for read in self.texts.values())


def attribute(wanted: dict[int, Link], text: str, files: IncludedFiles, depth: int = 0) -> tuple[dict[int, Link], int | None]:
    """The places (in included files) of the `wanted` rendered links (index -> rendered link),
    and where the page's first include directive is (None: the page includes nothing)."""
    placed: dict[int, Link] = {}
    directives = includes(text)
    if not directives:
        return placed, None
    for include in directives:
        if len(placed) == len(wanted) or depth >= MAX_DEPTH:
            break
        read = files.read(include.name)
        if read is None:
            continue
        path, included = read
        shown = display_path(path)
        free: dict[str, list[Link]] = {}
        for candidate in candidates(included, shown):
            free.setdefault(key_of(candidate), []).append(candidate)
        taken: set[tuple[int, int]] = set()
        for index, link in wanted.items():
            places = free.get(link.url.strip())
            if index in placed:
                continue
            if places:
                placed[index] = places.pop(0)
                taken.add((placed[index].span.start, placed[index].span.end))
                continue
            # Written where no CommonMark reader sees a link (inside `<nav markdown>`, ...):
            # found by its text, as on the page itself.
            spot = search(included, link.url, taken=taken)
            if spot is not None and not (link.url.startswith("mailto:") and not included.startswith("mailto:", spot.start)):
                if spot.kind is not LinkKind.REFERENCE:  # a definition serves every use of its label
                    taken.add((spot.start, spot.end))
                placed[index] = Link(url=included[spot.start : spot.end], kind=spot.kind, span=span_at(included, shown, spot.start, spot.end),
                                     page=link.page, tag=link.tag if spot.kind is LinkKind.HTML else "")
        rest = {index: link for index, link in wanted.items() if index not in placed}
        if rest:
            deeper, _ = attribute(rest, included, files, depth + 1)
            placed.update(deeper)
    return placed, directives[0].start


def span_at(text: str, path: str, start: int, end: int) -> Span:
    """The Span of `text[start:end]` in the file `path`."""
    line_start = text.rfind("\n", 0, start) + 1
    return Span(path=path, line=text.count("\n", 0, start) + 1, column=start - line_start + 1, start=start, end=end)
