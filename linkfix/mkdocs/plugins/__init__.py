"""The plugins of the family's builds, one module each (see `base` for the protocol).

`configured(project)` makes the plugins a project's config names, in its order, from the
modules of this package; a name with no module here is a plugin linkfix does not emulate.
Modules are imported only for the plugins a project configures (a run pays for its own).
Some modules here carry a plugin's knowledge that its callers ask for directly (blog, i18n,
redirects, macros, mkdocstrings, markdown-exec, autorefs: what they do to pages and URLs).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config.project import MkDocsProject
    from .base import Plugin


def module_name(plugin: str) -> str:
    """The module of a plugin as a config names it: `material/search` is `search`, `literate-nav`
    is `literate_nav`, `mkdocs-simple-hooks` is `mkdocs_simple_hooks`."""
    return plugin.removeprefix("material/").split("/")[-1].replace("-", "_").replace(".", "_").lower()


@functools.lru_cache(maxsize=4)
def _modules(path: tuple[str, ...]) -> frozenset[str]:
    return frozenset(info.name for info in pkgutil.iter_modules(list(path)))


def plugin_class(plugin: str) -> type[Plugin] | None:
    """The Plugin class of `plugin` (as a config names it), or None when linkfix has none."""
    name = module_name(plugin)
    if name not in _modules(tuple(__path__)) or name == "base":
        return None
    module = importlib.import_module(f"{__name__}.{name}")
    found = getattr(module, "PLUGIN", None)
    return found if isinstance(found, type) else None


def configured(project: MkDocsProject) -> list[Plugin]:
    """The plugins the project's config names (enabled ones; MkDocs' default, search, when it
    names none), each made with its settings."""
    plugins = project.plugin_configs if project.plugins else {"search": {}}
    made = []
    for name, settings in plugins.items():
        kind = plugin_class(name)
        if kind is not None:
            made.append(kind(project, name, settings))
    return made
