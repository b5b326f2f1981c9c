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
from typing import Any

import yaml

from ..errors import InputError
from ..files.yamlfile import YamlRefused, read_yaml
from .containment import describe_project, outside_project, project_of

MAX_INHERIT = 10  # config files in one INHERIT chain
#: The extensions MkDocs 1.6 always loads before the config's `markdown_extensions`.
MKDOCS_BUILTIN_EXTENSIONS = ("toc", "tables", "fenced_code")
_PYTHON_NAME = "tag:yaml.org,2002:python/name:"
_PYTHON_CALL = "tag:yaml.org,2002:python/object/apply:"


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
    the variable is not set (a source check renders with that: see extract.mkdocs.setup)."""

    default: Any

    def __new__(cls, value: str, default: Any) -> EnvValue:
        made = super().__new__(cls, value)
        made.default = default
        return made


class RelativePath(str):
    """A `!relative` config value (`$config_dir`, `$docs_dir`, or '' for the page's directory)."""


@dataclass(slots=True, kw_only=True)
class MkDocsProject:
    config_file: Path
    docs_dir: Path
    site_url: str = ""
    use_directory_urls: bool = True
    nav_files: frozenset[str] = frozenset()  # docs-relative paths named in nav (and monorepo `!include`s)
    redirects: dict[str, str] = field(default_factory=dict)  # docs-relative old .md -> target
    # -- which docs files MkDocs builds, at which URLs, and how it treats links (inputs2) ------
    # (`use_directory_urls` above is the effective setting: Material's `offline` plugin turns it off.)
    exclude_docs: tuple[str, ...] = ()  # gitignore lines of `exclude_docs` (MkDocs adds `.*`, `/templates/`)
    draft_docs: tuple[str, ...] = ()  # gitignore lines: left out of `mkdocs build`
    exclude_globs: tuple[str, ...] = ()  # mkdocs-exclude plugin: fnmatch globs on docs-relative paths
    exclude_regexes: tuple[str, ...] = ()  # mkdocs-exclude plugin: regexes matched at the path's start
    theme_dirs: tuple[Path, ...] = ()  # theme `custom_dir` (resolved): templates, not documentation
    absolute_links_to_docs: bool = False  # validation.links.absolute_links: relative_to_docs
    # Published with mike (`extra.version.provider: mike` or its plugin): each version is deployed
    # in a directory of the site, whose root holds other versions and files this build cannot see.
    versioned: bool = False
    # -- How MkDocs renders the pages (linkfix.extract.mkdocs) ----------------------------------
    # The Python-Markdown extensions as MkDocs 1.6 assembles them (its builtins toc, tables,
    # fenced_code first, then the config's list, each once) and their configs (`mdx_configs`:
    # the last config given for a name wins). Config values keep `!!python/name:` as PythonName
    # (imported when rendering, if it can be); `!relative` paths are resolved here.
    markdown_extensions: tuple[str, ...] = MKDOCS_BUILTIN_EXTENSIONS
    mdx_configs: dict[str, Any] = field(default_factory=dict)
    plugins: tuple[str, ...] = ()  # the configured plugin names, in order (`search`, `macros`, ...)
    # -- What the build makes that the sources do not show (linkfix.inputs.mkdocs_made) ----------
    plugin_configs: dict[str, dict] = field(default_factory=dict)  # plugin name -> its settings ({} when none)
    extra: dict[str, Any] = field(default_factory=dict)  # `extra:` as read (`!ENV` values kept as EnvValue)
    hooks: tuple[Path, ...] = ()  # `hooks:` files (resolved): the project's own code, run by `mkdocs build`
    theme_name: str = "mkdocs"  # `theme.name` (None for a custom_dir-only theme is "")
    static_templates: tuple[str, ...] = ()  # `theme.static_templates`: pages the theme renders on its own
    # Whether the project's own code may run (hooks, gen-files scripts, imports the config names),
    # as `mkdocs build` runs it: the runner's choice (--trust-project-code), never the file's.
    trust_project_code: bool = False

    @property
    def renders_templates(self) -> bool:
        """Pages are Jinja templates (a macros plugin or Markdown extension is configured):
        `{{ ... }}` in a link target is filled in at build time."""
        return any(name.split("/")[-1].split(".")[-1] == "macros" for name in (*self.plugins, *self.markdown_extensions))


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


# Keys of a MkDocs config: a YAML file with one of them (after INHERIT) is read as one.
# `site_name` is the one MkDocs requires; the others make a config that INHERITs it recognisable.
MKDOCS_KEYS = frozenset({"site_name", "INHERIT", "docs_dir", "nav", "theme", "plugins", "markdown_extensions"})
# ProperDocs, the fork that carries MkDocs 1.6 on, reads the same config under its own name.
MKDOCS_NAMES = ("mkdocs.yml", "mkdocs.yaml", "properdocs.yml", "properdocs.yaml")


def is_mkdocs_config(path: Path) -> bool:
    """Whether `path` is a MkDocs config: named mkdocs.yml/.yaml, or a .yml/.yaml file (as MkDocs
    takes any with `-f`) whose mapping, INHERIT followed, holds `site_name` or another MkDocs key."""
    if path.name in MKDOCS_NAMES:
        return True
    if path.suffix.lower() not in (".yml", ".yaml"):
        return False
    try:
        data = _read_chain(path)
    except InputError:
        return False
    return "site_name" in data or bool(MKDOCS_KEYS & data.keys() - {"INHERIT"})


def read_mkdocs(path: Path) -> MkDocsProject:
    data = _read_chain(path)
    base = path.parent
    docs_dir = base / str(data.get("docs_dir", "docs"))
    project = project_of(path)
    if outside_project(docs_dir, project):
        raise InputError(f"{path}: docs_dir '{data.get('docs_dir')}' is outside the project, {describe_project(project)}: "
                         "linkfix reads no documentation outside it")
    if not docs_dir.is_dir():
        raise InputError(f"{path}: docs_dir '{data.get('docs_dir', 'docs')}' is not a directory")
    plugins = _plugins(data.get("plugins"))
    redirects: dict[str, str] = {}
    maps = (plugins.get("redirects") or {}).get("redirect_maps") or {}
    if isinstance(maps, dict):
        redirects = {str(k): str(v) for k, v in maps.items()}
    offline = _enabled(plugins, "offline") or _enabled(plugins, "material/offline")
    excluded = plugins.get("exclude") or {}
    theme = data.get("theme")
    custom_dir = theme.get("custom_dir") if isinstance(theme, dict) and isinstance(theme.get("custom_dir"), str) else ""
    if custom_dir and outside_project(base / custom_dir, project):
        # Its files are walked to know what the theme publishes: `custom_dir: /etc` made a link
        # to `passwd` ok (an oracle on the runner's files), `/` walked the whole disk.
        raise InputError(f"{path}: theme.custom_dir '{custom_dir}' is outside the project, {describe_project(project)}: "
                         "linkfix reads nothing outside it")
    return MkDocsProject(
        config_file=path,
        docs_dir=docs_dir.resolve(),
        site_url=str(data.get("site_url") or ""),
        use_directory_urls=bool(data.get("use_directory_urls", True)) and not offline,
        nav_files=frozenset(_nav_files(data.get("nav"))),
        redirects=redirects,
        exclude_docs=_lines(data.get("exclude_docs")),
        draft_docs=_lines(data.get("draft_docs")),
        exclude_globs=_strings(excluded.get("glob")),
        exclude_regexes=_strings(excluded.get("regex")),
        theme_dirs=((base / custom_dir).resolve(),) if custom_dir else (),
        plugin_configs={name: plugins[name] for name in plugins if _enabled(plugins, name)},
        extra=data["extra"] if isinstance(data.get("extra"), dict) else {},
        hooks=tuple((base / hook).resolve() for hook in _strings(data.get("hooks"))),
        theme_name=_theme_name(theme),
        static_templates=_strings(theme.get("static_templates")) if isinstance(theme, dict) else (),
        absolute_links_to_docs=_absolute_links(data.get("validation")) == "relative_to_docs",
        versioned=_enabled(plugins, "mike") or _version_provider(data.get("extra")) == "mike",
        **_markdown_settings(data, base.resolve(), docs_dir.resolve()),
    )


def _version_provider(extra: object) -> str:
    """Material's `extra.version.provider` (the version selector's source), '' when none."""
    version = extra.get("version") if isinstance(extra, dict) else None
    provider = version.get("provider") if isinstance(version, dict) else None
    return provider if isinstance(provider, str) else ""


def _theme_name(theme: object) -> str:
    """`theme: material` or `theme: {name: material}`; a theme of only a custom_dir (name: null) is ''."""
    if isinstance(theme, str):
        return theme
    if isinstance(theme, dict):
        name = theme.get("name", "mkdocs")
        return name if isinstance(name, str) else ""
    return "mkdocs"


def _plugins(value: object) -> dict[str, dict]:
    """`plugins` as {name: settings}, from the list form (`- name`, `- name: {...}`) or the
    mapping form (which INHERIT merges)."""
    return {name: settings if isinstance(settings, dict) else {} for name, settings in _named_entries(value)}


def _enabled(plugins: dict[str, dict], name: str) -> bool:
    if name not in plugins:
        return False
    enabled = plugins[name].get("enabled", True)
    if isinstance(enabled, str):
        return enabled.strip().lower() not in ("false", "no", "off", "0", "")
    return enabled is None or bool(enabled)  # `!ENV [X]` with X unset loads as None: the default


def _lines(value: object) -> tuple[str, ...]:
    """gitignore-style lines of a MkDocs pathspec setting (a block string)."""
    if isinstance(value, str):
        return tuple(line for line in value.splitlines() if line.strip())
    return _strings(value)


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(str(v) for v in value if isinstance(v, (str, int, float)))
    return ()


def _absolute_links(validation: object) -> str:
    """validation.links.absolute_links, or the `validation.absolute_links` shorthand."""
    if not isinstance(validation, dict):
        return ""
    links = validation.get("links")
    if isinstance(links, dict) and "absolute_links" in links:
        return str(links["absolute_links"])
    return str(validation.get("absolute_links", ""))


def _markdown_settings(data: dict, config_dir: Path, docs_dir: Path) -> dict[str, Any]:
    """`markdown_extensions`, `mdx_configs` and `plugins` as MkDocs assembles them
    (config_options.MarkdownExtensions); entries MkDocs would refuse are left out here, the
    renderer says what it could not load."""
    names: list[str] = list(MKDOCS_BUILTIN_EXTENSIONS)
    configs: dict[str, Any] = {}
    for name, config in _named_entries(data.get("markdown_extensions")):
        names.append(name)
        if isinstance(config, dict) and config:
            configs[name] = _resolve_relative(config, config_dir, docs_dir)
    return {
        "markdown_extensions": tuple(dict.fromkeys(names)),
        "mdx_configs": configs,
        "plugins": tuple(name for name, _ in _named_entries(data.get("plugins"))),
    }


def _named_entries(value: Any) -> Iterator[tuple[str, Any]]:
    """(name, config) of a MkDocs list-or-mapping option: `[a, {b: {...}}]` or `{a: ..., b: ...}`."""
    items: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        for entry in value:
            if isinstance(entry, dict):
                items.extend(entry.items())
            else:
                items.append((entry, None))
    for name, config in items:
        if isinstance(name, str):
            yield name, config


def _resolve_relative(value: Any, config_dir: Path, docs_dir: Path) -> Any:
    """`!relative $config_dir` / `$docs_dir` as absolute paths; a page-relative `!relative`
    as the docs directory (one renderer serves every page)."""
    if isinstance(value, RelativePath):
        base = config_dir if value.startswith("$config_dir") else docs_dir
        rest = value.partition("/")[2] if value.startswith("$") else value
        return str(base / rest) if rest else str(base)
    if isinstance(value, dict):
        return {key: _resolve_relative(item, config_dir, docs_dir) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolve_relative(item, config_dir, docs_dir) for item in value]
    return value


def _read_chain(path: Path) -> dict:
    """The config of `path` over the configs it INHERITs from, merged as MkDocs merges them
    (mergedeep's default: mappings merged key by key, everything else replaced by the nearer
    file's value): `plugins: {offline: ...}` in a child keeps the parent's other plugins.
    The chain is followed to MAX_INHERIT files; a loop is refused, and so is a file outside the
    project (`containment`): neither its lines nor its settings are the repository's to use."""
    project = project_of(path)
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


def _merge(parent: dict, child: dict) -> dict:
    merged = dict(parent)
    for key, value in child.items():
        below = merged.get(key)
        merged[key] = _merge(below, value) if isinstance(below, dict) and isinstance(value, dict) else value
    return merged


def _read_one(path: Path, top: Path) -> dict:
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


def _nav_files(nav: Any) -> Iterator[str]:
    if isinstance(nav, str):
        if not re.match(r"^[a-z][a-z0-9+.-]*:", nav, re.I):
            yield nav
    elif isinstance(nav, list):
        for item in nav:
            yield from _nav_files(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from _nav_files(value)
