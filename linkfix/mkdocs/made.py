"""What a MkDocs build makes that its docs sources do not show, as far as a source check can know.

Known exactly (`BuildMade.files`, published like the docs' own files):
- the theme's static files (installed themes: the built-in `mkdocs` and `readthedocs`, Material,
  any other; and the `custom_dir`), as MkDocs copies them, and its static templates
  (`404.html`, `sitemap.xml`, with the `sitemap.xml.gz` the build writes beside it);
- what plugins write whatever the pages say: the search index, mkdocs-llmstxt's files, the
  feeds of mkdocs-rss-plugin, mkdocs-print-site-plugin's print page (the blog's pages: `mkdocs_blog`).

Not known without the project's code or a package that is not installed (`BuildMade.maybe`,
each with what makes it and how to make it checkable): a link to such a file is `unverified`,
never `broken`:
- the files a project hook's `on_files`/`on_post_build`/... may write, and the pages
  mkdocs-gen-files scripts write, narrowed to the names they spell (linkfix.mkdocs.project_code.reading);
- a theme that is not installed here: its static files.

And the project hooks that rewrite pages before or after rendering (`BuildMade.rewriters`): a
page they could touch has its broken links and missing ids `unverified` (mkdocs.pages.extract).
"""

from __future__ import annotations

import fnmatch
import functools
import logging
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..files.containment import describe_project, outside_project, project_of
from ..files.read import Unreadable
from .build_steps.gitignored import ignored_docs_dirs
from .build_steps.scripted import scripted_docs_files
from .config.project import MkDocsProject
from .project_code.reading import FILE_EVENTS, PythonReading, names_match, parse_python, read_python
from .project_code.substitutions import first_change

log = logging.getLogger(__name__)

#: How to make what the project's own code does checkable (the same trust as `mkdocs build`).
TRUST_HINT = ("to check it, run linkfix with --trust-project-code (runs the project's hooks and scripts as `mkdocs build` "
              "does: only for a repository you trust) or check with the linkfix MkDocs plugin")

#: The distribution that provides a theme, for the hint when it is not installed.
THEME_DISTRIBUTIONS = {"material": "mkdocs-material", "terminal": "mkdocs-terminal", "windmill": "mkdocs-windmill",
                       "cinder": "mkdocs-cinder", "dracula": "mkdocs-dracula-theme", "shadcn": "mkdocs-shadcn"}
#: Where a theme that is not installed keeps its static files (what a link into it starts with);
#: a theme not listed may have them anywhere: a link to a stylesheet, script, image or font is unverified.
THEME_STATIC = {"material": ("assets/",)}
# An HTML rewrite's pattern is looked for more loosely than it matches: this check's HTML is not
# MkDocs' to the byte (no permalinks, plain code blocks).
_LOOSE = re.IGNORECASE | re.MULTILINE | re.DOTALL
STATIC_SUFFIXES = frozenset({".css", ".js", ".mjs", ".map", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".webp", ".avif",
                             ".woff", ".woff2", ".ttf", ".otf", ".eot"})


def install_hint(distribution: str) -> str:
    return f"to check it, install {distribution} where linkfix runs (pre-commit: `additional_dependencies: [{distribution}]`)"


@dataclass(frozen=True, slots=True, kw_only=True)
class MaybeMade:
    """Files the build may make that this check cannot list."""

    by: str  # what makes them, as a reader names it ("hook docs/hooks.py", "the theme 'terminal'")
    why: str  # why a source check cannot know ("is not run by a source check", "is not installed here")
    hint: str  # how to make it checkable
    names: tuple[str, ...] = ()  # regular expressions of the paths it may make (pysource.names_match)
    static_prefixes: tuple[str, ...] = ()  # or: the directories of a theme's static files
    any_asset: bool = False  # or: any stylesheet, script, image or font

    def matches(self, path: str) -> bool:
        """Whether the site- or docs-relative `path` may be one of these files."""
        path = path.lstrip("/")
        if self.any_asset and posixpath.splitext(path)[1].lower() in STATIC_SUFFIXES:
            return True
        if any(path.startswith(prefix) for prefix in self.static_prefixes):
            return True
        return names_match(self.names, path)

    def sentence(self) -> str:
        return f"{self.by} may make it when the site is built, and {self.why}; {self.hint}"


@dataclass(frozen=True, slots=True, kw_only=True)
class PageRewriter:
    """A project hook that rewrites pages (its Markdown or HTML) when the site is built."""

    name: str  # the hook file as the config names it
    reading: PythonReading

    def touches(self, markdown: str, html: str = "") -> bool:
        reading = self.reading
        if reading.error or reading.patterns is None:
            return True
        markdown_events = reading.rewrites & {"on_page_read_source", "on_page_markdown"}
        html_events = reading.rewrites & {"on_page_content", "on_post_page"}
        return bool(markdown_events and reading.touches(markdown)) or bool(html_events and reading.touches(html or markdown))

    def changes_from(self, markdown: str, html: str = "") -> int | None:
        """Where in the page's Markdown (as `on_page_markdown` gets it) the hook may first change
        the page: None when it cannot touch it, 0 when it may change any part. Only an
        `on_page_markdown` that substitutes literal patterns is placed (its first match); a
        rewrite of the HTML may change any part of it (what it puts in is placed in HTML this
        check does not render as MkDocs does: a comment it opens or a `<base>` it adds reaches
        links before it too)."""
        reading, starts = self.reading, []
        for event in sorted(reading.rewrites) if not reading.error else ["?"]:
            found = reading.substituted(event)
            if event == "on_page_markdown" and found is not None:
                start = first_change(found, markdown)
            elif event == "on_page_content" and found is not None:
                start = 0 if any(s.first(text, _LOOSE) is not None for s in found for text in (html, markdown)) else None
            else:
                text = markdown if event in ("on_page_read_source", "on_page_markdown") else html or markdown
                start = 0 if reading.error or reading.touches(text) else None
            if start is not None:
                starts.append(start)
        return min(starts, default=None)


@dataclass(slots=True, kw_only=True)
class BuildMade:
    files: dict[str, str] = field(default_factory=dict)  # site-relative path -> what makes it
    # The theme's static files among them: MkDocs adds them to the build's files before pages
    # render (Files.add_files_from_theme), so a Markdown link to one is rewritten as to a docs file.
    theme: set[str] = field(default_factory=set)
    docs: dict[str, str] = field(default_factory=dict)  # docs-relative files a plugin adds to the docs -> what adds it
    maybe: list[MaybeMade] = field(default_factory=list)
    rewriters: list[PageRewriter] = field(default_factory=list)

    def may_make(self, *paths: str) -> MaybeMade | None:
        """What may make one of `paths` (site- or docs-relative) at build time, if anything."""
        for maybe in self.maybe:
            if any(maybe.matches(path) for path in paths if path):
                return maybe
        return None


def build_made(mk: MkDocsProject) -> BuildMade:
    made = BuildMade()
    _theme(mk, made)
    _plugin_files(mk, made)
    _monorepo(mk, made)
    _hooks(mk, made)
    _gen_files(mk, made)
    _ignored(mk, made)
    _scripted(mk, made)
    return made


def _scripted(mk: MkDocsProject, made: BuildMade) -> None:
    by_file: dict[str, list[str]] = {}
    for path, build_file in scripted_docs_files(mk.config_file, mk.docs_dir).items():
        by_file.setdefault(build_file, []).append(re.escape(path))
    for build_file, names in by_file.items():
        made.maybe.append(MaybeMade(by=f"a build step in {build_file} (it names the file)", why="a source check does not run the repository's build steps",
                                    hint="check the built site (linkfix check site/) or with the linkfix MkDocs plugin",
                                    names=tuple(names)))


def _ignored(mk: MkDocsProject, made: BuildMade) -> None:
    prefixes, lines = ignored_docs_dirs(mk.config_file, mk.docs_dir)
    if prefixes:
        made.maybe.append(MaybeMade(by=f"a build step MkDocs' config does not show (the repository's .gitignore lists {', '.join(lines[:3])})",
                                    why="a source check sees only what the repository keeps",
                                    hint="check the built site (linkfix check site/) or with the linkfix MkDocs plugin",
                                    static_prefixes=prefixes))


# -- the theme ---------------------------------------------------------------------------------

def _theme(mk: MkDocsProject, made: BuildMade) -> None:
    custom_dir = str(mk.theme_dirs[0]) if mk.theme_dirs else None
    try:
        if mk.theme_name and mk.theme_name not in _installed_themes():
            # What Theme() finds too, without importing mkdocs.theme (most of MkDocs, click,
            # jinja2: a third of the start-up of a one-page check where the theme is not installed).
            raise LookupError(f"Unrecognised theme name: '{mk.theme_name}'")
        from mkdocs.theme import Theme

        theme = Theme(mk.theme_name or None, custom_dir=custom_dir, static_templates=mk.static_templates)
    except Exception as exc:  # not installed (KeyError), or its own config fails: any type
        log.debug("theme %r: %s", mk.theme_name, exc)
        distribution = THEME_DISTRIBUTIONS.get(mk.theme_name, f"the package of the MkDocs theme '{mk.theme_name}'")
        made.maybe.append(MaybeMade(by=f"the theme '{mk.theme_name}'", why="it is not installed here", hint=install_hint(distribution),
                                    names=("404\\.html", "sitemap\\.xml", "sitemap\\.xml\\.gz"),
                                    static_prefixes=THEME_STATIC.get(mk.theme_name, ()),
                                    any_asset=mk.theme_name not in THEME_STATIC))
        directories = [custom_dir] if custom_dir else []
        templates: set[str] = set(mk.static_templates) | {"sitemap.xml"}
    else:
        directories, templates = list(theme.dirs), set(theme.static_templates)
    by = f"the theme '{mk.theme_name}'" if mk.theme_name else "the theme"
    for path in _theme_files(directories, templates):
        made.files.setdefault(path, by)
        made.theme.add(path)
    for template in templates:
        made.files.setdefault(template, by)
        if template == "sitemap.xml":
            made.files.setdefault("sitemap.xml.gz", "MkDocs")


def _installed_themes() -> set[str]:
    """The names of the installed MkDocs themes (the `mkdocs.themes` entry points), as MkDocs reads them."""
    from ..files.installed import entry_points

    return set(entry_points("mkdocs.themes"))


def _theme_files(directories: list[str], static_templates: set[str]) -> set[str]:
    """The files MkDocs copies from the theme's directories (Files.add_files_from_theme)."""
    patterns = [".*", "*/.*", "*.py", "*.pyc", "*.html", "*readme*", "mkdocs_theme.yml", "locales/*",
                *(f"*{suffix}" for suffix in (".md", ".markdown", ".mdown", ".mkdn", ".mkd")), *static_templates]
    found: set[str] = set()
    for directory in directories:
        for top, subdirectories, names in os.walk(directory):
            subdirectories[:] = [d for d in subdirectories if d != "__pycache__"]
            rel = os.path.relpath(top, directory).replace(os.sep, "/")
            for name in names:
                path = name if rel == "." else f"{rel}/{name}"
                if not any(fnmatch.fnmatch(path.lower(), pattern) for pattern in patterns):
                    found.add(path)
    return found


# -- plugins that write files whatever the pages say --------------------------------------------

def _plugin_files(mk: MkDocsProject, made: BuildMade) -> None:
    plugins = mk.plugin_configs if mk.plugins else {"search": {}}  # no `plugins:` is MkDocs' default, search
    for name, settings in plugins.items():
        short = name.split("/")[-1]
        if short == "search":
            made.files.setdefault("search/search_index.json", "the search plugin")
            if mk.theme_name != "material":
                # Found, not imported: importing the plugin brings most of MkDocs (click, jinja2).
                from importlib.util import find_spec

                spec = find_spec("mkdocs.contrib.search")
                places = list(spec.submodule_search_locations or ()) if spec is not None else []
                for path in _theme_files([str(Path(place) / "templates") for place in places[:1]], set()):
                    made.files.setdefault(path, "the search plugin")
        elif short == "llmstxt":
            made.files.setdefault("llms.txt", "mkdocs-llmstxt")
            full = settings.get("full_output")
            if isinstance(full, str) and full:
                made.files.setdefault(full.lstrip("/"), "mkdocs-llmstxt")
        elif short == "print-site":
            # Its page of the whole site, made as a page of the docs (PrintSitePlugin.on_config).
            basename = settings.get("print_page_basename")
            made.docs.setdefault(f"{basename if isinstance(basename, str) and basename else 'print_page'}.md", "mkdocs-print-site-plugin")
        elif short == "coverage":
            # mkdocs-coverage's page of the coverage report (its on_files; `page_name` is 1.x's older name).
            page = settings.get("page_name") or settings.get("page_path")
            made.docs.setdefault(f"{page if isinstance(page, str) and page else 'coverage'}.md", "mkdocs-coverage")
        elif short == "rss":
            for feed in ("feed_rss_created.xml", "feed_rss_updated.xml", "feed_json_created.json", "feed_json_updated.json"):
                made.files.setdefault(feed, "mkdocs-rss-plugin")


def _monorepo(mk: MkDocsProject, made: BuildMade) -> None:
    """mkdocs-monorepo-plugin: each `!include sub/mkdocs.yml` of the nav (`*include` a glob of
    them) puts that project's docs among these, under its `site_name` (slugified unless it is
    a path already). Their pages are published; their own links are not checked here."""
    if not any(name.split("/")[-1] == "monorepo" for name in mk.plugin_configs):
        return
    base, project = mk.config_file.parent, project_of(mk.config_file)
    for entry in mk.nav_files:
        if entry.startswith("!include "):
            configs = [base / entry[len("!include "):].strip()]
        elif entry.startswith("*include "):
            configs = sorted(base.glob(entry[len("*include "):].strip()))
        else:
            continue
        for config in configs:
            _monorepo_project(config, _shown(config.resolve(), base), project, made)


def _monorepo_project(config: Path, shown: str, project: Path, made: BuildMade) -> None:
    """One included project's docs, read only inside this project (as INHERIT and docs_dir:
    an `!include` or a `docs_dir` leading out of it is refused, naming it, and not read)."""
    from ..files.yamlfile import YamlRefused, read_yaml
    from .config.yaml_file import _TolerantLoader

    if outside_project(config, project):
        raise InputError(f"monorepo: the nav's !include {shown} is outside the project, {describe_project(project)}: not read")
    try:
        data = read_yaml(config, _TolerantLoader)
    except (YamlRefused, OSError) as exc:
        log.warning("monorepo: %s cannot be read (%s): links into its docs are broken here", config, exc)
        return
    if not isinstance(data, dict) or not isinstance(data.get("site_name"), str):
        return
    alias = data["site_name"]
    if not re.fullmatch(r"[a-zA-Z0-9_.\-/]+", alias):
        alias = re.sub(r"[^a-z0-9]+", "-", alias.lower()).strip("-")
    docs_dir = config.parent / str(data.get("docs_dir") or "docs")
    if outside_project(docs_dir, project):
        raise InputError(f"monorepo: {shown}: docs_dir '{data.get('docs_dir')}' is outside the project, {describe_project(project)}: "
                         "linkfix reads nothing outside it")
    for top, subdirectories, names in os.walk(docs_dir):
        subdirectories[:] = [d for d in subdirectories if not d.startswith(".")]
        rel = os.path.relpath(top, docs_dir).replace(os.sep, "/")
        for name in names:
            made.docs.setdefault(f"{alias}/{name}" if rel == "." else f"{alias}/{rel}/{name}", f"the monorepo plugin (from {shown})")


# -- the project's own code --------------------------------------------------------------------

def hook_rewriters(mk: MkDocsProject) -> list[PageRewriter]:
    """The project's hooks that may rewrite pages when the site is built."""
    return [rewriter for rewriter in _hooks(mk, BuildMade()) if rewriter.reading.error or rewriter.reading.rewrites]


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


def _hooks(mk: MkDocsProject, made: BuildMade) -> list[PageRewriter]:
    base, project = mk.config_file.parent, project_of(mk.config_file)
    hooks: list[tuple[str, Path, str | tuple[tuple[str, str], ...]]] = [(_shown(path, base), path, ()) for path in mk.hooks]
    hooks += [(f"{_shown(path, base)} (mkdocs-simple-hooks)", path, how) for path, how in _simple_hooks(mk, project)]
    for name, path, how in hooks:
        reading = PythonReading(path=path, error=how) if isinstance(how, str) else _read_hook(path, project, name, _stamp(path), how)
        if reading.error or reading.rewrites:
            made.rewriters.append(PageRewriter(name=name, reading=reading))
        if reading.error or reading.events & set(FILE_EVENTS):
            made.maybe.append(MaybeMade(by=f"the hook {name}", why="a source check does not run the project's code", hint=TRUST_HINT,
                                        names=reading.names, any_asset=bool(reading.error)))
    return made.rewriters


def simple_hook_targets(plugin_configs: dict[str, dict]) -> list[tuple[str, str, str]]:
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


def _gen_files(mk: MkDocsProject, made: BuildMade) -> None:
    settings = next((s for n, s in mk.plugin_configs.items() if n.split("/")[-1] == "gen-files"), None)
    if settings is None:
        return
    scripts = settings.get("scripts")
    scripts = [scripts] if isinstance(scripts, str) else [s for s in scripts if isinstance(s, str)] if isinstance(scripts, list) else []
    base = mk.config_file.parent
    if mk.trust_project_code:
        from .project_code.run import gen_files

        written = gen_files(mk.config_file, scripts)
        if written is not None:
            made.docs.update(written)
            return
    readings = [read_python(Path(os.path.abspath(base / script)), project_of(mk.config_file)) for script in scripts]
    for script, reading in zip(scripts, readings):
        if reading.error:
            log.warning("mkdocs-gen-files script %s %s: every file it could write is unverified", script, reading.error)
    names = tuple(name for reading in readings for name in reading.names)
    unreadable = any(reading.error for reading in readings) or not names
    made.maybe.append(MaybeMade(by="the mkdocs-gen-files scripts " + ", ".join(scripts), why="a source check does not run the project's code",
                                hint=TRUST_HINT, names=names, any_asset=unreadable, static_prefixes=("",) if unreadable else ()))


def _shown(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
