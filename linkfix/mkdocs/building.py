"""What a family build makes that its docs sources do not show, as data: the files it writes
(`BuildMade.files`), the docs it adds (`docs`), what it may make that a source check cannot list
(`maybe`, each a `MaybeMade` naming what makes it and how to check it), and the project hooks
that rewrite pages (`rewriters`). `made.build_made` fills it in from the theme, the plugins,
the project's code and its build steps.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .project_code.page_conditions import PageFacts
from .project_code.reading import PythonReading, names_match, paths_match
from .project_code.substitutions import Made, first_change, make_known

#: How to make what the project's own code does checkable (the same trust as `mkdocs build`).
TRUST_HINT = ("to check it, run linkfix with --trust-project-code (runs the project's hooks and scripts as `mkdocs build` "
              "does: only for a repository you trust) or check with the linkfix MkDocs plugin")



# An HTML rewrite's pattern is looked for more loosely than it matches: this check's HTML is not
# MkDocs' to the byte (no permalinks, plain code blocks).
_LOOSE = re.IGNORECASE | re.MULTILINE | re.DOTALL



STATIC_SUFFIXES = frozenset({".css", ".js", ".mjs", ".map", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".webp", ".avif",
                             ".woff", ".woff2", ".ttf", ".otf", ".eot"})



def install_hint(distribution: str) -> str:
    return f"to check it, install {distribution} where linkfix runs (pre-commit: `additional_dependencies: [{distribution}]`)"



@dataclass(frozen=True, slots=True, kw_only=True)
class MaybeMade:
    """Files the build may make that this check cannot list."""

    by: str  # what makes them, as a reader names it ("hook docs/hooks.py", "the theme 'terminal'")
    why: str  # why a source check cannot know ("is not run by a source check", "is not installed here")
    hint: str  # how to make it checkable
    names: tuple[str, ...] = ()  # regular expressions of the paths it may make (project_code.reading.names_match)
    paths: tuple[str, ...] = ()  # or: regular expressions of the whole paths it may make (project_code.reading.paths_match)
    static_prefixes: tuple[str, ...] = ()  # or: the directories of a theme's static files
    any_asset: bool = False  # or: any stylesheet, script, image or font

    def matches(self, path: str) -> bool:
        """Whether the site- or docs-relative `path` may be one of these files."""
        path = path.lstrip("/")
        if self.any_asset and posixpath.splitext(path)[1].lower() in STATIC_SUFFIXES:
            return True
        if any(path.startswith(prefix) for prefix in self.static_prefixes):
            return True
        return names_match(self.names, path) or paths_match(self.paths, path)

    def sentence(self) -> str:
        return f"{self.by} may make it when the site is built, and {self.why}; {self.hint}"



@dataclass(frozen=True, slots=True, kw_only=True)
class PageRewriter:
    """A project hook that rewrites pages (its Markdown or HTML) when the site is built."""

    name: str  # the hook file as the config names it
    reading: PythonReading

    def touches(self, markdown: str, html: str = "") -> bool:
        reading = self.reading
        if reading.error or reading.patterns is None:
            return True
        markdown_events = reading.rewrites & {"on_page_read_source", "on_page_markdown"}
        html_events = reading.rewrites & {"on_page_content", "on_post_page"}
        return bool(markdown_events and reading.touches(markdown)) or bool(html_events and reading.touches(html or markdown))

    def known_markdown(self, markdown: str, facts: PageFacts | None) -> Made | None:
        """The page's Markdown with what its `on_page_markdown` surely does to it made here
        (its substitutions whose replacement is known, on this page), and what is left; None
        when that event is not proven to be substitutions only."""
        found = self.reading.substituted("on_page_markdown")
        return make_known(found, markdown, facts) if found is not None else None

    def changes_from(self, markdown: str, html: str = "", facts: PageFacts | None = None, *, made_here: bool = False) -> int | None:
        """Where in the page's Markdown (as `on_page_markdown` gets it) the hook may first change
        the page: None when it cannot touch it, 0 when it may change any part. Only an
        `on_page_markdown` that substitutes literal patterns is placed (its first match, on the
        page `facts`; with `made_here`, after what `known_markdown` made, placed back on the
        source); a rewrite of the HTML may change any part of it (what it puts in is placed in HTML this
        check does not render as MkDocs does: a comment it opens or a `<base>` it adds reaches
        links before it too)."""
        reading, starts = self.reading, []
        for event in sorted(reading.rewrites) if not reading.error else ["?"]:
            found = reading.substituted(event)
            if event == "on_page_markdown" and found is not None:
                made = make_known(found, markdown, facts) if made_here else Made(text=markdown, left=found)
                start = first_change(made.left, made.text, facts)
                start = made.source_offset(start) if start is not None else None
            elif event == "on_page_content" and found is not None:
                start = 0 if any(s.first(text, _LOOSE) is not None for s in found for text in (html, markdown)) else None
            else:
                text = markdown if event in ("on_page_read_source", "on_page_markdown") else html or markdown
                start = 0 if reading.error or reading.touches(text) else None
            if start is not None:
                starts.append(start)
        return min(starts, default=None)

    @property
    def makes_markdown_here(self) -> bool:
        """Whether what it surely does to a page's Markdown may be made here (see `known_markdown`):
        it reads nothing of the page before (`on_page_read_source`)."""
        return not self.reading.error and "on_page_read_source" not in self.reading.rewrites \
            and self.reading.substituted("on_page_markdown") is not None


def page_facts(path: str, docs_dir: str, meta: dict[str, Any] | None = None) -> PageFacts | None:
    """The page `path` (a file; its front matter `meta`) as its hooks' conditions see it; None
    when it is not under `docs_dir`."""
    import os

    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(docs_dir)).replace(os.sep, "/")
    if relative == ".." or relative.startswith("../"):
        return None
    plain = tuple(sorted((str(key), value) for key, value in (meta or {}).items()
                         if isinstance(value, (str, int, float, bool)) or value is None))
    return PageFacts(src_uri=relative, meta=plain)



@dataclass(slots=True, kw_only=True)
class BuildMade:
    files: dict[str, str] = field(default_factory=dict)  # site-relative path -> what makes it
    # The theme's static files among them: MkDocs adds them to the build's files before pages
    # render (Files.add_files_from_theme), so a Markdown link to one is rewritten as to a docs file.
    theme: set[str] = field(default_factory=set)
    docs: dict[str, str] = field(default_factory=dict)  # docs-relative files a plugin adds to the docs -> what adds it
    maybe: list[MaybeMade] = field(default_factory=list)
    rewriters: list[PageRewriter] = field(default_factory=list)

    def may_make(self, *paths: str) -> MaybeMade | None:
        """What may make one of `paths` (site- or docs-relative) at build time, if anything."""
        for maybe in self.maybe:
            if any(maybe.matches(path) for path in paths if path):
                return maybe
        return None


def shown_path(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
