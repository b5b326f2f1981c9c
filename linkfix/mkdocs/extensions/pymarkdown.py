"""Python-Markdown's `Markdown`, finding extensions by name through `linkfix.files.installed`.

Python-Markdown looks every extension name up among the `markdown.extensions` entry points
first, through `importlib.metadata` (its import and a walk of every installed distribution:
~25 ms of a one-page pre-commit run). `build_extension` here does what Python-Markdown's does,
step for step and with its messages, with the entry points read by `files.installed`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...files.installed import entry_points

if TYPE_CHECKING:
    import markdown


def python_markdown(**options: Any) -> markdown.Markdown:
    """`markdown.Markdown(**options)` (ImportError where Python-Markdown is not installed)."""
    return _markdown_class()(**options)


@functools.cache
def _markdown_class() -> type[markdown.Markdown]:
    import markdown

    class Markdown(markdown.Markdown):
        def build_extension(self, ext_name: str, configs: Mapping[str, Any]) -> Any:
            return build_extension(ext_name, configs)

    return Markdown


def build_extension(name: str, configs: Mapping[str, Any]) -> Any:
    """The extension `name` made with `configs`: an installed entry point of that name (the
    first), else `module:Class`, else `module`'s makeExtension (markdown.Markdown.build_extension)."""
    configs = dict(configs)
    point = entry_points("markdown.extensions").get(name)
    if point is not None:
        factory = point.load()
        if not callable(factory):
            raise TypeError(f"the entry point of markdown extension '{name}' is not callable")
        return factory(**configs)
    module_name, _, class_name = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        exc.args = (f'Failed loading extension "{module_name}".', *exc.args[1:])
        raise
    if class_name:
        return getattr(module, class_name)(**configs)
    try:
        return module.makeExtension(**configs)
    except AttributeError as exc:
        exc.args = (f"Failed to initiate extension '{module_name}': {exc.args[0]}", *exc.args[1:])
        raise
