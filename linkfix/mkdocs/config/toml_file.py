"""Zensical's `zensical.toml`, read into the shape a `mkdocs.yml` has, so that one model serves both.

Zensical reads the `[project]` table when there is one (else the whole file) with the same keys
as mkdocs.yml, spelled the TOML way (zensical/config.py of 0.0.73):
- `markdown_extensions` and `plugins` are tables (name -> options) or lists as in YAML; in a
  table a `pymdownx` key holds the pymdownx extensions one level deeper
  (`[project.markdown_extensions.pymdownx.tabbed]` is `pymdownx.tabbed`), `pymdownx.blocks` one
  more, and the same for `zensical` (`zensical.extensions.*`);
- callables are dotted strings (TOML has no `!!python/name:`): `emoji_index`, `emoji_generator`,
  a custom fence's `format` and `validator`, a custom inline's `format`; a table `{object = ...,
  kwds = {...}}` is a call (the slug factories of `slugify`, where only that form is read).
They become the PythonName and PythonCall values mkdocs.yml's loader makes, imported (or not)
by the same rules.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...files.read import Unreadable, read_bytes
from .values import PythonCall, PythonName

MAX_BYTES = 4 * 1024 * 1024  # as mkdocs.yml (files.yamlfile)
_SLUG_FACTORY = "pymdownx.slugs.slugify"
_SLUGIFY_OPTIONS = {("toc", "slugify"), ("pymdownx.tabbed", "slugify"), ("pymdownx.blocks.tab", "slugify")}
_NAMED_OPTIONS = {("pymdownx.emoji", "emoji_index"), ("pymdownx.emoji", "emoji_generator")}
_ENTRY_CALLABLES = {("pymdownx.superfences", "custom_fences"): ("format", "validator"),
                    ("pymdownx.inlinehilite", "custom_inline"): ("format",)}


def is_zensical_toml(path: Path) -> bool:
    """A TOML config of the family: named zensical.toml, or a .toml whose `[project]` (or top)
    table holds `site_name` (a pyproject.toml's `[project]` has a `name`, no `site_name`)."""
    if path.name == "zensical.toml":
        return True
    if path.suffix.lower() != ".toml":
        return False
    try:
        return "site_name" in read_toml_config(path)
    except InputError:
        return False


def read_toml_config(path: Path) -> dict[str, Any]:
    """The config of a zensical.toml as mkdocs.yml's data would be, or InputError naming the file."""
    try:
        text = read_bytes(path, limit=MAX_BYTES).decode("utf-8")
    except Unreadable as exc:
        raise InputError(f"{path}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from exc
    except RecursionError as exc:  # tables or arrays nested thousands deep
        raise InputError(f"{path}: nested too deeply to be a config") from exc
    config = data.get("project", data) if isinstance(data.get("project", data), dict) else {}
    return {**config, **_spelled_as_yaml(config)}


def _spelled_as_yaml(config: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "markdown_extensions" in config:
        out["markdown_extensions"] = [{name: _callables(name, options)} for name, options in _extensions(config["markdown_extensions"])]
    if isinstance(config.get("plugins"), dict):
        out["plugins"] = [{name: options if isinstance(options, dict) else {}} for name, options in config["plugins"].items()]
    return out


def _extensions(value: Any) -> list[tuple[str, Any]]:
    """(name, options) of a `markdown_extensions` table or list, `pymdownx`/`zensical` hoisted."""
    if isinstance(value, list):
        entries: list[tuple[str, Any]] = []
        for item in value:
            if isinstance(item, str):
                entries.append((item, {}))
            elif isinstance(item, dict):
                entries += [(str(name), options) for name, options in item.items()]
        return entries
    if not isinstance(value, dict):
        return []
    found: list[tuple[str, Any]] = []
    for name, options in value.items():
        if name in ("pymdownx", "zensical") and isinstance(options, dict):
            for inner, inner_options in options.items():
                if inner in ("blocks", "extensions") and isinstance(inner_options, dict):
                    found += [(f"{name}.{inner}.{leaf}", leaf_options) for leaf, leaf_options in inner_options.items()]
                else:
                    found.append((f"{name}.{inner}", inner_options))
        else:
            found.append((str(name), options))
    return found


def _callables(extension: str, options: Any) -> Any:
    """An extension's options with its callables as PythonName / PythonCall."""
    if not isinstance(options, dict):
        return {}
    out = dict(options)
    for key, value in options.items():
        if (extension, key) in _SLUGIFY_OPTIONS and isinstance(value, dict):
            out[key] = _call(value, default=_SLUG_FACTORY)
        elif (extension, key) in _NAMED_OPTIONS and isinstance(value, str):
            out[key] = PythonName(value)
        elif (extension, key) in _ENTRY_CALLABLES and isinstance(value, list):
            out[key] = [_entry(entry, _ENTRY_CALLABLES[(extension, key)]) for entry in value]
    return out


def _entry(entry: Any, keys: tuple[str, ...]) -> Any:
    if not isinstance(entry, dict):
        return entry
    out = dict(entry)
    for key in keys:
        value = entry.get(key)
        if isinstance(value, str):
            out[key] = PythonName(value)
        elif isinstance(value, dict):
            out[key] = _call(value, default="")
    return out


def _call(value: dict[str, Any], *, default: str) -> Any:
    name = value.get("object", default)
    kwds = value.get("kwds", {})
    if not isinstance(name, str) or not name:
        return value
    return PythonCall(name, (), kwds if isinstance(kwds, dict) else {})
