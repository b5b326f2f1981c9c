"""The project's hooks (`hooks:`, and the modules mkdocs-simple-hooks runs), read without
running them: which pages they may rewrite (`PageRewriter`), which files they may write
(`MaybeMade`). Read once per file version: the check and the extraction both need it.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Any

from ...files.containment import project_of
from ...files.read import Unreadable
from ..building import TRUST_HINT, BuildMade, MaybeMade, PageRewriter, shown_path
from ..config.project import MkDocsProject
from .reading import PythonReading, parse_python, read_python

log = logging.getLogger(__name__)


def markdown_configuring_hooks(mk: MkDocsProject) -> list[str]:
    """The project's hooks whose `on_config` may change the Markdown settings (reading.configures_markdown)."""
    return [rewriter.name for rewriter in add_hooks(mk, BuildMade(), every=True)
            if rewriter.reading.error or rewriter.reading.configures_markdown]


def hook_rewriters(mk: MkDocsProject) -> list[PageRewriter]:
    """The project's hooks that may rewrite pages when the site is built."""
    return [rewriter for rewriter in add_hooks(mk, BuildMade()) if rewriter.reading.error or rewriter.reading.rewrites]



@functools.lru_cache(maxsize=32)
def _read_hook(path: Path, project: Path, name: str, stamp: tuple[int, int], runs_as: tuple[tuple[str, str], ...] = ()) -> PythonReading:
    """A hook's reading, once per file version (the check and the extraction both need it)."""
    reading = read_python(path, project, runs_as)
    if reading.error:
        log.warning("hook %s %s: every page and file it could touch is unverified", name, reading.error)
    return reading



def _stamp(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except OSError:
        return (0, 0)
    return (stat.st_mtime_ns, stat.st_size)



def add_hooks(mk: MkDocsProject, made: BuildMade, *, every: bool = False) -> list[PageRewriter]:
    """The hooks' rewriters and the files they may write, added to `made` (and the rewriters
    returned; with `every`, every hook's reading is returned as one)."""
    base, project = mk.config_file.parent, project_of(mk.config_file)
    hooks: list[tuple[str, Path, str | tuple[tuple[str, str], ...]]] = [(shown_path(path, base), path, ()) for path in mk.hooks]
    hooks += [(f"{shown_path(path, base)} (mkdocs-simple-hooks)", path, how) for path, how in _simple_hooks(mk, project)]
    for name, path, how in hooks:
        reading = PythonReading(path=path, error=how) if isinstance(how, str) else _read_hook(path, project, name, _stamp(path), how)
        if reading.error or reading.rewrites or every:
            made.rewriters.append(PageRewriter(name=name, reading=reading))
        if reading.error or reading.makes_files:
            made.maybe.append(MaybeMade(by=f"the hook {name}", why="a source check does not run the project's code", hint=TRUST_HINT,
                                        names=reading.names, any_asset=bool(reading.error)))
    return made.rewriters



def simple_hook_targets(plugin_configs: dict[str, dict[str, Any]]) -> list[tuple[str, str, str]]:
    """What mkdocs-simple-hooks runs: (event, module, function) for each entry of its `hooks:`
    (`on_page_markdown: "docs.plugins:on_page_markdown"`), the module imported from where
    `mkdocs build` runs (the config's directory)."""
    settings = next((s for n, s in plugin_configs.items() if n.split("/")[-1] in ("mkdocs-simple-hooks", "simple-hooks")), None)
    events = settings.get("hooks") if isinstance(settings, dict) else None
    if not isinstance(events, dict):
        return []
    return [(str(event), *str(target).partition(":")[::2]) for event, target in events.items()]



def _simple_hooks(mk: MkDocsProject, project: Path) -> list[tuple[Path, str | tuple[tuple[str, str], ...]]]:
    """The module files mkdocs-simple-hooks runs, each with the (function, event) pairs of the
    functions it runs on an event they are not named as (read as if so named), or why it is
    not read: a function run on two events, or named as an event the module has another
    function for."""
    base = mk.config_file.parent.resolve()
    modules: dict[Path, dict[str, str]] = {}
    unread: dict[Path, str] = {}
    for event, module, function in simple_hook_targets(mk.plugin_configs):
        parts = module.split(".")
        path = base.joinpath(*parts).with_suffix(".py")
        if not path.is_file() and base.joinpath(*parts, "__init__.py").is_file():
            path = base.joinpath(*parts, "__init__.py")
        renames = modules.setdefault(path, {})
        if function != event:
            if renames.get(function, event) != event or not event.startswith("on_"):
                unread.setdefault(path, f"runs {module}:{function} on {event}, which is not read")
            renames[function] = event
    for path, renames in modules.items():
        if not renames or path in unread:
            continue
        defined = _top_level_functions(path, project)
        if not renames.keys() <= defined or set(renames.values()) & defined:
            # imported or made at run time (read as nothing), or beside a function the reading would confuse it with
            unread[path] = "runs a function that is not one of its own top-level functions, or on an event another of them is named as, which is not read"
    return [(path, unread.get(path) or tuple(sorted(renames.items()))) for path, renames in modules.items()]



def _top_level_functions(path: Path, project: Path) -> set[str]:
    """The names of the module's top-level `def`s (none when it cannot be read)."""
    import ast

    try:
        tree = parse_python(path, project)
    except Unreadable:
        return set()
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
