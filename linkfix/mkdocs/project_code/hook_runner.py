"""The project's hooks, run as `mkdocs build` runs them: only when the person running linkfix
trusts the project's code (--trust-project-code; the same trust as `mkdocs build`).

MkDocs loads the config (which imports each `hooks:` file, its directory on `sys.path` while it
loads), and for each page calls `on_page_read_source`, `on_page_markdown` before rendering and
`on_page_content` after, with the page, the config and the files of the build. Here the same
objects are made by MkDocs itself (`load_config`, `get_files`, `Page`), and only the hooks run
(with the functions mkdocs-simple-hooks would call, imported as it imports them):
plugins are not (their pages and files are what `mkdocs_made` says). A config whose plugins or
theme are not installed here is loaded without them, so that the hooks still run.

A hook that fails on a page is said once; that page is then read as the source shows it and
what the hook would have changed is unverified, as without the trust.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from ...errors import InputError
from .run import load_config

log = logging.getLogger(__name__)

MARKDOWN_EVENTS = ("on_page_markdown",)
HTML_EVENTS = ("on_page_content",)


def _simple_hooks(config_file: Path) -> list[tuple[str, Any]]:
    """The functions mkdocs-simple-hooks calls (a plugin, so not in the loaded config's `hooks`),
    each as a hook holding that one event: imported as the plugin imports them, from the
    config's directory (where `mkdocs build` runs)."""
    import importlib
    import sys
    from types import SimpleNamespace

    from ..config.load import read_config
    from .hooks import simple_hook_targets

    targets = simple_hook_targets(read_config(config_file).plugin_configs)
    if not targets:
        return []
    sys.path.insert(0, str(config_file.resolve().parent))
    try:
        return [(f"{module}:{function} (mkdocs-simple-hooks)", SimpleNamespace(**{event: getattr(importlib.import_module(module), function)}))
                for event, module, function in targets]
    finally:
        sys.path.pop(0)


class HookFailed(InputError):
    """A hook raised on a page: the page is read without its hooks."""


class HookRunner:
    """The hooks of one config file, with the MkDocs objects they are called with."""

    def __init__(self, config_file: str) -> None:
        from mkdocs.structure.files import get_files

        self.config = load_config(config_file)
        self.hooks: list[tuple[str, Any]] = [*self.config["hooks"].items(), *_simple_hooks(Path(config_file))]
        for _, module in self.hooks:
            on_config = getattr(module, "on_config", None)
            if callable(on_config):
                self.config = on_config(self.config) or self.config
        self.files = get_files(self.config)
        self.docs_dir = Path(self.config["docs_dir"]).resolve()
        self._pages: dict[str, Any] = {}
        self._said: set[str] = set()

    def markdown(self, markdown: str, path: str) -> str:
        """The page's Markdown after the hooks' `on_page_markdown`; HookFailed when one raises."""
        return self._run(MARKDOWN_EVENTS, markdown, path)

    def html(self, html: str, path: str) -> str:
        """The page's HTML after the hooks' `on_page_content`; HookFailed when one raises."""
        return self._run(HTML_EVENTS, html, path)

    def _run(self, events: tuple[str, ...], text: str, path: str) -> str:
        page = self._page(path)
        if page is None:
            return text
        for name, module in self.hooks:
            for event in events:
                method = getattr(module, event, None)
                if not callable(method):
                    continue
                try:
                    result = method(text, page=page, config=self.config, files=self.files)
                except Exception as exc:  # the project's own code: any failure
                    if name not in self._said:
                        self._said.add(name)
                        log.warning("hook %s fails on %s (%s: %s): what it changes there is unverified", name, path, type(exc).__name__, exc)
                    raise HookFailed(name) from exc
                if result is not None:
                    text = result
        return text

    def _page(self, path: str) -> Any:
        """The MkDocs Page of the docs file `path` (as displayed), made once."""
        from mkdocs.structure.pages import Page

        try:
            src_uri = Path(os.path.abspath(path)).relative_to(self.docs_dir).as_posix()
        except ValueError:
            return None
        if src_uri not in self._pages:
            file = self.files.get_file_from_path(src_uri)
            self._pages[src_uri] = Page(None, file, self.config) if file is not None else None
            if file is not None:
                self._pages[src_uri].read_source(self.config)
        return self._pages[src_uri]
