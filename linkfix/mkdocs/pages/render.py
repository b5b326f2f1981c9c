"""Render one page the way MkDocs does: its meta-data stripped, Python-Markdown with the
project's extensions, a fresh `Markdown` per page (extensions keep per-page state).

An extension that raises on a page is found (each one left out in turn, once), said once, and
left out from then on; a page that still cannot be rendered is None (its caller reads it with
the CommonMark reader instead). Pages longer than RENDER_LIMIT characters are not rendered:
Python-Markdown has no bound on its time for them.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..building import PageRewriter, page_facts
from ..config.dialect import MKDOCS_BUILTIN_EXTENSIONS
from ..extensions.pymarkdown import python_markdown
from ..extensions.setup import Loaded, MarkdownSetup, loaded
from ..extensions.snippet_reads import guard_snippets
from .meta import get_data

if TYPE_CHECKING:
    import markdown

    from ..project_code.hook_runner import HookRunner

log = logging.getLogger(__name__)

RENDER_LIMIT = 5_000_000  # characters


@dataclass(frozen=True, slots=True, kw_only=True)
class Body:
    """A page's source as MkDocs renders it: without its meta-data (front matter)."""

    markdown: str
    meta: dict[str, Any]


def split_meta(text: str) -> Body:
    """MkDocs' own reading (`meta.get_data`): YAML front matter or MultiMarkdown meta-data
    lines are not part of the page. MkDocs reads files with universal newlines."""
    normal = text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
    markdown, meta = get_data(normal)
    return Body(markdown=markdown, meta=meta if isinstance(meta, dict) else {})


class Renderer:
    """Renders pages of one project (one `MarkdownSetup`); with `run_hooks_of`, the project's
    hooks run on each page as in `mkdocs build` (`hooks`)."""

    def __init__(self, loaded: Loaded, project_dir: str, run_hooks_of: str = "", *,
                 rewriters: tuple[PageRewriter, ...] = (), docs_dir: str = ".") -> None:
        self.extensions = list(loaded.extensions)
        self.configs = loaded.configs
        self.unsure = loaded.unsure  # left out here, may make ids: see mkdocs.pages.unknowns
        self.unsure_reach = loaded.unsure_reach  # where each may act (extensions.reach)
        self.unsure_packages = loaded.unsure_packages
        self.project_dir = project_dir
        self.refused_reads: list[str] = []  # includes the last `render` did not read (see snippet_reads)
        self.hooks = _hook_runner(run_hooks_of) if run_hooks_of else None
        self.hooks_failed: set[str] = set()  # pages on which a hook failed: read as their source shows them
        # The one hook that rewrites pages, when what it surely does to them can be made here
        # (substitutions whose replacement its source spells: building.PageRewriter.known_markdown).
        self.made_here = rewriters[0] if len(rewriters) == 1 and rewriters[0].makes_markdown_here else None
        self.docs_dir = docs_dir

    def hooks_ran(self, path: str) -> bool:
        """Whether the project's hooks ran on the page `path` (as the build runs them)."""
        return self.hooks is not None and path not in self.hooks_failed

    def _markdown(self, extensions: list[str]) -> markdown.Markdown:
        configs = {name: config for name, config in self.configs.items() if name in extensions}
        md = python_markdown(extensions=extensions, extension_configs=configs)
        guard_snippets(md, self.project_dir, self.refused_reads)
        return md

    def render(self, markdown: str, path: str, meta: dict[str, Any] | None = None) -> str | None:
        """The page's HTML as Python-Markdown makes it, or None (said why) when it cannot be made."""
        self.refused_reads = []
        if len(markdown) > RENDER_LIMIT:
            log.warning("%s: longer than %d characters: read with the CommonMark reader", path, RENDER_LIMIT)
            return None
        hooked = self._hook("markdown", markdown, path) if self.hooks is not None else self._made_here(markdown, path, meta)
        try:
            html: str | None = self._markdown(self.extensions).convert(hooked)
        except Exception as exc:  # an extension's failure, of any type
            html = self._without_failing_extension(hooked, path, exc)
        return self._hook("html", html, path) if html is not None else None

    def _made_here(self, markdown: str, path: str, meta: dict[str, Any] | None) -> str:
        if self.made_here is None:
            return markdown
        made = self.made_here.known_markdown(markdown, page_facts(path, self.docs_dir, meta))
        return made.text if made is not None else markdown

    def _hook(self, stage: str, text: str, path: str) -> str:
        if self.hooks is None or path in self.hooks_failed:
            return text
        from ..project_code.hook_runner import HookFailed

        try:
            return self.hooks.markdown(text, path) if stage == "markdown" else self.hooks.html(text, path)
        except HookFailed:
            self.hooks_failed.add(path)
            return text

    def _without_failing_extension(self, markdown: str, path: str, error: Exception) -> str | None:
        for name in [n for n in self.extensions if n not in MKDOCS_BUILTIN_EXTENSIONS]:
            others = [n for n in self.extensions if n != name]
            try:
                html = self._markdown(others).convert(markdown)
            except Exception:
                continue
            log.warning("markdown extension '%s' fails on %s (%s: %s): left out from here on, so links and ids "
                        "it would render are not seen", name, path, type(error).__name__, error)
            self.extensions = others
            return html
        log.warning("%s: Python-Markdown cannot render it (%s: %s): read with the CommonMark reader",
                    path, type(error).__name__, error)
        return None


def _hook_runner(config_file: str) -> HookRunner | None:
    """The project's hooks, ready to run; None (said why) when MkDocs cannot load its config."""
    from ..project_code.hook_runner import HookRunner

    try:
        return HookRunner(config_file)
    except Exception as exc:  # loading the config runs the hooks' own import: any failure
        log.warning("cannot run the project's hooks (%s: %s): what they change is unverified, as without --trust-project-code",
                    type(exc).__name__, exc)
        return None


@functools.lru_cache(maxsize=4)
def renderer_for(setup: MarkdownSetup) -> Renderer | None:
    """One renderer per setup and process; None when Python-Markdown cannot be used."""
    ready = loaded(setup)
    return Renderer(ready, setup.project_dir, setup.run_hooks_of, rewriters=setup.rewriters, docs_dir=setup.docs_dir) \
        if ready is not None else None
