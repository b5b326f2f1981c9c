"""A family config written in YAML (mkdocs.yml, properdocs.yml, zensical.yml), read as MkDocs reads it.

A tolerant safe loader: configs name Python objects (`!!python/name:...`) and environment
variables (`!ENV`); they are read as the values of `values`, never imported or called here, and
any other tag loads as its plain data. `INHERIT` chains are followed and merged as MkDocs merges
them, within the project (`files.containment`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from ...errors import InputError
from ...files.containment import describe_project, outside_project, project_of
from ...files.yamlfile import YamlRefused, read_yaml
from .values import EnvValue, PythonCall, PythonName, RelativePath

MAX_INHERIT = 10  # config files in one INHERIT chain
_PYTHON_NAME = "tag:yaml.org,2002:python/name:"
_PYTHON_CALL = "tag:yaml.org,2002:python/object/apply:"
# Keys of a family config: a YAML file with one of them (after INHERIT) is read as one.
# `site_name` is the one MkDocs requires; the others make a config that INHERITs it recognisable.
CONFIG_KEYS = frozenset({"site_name", "INHERIT", "docs_dir", "nav", "theme", "plugins", "markdown_extensions"})


def is_yaml_config(path: Path) -> bool:
    """A .yml/.yaml file (as MkDocs takes any with `-f`) whose mapping, INHERIT followed, holds
    `site_name` or another key of the family's configs."""
    if path.suffix.lower() not in (".yml", ".yaml"):
        return False
    try:
        data = read_yaml_config(path)
    except InputError:
        return False
    return "site_name" in data or bool(CONFIG_KEYS & data.keys() - {"INHERIT"})


class _TolerantLoader(yaml.SafeLoader):
    """mkdocs.yml files name Python objects (`!!python/name:...`) and env vars (`!ENV`).
    We only need plain keys, so unknown tags load as their text instead of failing."""


def _unknown_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if suffix.startswith(_PYTHON_NAME):
        return PythonName(suffix[len(_PYTHON_NAME):])
    if suffix.startswith(_PYTHON_CALL):
        name = suffix[len(_PYTHON_CALL):]
        if isinstance(node, yaml.SequenceNode):
            return PythonCall(name, tuple(loader.construct_sequence(node, deep=True)))
        if isinstance(node, yaml.MappingNode):
            value = loader.construct_mapping(node, deep=True)
            args, kwds = value.get("args") or [], value.get("kwds") or {}
            return PythonCall(name, tuple(args) if isinstance(args, list) else (), kwds if isinstance(kwds, dict) else {})
        return PythonCall(name)
    if suffix == "!relative" and isinstance(node, yaml.ScalarNode):
        return RelativePath(loader.construct_scalar(node) or "")
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    raise TypeError(f"{type(node).__name__}: not a node PyYAML makes")


def _env_tag(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    if isinstance(node, yaml.SequenceNode):
        values = loader.construct_sequence(node)
    elif isinstance(node, (yaml.ScalarNode, yaml.MappingNode)):
        values = [loader.construct_scalar(node)]  # a mapping: PyYAML's error, as in MkDocs
    else:
        raise TypeError(f"{type(node).__name__}: not a node PyYAML makes")
    default = values[-1] if len(values) > 1 else None
    for name in values[:-1] if len(values) > 1 else values:
        if isinstance(name, str) and name in os.environ:
            return EnvValue(os.environ[name], default)
    return default


_TolerantLoader.add_multi_constructor("", _unknown_tag)
_TolerantLoader.add_constructor("!ENV", _env_tag)


def read_yaml_config(path: Path, *, built_from: Path | None = None) -> dict[str, Any]:
    """The config of `path` over the configs it INHERITs from, merged as MkDocs merges them
    (mergedeep's default: mappings merged key by key, everything else replaced by the nearer
    file's value): `plugins: {offline: ...}` in a child keeps the parent's other plugins.
    The chain is followed to MAX_INHERIT files; a loop is refused, and so is a file outside the
    project (`containment`): neither its lines nor its settings are the repository's to use."""
    project = project_of(path, built_from=built_from)
    if outside_project(path, project):
        raise InputError(f"{path}: a symlink that leads outside the project, {describe_project(project)}: not read")
    chain = [path.resolve()]
    data = _read_one(path, path)
    merged = dict(data)
    while isinstance(data.get("INHERIT"), str):
        parent = (chain[-1].parent / data["INHERIT"]).resolve()
        if outside_project(parent, project):
            raise InputError(f"{path}: INHERIT '{data['INHERIT']}' (in {chain[-1].name}) is outside the project, "
                             f"{describe_project(project)}: not read")
        if parent in chain:
            raise InputError(f"{path}: INHERIT loop: {' -> '.join(p.name for p in chain)} -> {parent.name}")
        if len(chain) > MAX_INHERIT:
            raise InputError(f"{path}: INHERIT chain longer than {MAX_INHERIT} files")
        chain.append(parent)
        data = _read_one(parent, path)
        merged = _merge(data, merged)
    return merged


def _merge(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    merged = dict(parent)
    for key, value in child.items():
        below = merged.get(key)
        merged[key] = _merge(below, value) if isinstance(below, dict) and isinstance(value, dict) else value
    return merged


def _read_one(path: Path, top: Path) -> dict[str, Any]:
    which = "" if path == top else f" (inherited by {top})"
    try:
        data = read_yaml(path, _TolerantLoader)
    except YamlRefused as exc:
        raise InputError(exc.at(str(path), which)) from exc
    if not isinstance(data, dict):
        if path != top and data is None:
            return {}
        raise InputError(f"{path}{which}: expected a mapping at the top level")
    return data


