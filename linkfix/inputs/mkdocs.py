"""A MkDocs project's configuration, as far as checking its links needs it.

`mkdocs.yml` is read with a tolerant safe loader: configs name Python objects
(`!!python/name:...`) and environment variables (`!ENV`), and only plain keys are needed here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import InputError
from .yamlfile import YamlRefused, read_yaml

MAX_INHERIT = 10  # config files in one INHERIT chain


@dataclass(slots=True, kw_only=True)
class MkDocsProject:
    config_file: Path
    docs_dir: Path
    site_url: str = ""
    use_directory_urls: bool = True
    nav_files: frozenset[str] = frozenset()  # docs-relative paths named in nav
    redirects: dict[str, str] = field(default_factory=dict)  # docs-relative old .md -> target


class _TolerantLoader(yaml.SafeLoader):
    """mkdocs.yml files name Python objects (`!!python/name:...`) and env vars (`!ENV`).
    We only need plain keys, so unknown tags load as their text instead of failing."""


def _unknown_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node):
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)


def _env_tag(loader: yaml.SafeLoader, node: yaml.Node):
    values = loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode) else [loader.construct_scalar(node)]
    for name in values[:-1] if len(values) > 1 else values:
        if isinstance(name, str) and name in os.environ:
            return os.environ[name]
    return values[-1] if len(values) > 1 else None


_TolerantLoader.add_multi_constructor("", _unknown_tag)
_TolerantLoader.add_constructor("!ENV", _env_tag)


def read_mkdocs(path: Path) -> MkDocsProject:
    data = _read_chain(path)
    base = path.parent
    docs_dir = base / str(data.get("docs_dir", "docs"))
    if not docs_dir.is_dir():
        raise InputError(f"{path}: docs_dir '{data.get('docs_dir', 'docs')}' is not a directory")
    redirects: dict[str, str] = {}
    for plugin in data.get("plugins") or []:
        if isinstance(plugin, dict) and isinstance(plugin.get("redirects"), dict):
            maps = plugin["redirects"].get("redirect_maps") or {}
            if isinstance(maps, dict):
                redirects = {str(k): str(v) for k, v in maps.items()}
    return MkDocsProject(
        config_file=path,
        docs_dir=docs_dir.resolve(),
        site_url=str(data.get("site_url") or ""),
        use_directory_urls=bool(data.get("use_directory_urls", True)),
        nav_files=frozenset(_nav_files(data.get("nav"))),
        redirects=redirects,
    )


def _read_chain(path: Path) -> dict:
    """The config of `path` over the configs it INHERITs from (each key from the nearest file
    that sets it: the keys read here are scalars and lists, which MkDocs's merge replaces too).
    The chain is followed to MAX_INHERIT files; a loop is refused."""
    chain = [path.resolve()]
    data = _read_one(path, path)
    merged = dict(data)
    while isinstance(data.get("INHERIT"), str):
        parent = (chain[-1].parent / data["INHERIT"]).resolve()
        if parent in chain:
            raise InputError(f"{path}: INHERIT loop: {' -> '.join(p.name for p in chain)} -> {parent.name}")
        if len(chain) > MAX_INHERIT:
            raise InputError(f"{path}: INHERIT chain longer than {MAX_INHERIT} files")
        chain.append(parent)
        data = _read_one(parent, path)
        merged = {**data, **merged}
    return merged


def _read_one(path: Path, top: Path) -> dict:
    which = "" if path == top else f" (inherited by {top})"
    try:
        data = read_yaml(path, _TolerantLoader)
    except YamlRefused as exc:
        raise InputError(f"{path}{which}: {exc}") from exc
    if not isinstance(data, dict):
        if path != top and data is None:
            return {}
        raise InputError(f"{path}{which}: expected a mapping at the top level")
    return data


def _nav_files(nav) -> Iterator[str]:
    if isinstance(nav, str):
        if not re.match(r"^[a-z][a-z0-9+.-]*:", nav, re.I):
            yield nav
    elif isinstance(nav, list):
        for item in nav:
            yield from _nav_files(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from _nav_files(value)
