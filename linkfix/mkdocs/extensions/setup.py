"""Which Python-Markdown extensions render a MkDocs project's pages, and with what settings.

`MarkdownSetup` is what a config says, as plain data (picklable for the extraction worker, a
`key` for the extraction cache); `load` turns it into what Python-Markdown takes: every
extension imported, `!!python/name:` values imported when they can be. What cannot be loaded is
left out, each with one warning naming it and what that may hide; nothing stops the check.

A source check renders the pages; it never runs the project's code unless the person running
linkfix says so (`trust_project_code`, see `imports`). So a few settings differ from a real
build, each on purpose:
- names and calls in the config (`!!python/name:`, `!!python/object/apply:`) and extensions are
  imported only from installed distributions, and called only when known safe (`imports`); a
  slug function left out makes the fragments a heading could make unverified, not broken;
- `!ENV` values in extension settings are the file's own defaults, not the environment's: the
  environment holds the runner's secrets, and rendered text becomes URLs that are fetched;
- `pymdownx.snippets`: relative `base_path`s are taken from the config's directory (MkDocs takes
  them from the working directory, which is the config's in a normal build), only base paths
  and files inside the project are read, never a VCS directory (`snippet_reads`), a missing file
  includes nothing instead of failing the page, and nothing is downloaded;
- the `markdown-exec` plugin's fences (```` ```python exec="on" ````) are shown as code, not run:
  what they would print is made at build time (see `BUILD_TIME_CLASS`);
- mdx_include's and markdown-include's `{!file!}` are read by linkfix's own reader
  (`include_ext`), mkdocs-autorefs' `[text][identifier]` by its own (`autorefs_ext`): the same
  in every environment, and an include reads what a snippet may, never a URL;
- a macros extension is left out: it renders pages with the build's variables;
- what is left out that may make ids (an extension, a slugify, a custom fence's format) is
  `unsure`: the fragments a page's source spells that this rendering lacks are unverified;
  what makes no link and no id is left out with a note only (`NO_LINKS_OR_IDS`, `HARMLESS_OPTIONS`);
- extensions that only work inside a MkDocs build (they need MkDocs' own processors) and make
  no links or ids are left out quietly (`MKDOCS_ONLY`).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...files.containment import project_of
from ..building import PageRewriter
from ..config.dialect import CONFIG_NAMES, MKDOCS_BUILTIN_EXTENSIONS
from ..config.project import MkDocsProject
from ..plugins.markdown_exec import BUILD_TIME_CLASS, EXEC_PLUGINS, add_exec_fences, remember_extensions
from ..plugins.mkdocstrings import autodoc_settings
from ..project_code.hooks import hook_rewriters, markdown_configuring_hooks, simple_hook_targets
from . import imports
from .config_values import LeftOut, Unimportable, distribution, import_names, import_value, named, plain, python_names, tagged
from .own import (
    AUTOREFS_EXTENSION,
    AUTOREFS_PLUGINS,
    INCLUDE_NAMES,
    MATERIAL_ICONS_EXTENSION,
    OWN_EXTENSIONS,
    adjust_snippets,
    own_includes,
)
from .pymarkdown import build_extension, python_markdown
from .reach import extension_reach, fence_reach

# Re-exported: what other modules take from the Markdown setup.
__all__ = ["BUILD_TIME_CLASS", "INCLUDE_NAMES", "Loaded", "MarkdownSetup", "announce", "fingerprint",
           "is_template_extension", "load", "loaded", "markdown_setup_for", "setup_of"]

log = logging.getLogger(__name__)

#: Extensions that need a MkDocs build around them (MkDocs' `relpath` processor) and change
#: neither links nor ids: left out of a source check without a warning.
MKDOCS_ONLY = {"material.extensions.preview": "link previews (needs MkDocs' relpath processor)"}

def is_template_extension(name: str) -> bool:
    """A macros extension (mkdocs-macros' or zensical's): pages are Jinja templates."""
    return name.split(".")[-1].split(":")[0] == "macros"


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkdownSetup:
    """A MkDocs project's Markdown settings as plain data."""

    extensions: tuple[str, ...] = MKDOCS_BUILTIN_EXTENSIONS
    configs_json: str = "{}"  # {extension: config}, `!!python/name:` values as {"!!python/name": name}
    plugins: tuple[str, ...] = ()
    config_dir: str = "."
    docs_dir: str = "."
    project_dir: str = "."  # what included files may be read from (see snippet_reads)
    build_dir: str = "."  # where the build runs: relative include paths not beside the config are taken from here
    trust_project_code: bool = False  # the runner's choice (command line), never the config's
    # The project hooks that rewrite pages, as read without running them: a page one of them
    # may touch has its broken links and missing ids unverified (unless the hooks ran on it).
    rewriters: tuple[PageRewriter, ...] = ()
    # Run the project's hooks as `mkdocs build` does (trusted): the config file whose hooks run ('' when they do not).
    run_hooks_of: str = ""
    # What mkdocstrings' `:::` blocks are sure to make ('' when no claim can be made; see autodoc).
    autodoc: str = ""
    include_dirs: tuple[str, ...] = ()  # where the macros plugin's `{% include %}` reads (its include_dir)
    config_hooks: tuple[str, ...] = ()  # the hooks whose on_config may change the Markdown settings
    key: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.key:
            digest = hashlib.blake2b(digest_size=16)
            hooks = [f"{r.name}:{r.reading!r}" for r in self.rewriters]
            for part in (*self.extensions, "\0", self.configs_json, "\0", *self.plugins, "\0", self.config_dir, self.docs_dir,
                         self.project_dir, self.build_dir, str(self.trust_project_code), "\0", *hooks, "\0", self.run_hooks_of, self.autodoc,
                         "\0", *self.include_dirs, "\0", *self.config_hooks):
                digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
            object.__setattr__(self, "key", digest.hexdigest())

    def __hash__(self) -> int:
        return hash(self.key)

    def configs(self) -> dict[str, Any]:
        configs: dict[str, Any] = json.loads(self.configs_json, object_hook=python_names)
        return configs

    def has_plugin(self, *names: str) -> bool:
        return any(plugin.split("/")[-1] in names for plugin in self.plugins)


def setup_of(project: MkDocsProject) -> MarkdownSetup:
    trusted = project.trust_project_code
    config_dir = project.config_file.parent.resolve()
    return MarkdownSetup(
        extensions=tuple(project.markdown_extensions),
        configs_json=json.dumps(tagged(project.mdx_configs, trusted), default=plain, sort_keys=True),
        plugins=tuple(project.plugins),
        config_dir=str(config_dir),
        docs_dir=str(project.docs_dir),
        project_dir=str(project_of(project.config_file, built_from=project.build_dir)),
        build_dir=str(project.build_dir or config_dir),
        trust_project_code=trusted,
        rewriters=tuple(hook_rewriters(project)),
        run_hooks_of=str(project.config_file.resolve()) if trusted and (project.hooks or simple_hook_targets(project.plugin_configs)) else "",
        autodoc=autodoc_settings(project.plugin_configs, str(config_dir)),
        include_dirs=macros_include_dirs(project.plugin_configs, config_dir, project.build_dir or Path.cwd()),
        config_hooks=tuple(markdown_configuring_hooks(project)),
    )


def macros_include_dirs(plugin_configs: dict[str, dict[str, Any]], config_dir: Path, build_dir: Path) -> tuple[str, ...]:
    """The macros plugin's relative `include_dir`, which it opens from where `mkdocs build` runs:
    the config's directory, or, when it is not there, the directory the build runs from (a
    project that builds with `mkdocs build -f sub/mkdocs.yml` from its repository root, as
    external-secrets does: config.load.built_from)."""
    given = [config.get("include_dir") for name, config in plugin_configs.items() if name.split("/")[-1] in ("macros", "mkdocs-macros")]
    found = []
    for include_dir in given:
        if isinstance(include_dir, str) and include_dir:
            from_config, from_here = config_dir / include_dir, build_dir / include_dir
            found.append(str((from_here if not from_config.is_dir() and from_here.is_dir() else from_config).resolve()))
    return tuple(found)


@dataclass(frozen=True, slots=True, kw_only=True)
class Loaded:
    """What `markdown.Markdown(extensions=..., extension_configs=...)` takes, and what was left out."""

    extensions: tuple[str, ...]
    configs: dict[str, Any]
    problems: tuple[str, ...] = ()  # one sentence per thing left out
    # What was left out that may render headings or make ids (an extension, a slugify), as a
    # reader names it: a fragment the source spells but this rendering lacks is unverified.
    unsure: tuple[str, ...] = ()
    unsure_reach: tuple[str, ...] = ()  # beside each: the source it may act on ('' anywhere; see reach)
    unsure_packages: tuple[str, ...] = ()  # the distributions that would provide them
    notes: tuple[str, ...] = ()  # what was left out that makes no link and no id (said at info level)


def load(setup: MarkdownSetup) -> Loaded | None:
    """The extensions and configs ready for Python-Markdown, or None when Python-Markdown
    itself cannot be used here. What was left out is in `problems` (`announce` says it)."""
    try:
        import markdown  # noqa: F401  # Python-Markdown itself, before anything is made with it
    except ImportError:
        return None
    problems: list[str] = []
    left_out: list[LeftOut] = []
    configs = setup.configs()
    for name in list(configs):
        configs[name] = import_names(configs[name], name, left_out, setup.trust_project_code)
    adjust_snippets(configs, setup.extensions, setup.config_dir, setup.project_dir, problems, build_dir=setup.build_dir)
    names = own_includes(configs, setup.extensions, setup.config_dir, setup.project_dir)
    if setup.has_plugin(*AUTOREFS_PLUGINS):
        names.append(AUTOREFS_EXTENSION)
    ran = False
    if setup.has_plugin(*EXEC_PLUGINS) and "pymdownx.superfences" in setup.extensions:
        ran = add_exec_fences(configs, setup.autodoc, run_in=setup.config_dir if setup.trust_project_code else "")
    extensions: list[str] = []
    notes: list[str] = []
    unsure: list[str] = []
    reach: list[str] = []
    packages: list[str] = []
    for hook in setup.config_hooks:  # an extension it may add is unknown: it may act anywhere
        unsure.append(f"what the on_config of the hook {hook} may add to the Markdown settings")
        reach.append("")
    for name, key in _dropped_options(setup, configs):
        said = [item for item in left_out if item.kind == "option" and (item.extension, item.key) == (name, key)]
        if (name, key) in HARMLESS_OPTIONS:
            left_out = [item for item in left_out if item not in said]
            notes += [f"{item.sentence()} (it makes no link and no id)" for item in said]
            for option, value in HARMLESS_OPTIONS[(name, key)].items():
                try:
                    configs[name][option] = import_value(value, trusted=False)
                except Unimportable:  # the project's tree shadows the extension's package: left out, said below
                    continue
            if key == "emoji_index" and str(named(setup.configs()[name][key])).startswith(("material.", "zensical.")):
                names.append(MATERIAL_ICONS_EXTENSION)  # its icons write no text: nor in a heading's id
        elif "slugify" in key:
            unsure.append(f"{name}'s {key}")
            reach.append("")
            packages.append(distribution(named(setup.configs()[name][key])))
    for item in left_out:
        if item.kind == "entry":  # a custom fence left out: read as a code block, its headings too
            unsure.append(f"the custom fence {item.entry} of {item.extension}".replace("  ", " "))
            reach.append(fence_reach(item.entry))
            packages.append(distribution(item.names))
    problems[:0] = [item.sentence() for item in left_out]

    def leave_out(name: str, exc: Exception) -> None:
        if name in NO_LINKS_OR_IDS:
            notes.append(f"markdown extension '{name}' is left out ({type(exc).__name__}): {NO_LINKS_OR_IDS[name]}")
        else:
            problems.append(_left_out(name, exc))
            unsure.append(f"the Markdown extension {name}")
            reach.append(extension_reach(name))
            packages.append(distribution(name))
        configs.pop(name, None)

    for name in names:
        if name in MKDOCS_ONLY:
            log.debug("leaving out %s in a source check: %s", name, MKDOCS_ONLY[name])
            continue
        if is_template_extension(name):
            # It renders each page as a Jinja template with the build's variables (`extra`, data
            # files), which a source check does not have: rendered here it fails or drops text.
            # The page is read as written; template targets and the ids templates may make are
            # unverified (check.local, mkdocs.pages.unknowns), in every environment.
            log.debug("leaving out %s in a source check: it renders pages with the build's variables", name)
            continue
        refusal = None if setup.trust_project_code or name in OWN_EXTENSIONS else imports.extension_refusal(name)
        if refusal is not None:
            problems.append(f"markdown extension '{name}' is not loaded: {refusal}; left out, so links and ids it would render are not seen")
            unsure.append(f"the Markdown extension {name}")
            reach.append(extension_reach(name))
            packages.append(distribution(name))
            configs.pop(name, None)
            continue
        try:
            build_extension(name, configs.get(name, {}))  # its import and config, without a parser to extend
        except Exception as exc:  # an extension's own import or config error: any type
            leave_out(name, exc)
            continue
        extensions.append(name)
    failure = _extending(extensions, configs)
    if failure is not None:  # which one fails on a parser of its own: left out, as an import error is
        for name in list(extensions):
            alone = _extending([name], {name: configs[name]} if name in configs else {})
            if alone is not None:
                leave_out(name, alone)
                extensions.remove(name)
        failure = _extending(extensions, configs)
    if failure is not None:
        if not all(name in MKDOCS_BUILTIN_EXTENSIONS for name in extensions):
            problems.append(f"the Markdown extensions do not load together ({type(failure).__name__}: {failure}); "
                            f"rendering with MkDocs' own ({', '.join(MKDOCS_BUILTIN_EXTENSIONS)}) only")
        extensions = [name for name in extensions if name in MKDOCS_BUILTIN_EXTENSIONS]
        configs = {name: value for name, value in configs.items() if name in extensions}
        try:
            python_markdown(extensions=extensions, extension_configs=configs)
        except Exception:
            return None
    if ran:
        remember_extensions(extensions, configs)
    return Loaded(extensions=tuple(extensions), configs=configs, problems=tuple(problems), unsure=tuple(unsure),
                  unsure_reach=tuple(reach), unsure_packages=tuple(dict.fromkeys(packages)), notes=tuple(notes))


#: Extensions that make no link and no id: left out where they are not installed with a note only.
NO_LINKS_OR_IDS = {
    "callouts": "it turns NOTE: paragraphs into admonitions (no link, no id)",
    "github-callouts": "it turns > [!NOTE] quotes into admonitions (no link, no id)",
    "markdown_callouts": "it turns NOTE: paragraphs into admonitions (no link, no id)",
}

#: Options that only choose how emoji look, left out where what they name is not installed (Material's):
#: emoji are then written as their text, which links nowhere (the default would link images on a CDN).
HARMLESS_OPTIONS: dict[tuple[str, str], dict[str, str]] = {
    ("pymdownx.emoji", "emoji_index"): {},
    ("pymdownx.emoji", "emoji_generator"): {"emoji_generator": "pymdownx.emoji.to_alt"},
}

def _dropped_options(setup: MarkdownSetup, configs: dict[str, Any]) -> list[tuple[str, str]]:
    """(extension, option) of the options left out because what they name cannot be imported."""
    dropped = []
    for name, given in setup.configs().items():
        now = configs.get(name)
        if isinstance(given, dict) and isinstance(now, dict):
            dropped += [(name, key) for key in given if key not in now]
    return dropped


def _extending(extensions: list[str], configs: dict[str, Any]) -> Exception | None:
    """What a Markdown parser with `extensions` raises when it is made, or None. All together
    first: a parser per extension, each registering its processors, made load() cost more than
    rendering a page."""
    try:
        python_markdown(extensions=extensions, extension_configs=configs)
    except Exception as exc:  # an extension's own failure: any type
        return exc
    return None


def _left_out(name: str, exc: BaseException) -> str:
    missing = isinstance(exc, ImportError) and name.replace("-", "_").split(".")[0] in str(exc).replace("-", "_")
    why = "is not installed here" if missing else f"cannot be loaded ({type(exc).__name__}: {exc})"
    return (f"markdown extension '{name}' {why}: left out, so links and ids it would render are not seen "
            "(install what the site's build installs to check them)")


@functools.lru_cache(maxsize=8)
def loaded(setup: MarkdownSetup) -> Loaded | None:
    """`load`, once per process and setup: `announce` and the renderer share it."""
    return load(setup)


@functools.lru_cache(maxsize=8)
def announce(setup: MarkdownSetup) -> bool:
    """Say once (per process and config) what `load` leaves out; False when Python-Markdown
    cannot render at all here (the pages are then read with the CommonMark reader)."""
    ready = loaded(setup)
    if ready is None:
        log.warning("Python-Markdown cannot render here: reading the MkDocs pages with the CommonMark reader "
                    "(admonitions, content tabs and other extension blocks are not seen)")
        return False
    for problem in ready.problems:
        log.warning("%s", problem)
    for note in ready.notes:
        log.info("%s", note)
    return True


@functools.lru_cache(maxsize=8)
def fingerprint(setup: MarkdownSetup) -> str:
    """`setup.key` and the versions of what renders with it (Python-Markdown, the extensions'
    distributions): an upgrade renders differently, so the extraction cache must not reuse."""
    from importlib import metadata

    distributions = metadata.packages_distributions()
    tops = {"markdown", "mkdocs", *(name.split(".")[0].replace("-", "_") for name in setup.extensions)}
    versions = []
    for top in sorted(tops):
        for dist in sorted(distributions.get(top, ())):
            try:
                versions.append(f"{dist}={metadata.version(dist)}")
            except metadata.PackageNotFoundError:
                continue
    return f"{setup.key}:{','.join(versions)}"




def markdown_setup_for(file: Path, *, trust_project_code: bool = False) -> MarkdownSetup | None:
    """The Markdown setup of the MkDocs project whose `docs_dir` holds `file` (the nearest
    mkdocs.yml/mkdocs.yaml above it), or None: the fixer reads a page the way the check read it."""
    if file.suffix.lower() not in (".md", ".markdown", ".mdown", ".mkd"):
        return None
    real = file.resolve()
    for directory in real.parents:
        found = _project_in(directory, trust_project_code)
        if found is not None and real.is_relative_to(found[0]):
            return found[1] if announce(found[1]) else None
        if (directory / ".git").exists():
            return None
    return None


@functools.lru_cache(maxsize=32)
def _project_in(directory: Path, trust_project_code: bool) -> tuple[Path, MarkdownSetup] | None:
    """(docs_dir, setup) of the MkDocs config in `directory`, if it has a readable one."""
    from ...errors import LinkfixError
    from ..config.load import read_config

    for name in CONFIG_NAMES:
        config = directory / name
        if config.is_file():
            try:
                project = read_config(config)
            except LinkfixError as exc:
                log.debug("%s: not read as a MkDocs config: %s", config, exc)
                return None
            return project.docs_dir, setup_of(dataclasses.replace(project, trust_project_code=trust_project_code))
    return None
