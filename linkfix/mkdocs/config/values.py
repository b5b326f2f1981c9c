"""The values a family config names that are not plain data: Python objects (`!!python/name:`,
`!!python/object/apply:`, or Zensical's dotted strings), environment variables (`!ENV`) and
`!relative` paths. Read as these values; imported, called or resolved only by the renderer, by
its rules (linkfix.mkdocs.extensions.imports), never while the config is read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class PythonName(str):
    """A `!!python/name:module.attr` config value: the dotted name, imported only by the
    renderer (never while reading the config)."""


@dataclass(frozen=True, slots=True)
class PythonCall:
    """A `!!python/object/apply:module.attr` config value (`slugify: !!python/object/apply:
    pymdownx.slugs.slugify {kwds: {case: lower}}`): called by the renderer, as MkDocs' loader
    calls it when it reads the config; never while linkfix reads it."""

    name: str
    args: tuple[Any, ...] = ()
    kwds: dict[str, Any] = field(default_factory=dict)


class EnvValue(str):
    """A `!ENV` config value read from the environment; `default` is what the file gives when
    the variable is not set (a source check renders with that: see mkdocs.extensions.setup)."""

    default: Any

    def __new__(cls, value: str, default: Any) -> EnvValue:
        made = super().__new__(cls, value)
        made.default = default
        return made


class RelativePath(str):
    """A `!relative` config value (`$config_dir`, `$docs_dir`, or '' for the page's directory)."""
