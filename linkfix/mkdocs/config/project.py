"""A family project's configuration as checking its links needs it: one model for MkDocs 1.6,
ProperDocs and Zensical, built from the config's data (mkdocs.yml's shape: `yaml_file` reads it,
`toml_file` spells zensical.toml so) and the generator that builds the site (`dialect`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...files.containment import describe_project, outside_project, project_of
from .dialect import MKDOCS, MKDOCS_BUILTIN_EXTENSIONS, Dialect
from .values import PythonName, RelativePath


@dataclass(slots=True, kw_only=True)
class MkDocsProject:
    config_file: Path
    docs_dir: Path
    site_url: str = ""
    use_directory_urls: bool = True
    nav_files: frozenset[str] = frozenset()  # docs-relative paths named in nav (and monorepo `!include`s)
    # http(s) URLs the config names (nav entries, `extra` links): on the site's host, what another
    # deployment beside the build serves (an API reference at /api/).
    named_urls: tuple[str, ...] = ()
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
    # -- How MkDocs renders the pages (linkfix.mkdocs.pages.extract) ----------------------------------
    # The Python-Markdown extensions as MkDocs 1.6 assembles them (its builtins toc, tables,
    # fenced_code first, then the config's list, each once) and their configs (`mdx_configs`:
    # the last config given for a name wins). Config values keep `!!python/name:` as PythonName
    # (imported when rendering, if it can be); `!relative` paths are resolved here.
    markdown_extensions: tuple[str, ...] = MKDOCS_BUILTIN_EXTENSIONS
    mdx_configs: dict[str, Any] = field(default_factory=dict)
    plugins: tuple[str, ...] = ()  # the configured plugin names, in order (`search`, `macros`, ...)
    # -- What the build makes that the sources do not show (linkfix.mkdocs.made) ----------
    plugin_configs: dict[str, dict[str, Any]] = field(default_factory=dict)  # plugin name -> its settings ({} when none)
    extra: dict[str, Any] = field(default_factory=dict)  # `extra:` as read (`!ENV` values kept as EnvValue)
    hooks: tuple[Path, ...] = ()  # `hooks:` files (resolved): the project's own code, run by `mkdocs build`
    theme_name: str = "mkdocs"  # `theme.name` (None for a custom_dir-only theme is "")
    static_templates: tuple[str, ...] = ()  # `theme.static_templates`: pages the theme renders on its own
    # Whether the project's own code may run (hooks, gen-files scripts, imports the config names),
    # as `mkdocs build` runs it: the runner's choice (--trust-project-code), never the file's.
    trust_project_code: bool = False
    # -- Which generator builds it (dialect), and what that changes ---------------------------
    dialect: Dialect = MKDOCS
    generator_why: str = ""
    # Where the build runs (`mkdocs build -f sub/mkdocs.yml` from the repository's root): relative
    # paths the build opens from its working directory (snippets' base_path, macros' include_dir)
    # are taken from here when they are not beside the config.
    build_dir: Path | None = None  # what decided the generator, in words ("zensical.toml", ...)
    # What the generator leaves out that the config names (Zensical's dropped plugins and hooks),
    # and an ambiguous generator: said once by the run.
    notes: tuple[str, ...] = ()

    @property
    def renders_templates(self) -> bool:
        """Pages are Jinja templates (a macros plugin or Markdown extension is configured):
        `{{ ... }}` in a link target is filled in at build time."""
        return any(name.split("/")[-1].split(".")[-1] == "macros" for name in (*self.plugins, *self.markdown_extensions))


def project_from_data(data: dict[str, Any], path: Path, dialect: Dialect = MKDOCS, *, built_from: Path | None = None) -> MkDocsProject:
    """The project a family config's data (as mkdocs.yml spells it) describes, built by `dialect`
    from the directory `built_from` (None: the config's own)."""
    base = path.parent
    docs_dir = base / str(data.get("docs_dir", "docs"))
    project = project_of(path, built_from=built_from)
    if outside_project(docs_dir, project):
        raise InputError(f"{path}: docs_dir '{data.get('docs_dir')}' is outside the project, {describe_project(project)}: "
                         "linkfix reads no documentation outside it")
    if not docs_dir.is_dir():
        raise InputError(f"{path}: docs_dir '{data.get('docs_dir', 'docs')}' is not a directory")
    notes: list[str] = []
    plugins = _plugins(data.get("plugins"))
    if dialect.plugins is not None:
        dropped = [name for name in plugins if not dialect.runs_plugin(name)]
        if "linkfix" in dropped:
            notes.append(f"{path.name}: {dialect.name} does not run the linkfix plugin (it runs no MkDocs plugin): its build is "
                         "not checked; check the built site after it (`zensical build && linkfix check site/`)")
            dropped.remove("linkfix")
        if dropped:
            notes.append(f"{path.name}: {dialect.name} does not run the plugin{'s' * (len(dropped) > 1)} {', '.join(dropped)}: "
                         f"what {'they' if len(dropped) > 1 else 'it'} would make or change is not part of its build")
        plugins = {name: settings for name, settings in plugins.items() if dialect.runs_plugin(name)}
    hooks = tuple((base / hook).resolve() for hook in _strings(data.get("hooks")))
    if hooks and not dialect.runs_hooks:
        notes.append(f"{path.name}: {dialect.name} runs no hooks: {', '.join(h.name for h in hooks)} left out, as its build leaves them out")
        hooks = ()
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
        named_urls=tuple(dict.fromkeys(_urls(data.get("nav")) + _urls(data.get("extra")))),
        redirects=redirects,
        exclude_docs=_lines(data.get("exclude_docs")),
        draft_docs=_lines(data.get("draft_docs")),
        exclude_globs=_strings(excluded.get("glob")),
        exclude_regexes=_strings(excluded.get("regex")),
        theme_dirs=((base / custom_dir).resolve(),) if custom_dir else (),
        plugin_configs={name: plugins[name] for name in plugins if _enabled(plugins, name)},
        extra=data["extra"] if isinstance(data.get("extra"), dict) else {},
        hooks=hooks,
        theme_name=_theme_name(theme),
        static_templates=_strings(theme.get("static_templates")) if isinstance(theme, dict) else (),
        absolute_links_to_docs=_absolute_links(data.get("validation")) == "relative_to_docs",
        versioned=_enabled(plugins, "mike") or _version_provider(data.get("extra")) == "mike",
        dialect=dialect,
        notes=tuple(notes),
        build_dir=(built_from or base).resolve(),
        **_markdown_settings(data, base.resolve(), docs_dir.resolve(), dialect),
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


def _plugins(value: object) -> dict[str, dict[str, Any]]:
    """`plugins` as {name: settings}, from the list form (`- name`, `- name: {...}`) or the
    mapping form (which INHERIT merges)."""
    return {name: settings if isinstance(settings, dict) else {} for name, settings in _named_entries(value)}


def _enabled(plugins: dict[str, dict[str, Any]], name: str) -> bool:
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


def _markdown_settings(data: dict[str, Any], config_dir: Path, docs_dir: Path, dialect: Dialect) -> dict[str, Any]:
    """`markdown_extensions`, `mdx_configs` and `plugins` as the generator assembles them (MkDocs:
    config_options.MarkdownExtensions; Zensical: its defaults when the key is absent, else the
    list between the ones it always adds); entries it would refuse are left out here, the
    renderer says what it could not load."""
    names: list[str] = list(dialect.first_extensions)
    configs: dict[str, Any] = {}
    given = list(_named_entries(data.get("markdown_extensions")))
    if dialect.default_extensions is not None and "markdown_extensions" not in data:
        given = [(name, _default_options(options)) for name, options in dialect.default_extensions]
    for name, config in given:
        names.append(name)
        if isinstance(config, dict) and config:
            configs[name] = _resolve_relative(config, config_dir, docs_dir)
    names += [name for name in dialect.last_extensions if name not in names]
    return {
        "markdown_extensions": tuple(dict.fromkeys(names)),
        "mdx_configs": configs,
        "plugins": tuple(name for name, _ in _named_entries(data.get("plugins")) if dialect.runs_plugin(name)),
    }


def _default_options(options: dict[str, Any]) -> dict[str, Any]:
    """A default extension's options, its callables (emoji's index and generator) as the names
    a config would give."""
    return {key: PythonName(value) if key in ("emoji_index", "emoji_generator") else value for key, value in options.items()}


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


def _urls(value: Any, depth: int = 0) -> list[str]:
    """The http(s) URLs among a config value's strings (nav entries, `extra.social` links)."""
    if depth > 20:
        return []
    if isinstance(value, str):
        return [value] if value.startswith(("http://", "https://")) else []
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return [url for item in items for url in _urls(item, depth + 1)]


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
