"""Which files of a MkDocs `docs_dir` the build publishes, and at which URL (MkDocs 1.6 rules).

- Pages are the Markdown files; every other file is copied as it is (an asset).
- Left out: `exclude_docs` plus MkDocs' own defaults (`.*`, `/templates/`), `draft_docs` (not
  built by `mkdocs build`), the mkdocs-exclude plugin's globs and regexes, a theme `custom_dir`
  inside docs_dir (templates, not documentation), and a `README.md` beside an `index.md`.
  `a.md` and `a/index.md` are both built, to one URL: the second written is what it serves.
  `not_in_nav` pages are built (they are only missing from the navigation).
- A page `a/b.md` is served at `a/b/` (`a/b/index.html`) with `use_directory_urls`, else at
  `a/b.html`; `index.md` and `README.md` at their directory. With mkdocs-jupyter, the notebooks
  and scripts it converts (`notebook_pages`) are pages too: `a/index.ipynb` is served at `a/`.
- mkdocs-redirects writes a stub page at the URL each `redirect_maps` key would have had, when
  its target is a page of the build or an http(s) URL: after the build, so over the page of a
  key that still exists (`stubbed`).
- The build makes more files than the docs hold: the theme's static files and templates, what
  plugins write (`mkdocs_made.BuildMade.files`); and may make files a source check cannot list
  (a hook's, a gen-files script's, a theme's that is not installed: `may_make`).

`serve(path)` answers what the built site returns for a site-relative URL path: the page, the
asset, a redirect stub, or nothing.
"""

from __future__ import annotations

import fnmatch
import logging
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Literal, Protocol

from ...config.patterns import PatternError, RepositoryPattern, repository_pattern
from ...formats.host_redirects import read_host_redirects
from ..building import BuildMade, MaybeMade
from ..config.project import MkDocsProject
from ..made import build_made
from ..plugins import configured
from ..plugins.blog import BlogPages, blog_pages
from ..plugins.i18n import i18n_of
from ..plugins.redirects import stubs
from .nav import NavEntry

log = logging.getLogger(__name__)

# mkdocs.utils.markdown_extensions: what MkDocs renders as a page.
PAGE_SUFFIXES = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")
# mkdocs-jupyter: what it may make pages of, and its default `include`.
JUPYTER_SUFFIXES = (".ipynb", ".py")
JUPYTER_INCLUDE = ("*.py", "*.ipynb", "*.md")
DEFAULT_EXCLUDE = (".*", "/templates/")


@dataclass(frozen=True, slots=True)
class Served:
    """What the built site answers for a URL path."""

    kind: Literal["page", "asset", "redirect", "made"]
    target: str  # page/asset: its docs-relative source path; redirect: the redirect_maps key; made: what makes it


class MkDocsFiles:
    def __init__(self, mk: MkDocsProject, docs_files: Iterable[str]) -> None:
        """`docs_files`: every file under docs_dir, docs-relative posix paths."""
        self.mkdocs = mk
        self.directory_urls = mk.use_directory_urls
        self.excluded: dict[str, str] = {}  # docs path -> why MkDocs does not publish it
        self.pages: dict[str, str] = {}  # docs path of a published page -> its URL ("" for the home page)
        self.overwritten: dict[str, str] = {}  # docs path -> the file of another directory built over it, at its URL
        self._by_dest: dict[str, Served] = {}  # built file path -> what is there
        self._directories: set[str] = set()  # directories of the built site ("" for its root)
        exclude = _spec(DEFAULT_EXCLUDE + mk.exclude_docs)
        drafts = _spec(mk.draft_docs) if mk.draft_docs else None
        theme_dirs = [d for d in (_docs_relative(t, mk.docs_dir) for t in mk.theme_dirs) if d is not None]
        regexes = [pattern for pattern in map(_compiled, mk.exclude_regexes) if pattern is not None]
        docs = set(docs_files)
        self.notebooks = notebook_pages(mk, docs)
        self.blog = blog_pages(mk, docs)
        self.i18n = i18n_of(mk, docs)
        # Files published at another place than their own: blog posts and their media, translations.
        self._moved = {**(self.i18n.published if self.i18n is not None else {}), **(self.blog.moved if self.blog is not None else {})}
        for path in sorted(docs, key=_walk_order):
            why = self._left_out(path, exclude, drafts, theme_dirs, regexes)
            if why:
                self.excluded[path] = why
                continue
            dest = self.dest(path)
            earlier = self._by_dest.get(dest)
            if earlier is not None and posixpath.dirname(earlier.target) == posixpath.dirname(path):
                # Two files of one directory, one URL: MkDocs keeps the one it meets last
                # (index.md over README.md) and leaves the other out, with a warning.
                self.excluded[earlier.target] = f"MkDocs leaves it out: it conflicts with {path}"
                self.pages.pop(earlier.target, None)
            elif earlier is not None:
                # a.md and a/index.md: MkDocs compares destinations only within a directory, so
                # it builds both and the one it writes last (a/index.md) is what the URL serves.
                self.overwritten[earlier.target] = path
            if self.is_page(path):
                self.pages[path] = self.url(path)
                self._by_dest[dest] = Served("page", path)
            else:
                self._by_dest[dest] = Served("asset", path)
        self.stubbed: set[str] = set()  # pages mkdocs-redirects writes its stub over (redirect_maps keys that exist)
        for old in stubs(mk.redirects, self.pages):
            # Written after the build (on_post_build), over a page of the same URL if there is one.
            if old in self.pages:
                self.stubbed.add(old)
            self._by_dest[self.dest(old)] = Served("redirect", old)
        if self.i18n is not None:
            for copy, source in self.i18n.fallbacks.items():
                if source not in self.excluded:
                    self._by_dest.setdefault(self.dest(copy), Served("page" if is_page(source) else "asset", source))
        self.made: BuildMade = build_made(mk)
        if self.blog is not None:
            self._add_blog(self.blog)
        for path, by in self.made.docs.items():
            if path not in docs and not self._left_out(path, exclude, drafts, theme_dirs, regexes):
                if is_page(path):
                    self.pages.setdefault(path, self.url(path))
                self._by_dest.setdefault(self.dest(path), Served("made", by))
        for dest, by in self.made.files.items():
            if dest not in self.excluded:
                self._by_dest.setdefault(dest, Served("made", by))
        for dest in self._by_dest:
            parts = dest.split("/")[:-1]
            self._directories.update("/".join(parts[:i]) for i in range(len(parts) + 1))
        plugins = configured(mk)
        # The docs files that are a plugin's navigation (literate-nav's SUMMARY.md), and the nav
        # entries plugins read from files that are not pages (awesome-nav's .nav.yml).
        self.nav_documents: set[str] = set().union(*(plugin.nav_documents(docs) for plugin in plugins))
        self.plugin_nav: list[NavEntry] = [entry for plugin in plugins for entry in plugin.nav_entries(docs)]
        self.unknown_pages = [plugin.name for plugin in plugins if not plugin.knows_its_pages]
        # the directories of the docs, with those of the docs plugins add (a nav section may name one)
        self.docs_directories = frozenset(posixpath.dirname(path) for path in (*docs, *self.made.docs)) | {""}
        self.docs_directories |= {"/".join(d.split("/")[:i]) for d in self.docs_directories for i in range(1, d.count("/") + 1)}
        at_root = frozenset(dest for dest, served in self._by_dest.items() if served.kind == "asset" and "/" not in dest)
        self.host_redirects = read_host_redirects(mk.docs_dir, mk.config_file.parent, at_root)

    # -- where things are published -------------------------------------------------------
    def is_page(self, path: str) -> bool:
        """Whether the docs file `path` is built as a page (Markdown, or a notebook mkdocs-jupyter converts)."""
        return is_page(path) or path in self.notebooks

    def dest(self, path: str) -> str:
        """The built file of a docs file (File.dest_uri)."""
        path = self._moved.get(path, path)
        if not self.is_page(path):
            return path
        parent, name = posixpath.split(path)
        stem = posixpath.splitext(name)[0]
        stem = "index" if stem == "README" else stem
        if not self.directory_urls or stem == "index":
            return posixpath.join(parent, stem + ".html")
        return posixpath.join(parent, stem, "index.html")

    def url(self, path: str) -> str:
        """The site-relative URL of a docs file (File.url; "" for the home page)."""
        dest = self.dest(path)
        directory, name = posixpath.split(dest)
        if self.directory_urls and name == "index.html":
            return f"{directory}/" if directory else ""
        return dest

    def has_directory(self, path: str) -> bool:
        """Whether the built site has the directory `path` (site-relative, no slashes around)."""
        return path in self._directories

    def serve(self, path: str) -> Served | None:
        """What the built site answers for the site-relative URL path `path` (no query or
        fragment, percent-decoded): a directory URL is its index.html; without the slash, a
        directory is redirected to it by the server (with directory URLs only: a page.html
        build is meant to be browsed from files too)."""
        if path == "" or path.endswith("/"):
            return self._by_dest.get(path + "index.html")
        found = self._by_dest.get(path)
        if found is None and self.directory_urls:
            found = self._by_dest.get(path + "/index.html")
        return found

    def _add_blog(self, blog: BlogPages) -> None:
        for view, what in blog.views.items():
            self._by_dest.setdefault(self.dest(view), Served("made", what))
        if blog.unknown:
            prefix = re.escape(blog.blog_dir) + "/.+" if blog.blog_dir else ".+"
            self.made.maybe.append(MaybeMade(by="Material's blog plugin", why=blog.unknown, hint="check with the linkfix MkDocs plugin",
                                             names=(prefix,)))

    def may_make(self, *paths: str) -> MaybeMade | None:
        """What may make one of `paths` (site- or docs-relative) when the site is built, unseen here."""
        return self.made.may_make(*paths)

    def _left_out(self, path: str, exclude: Matcher, drafts: Matcher | None,
                  theme_dirs: list[str], regexes: list[RepositoryPattern]) -> str:
        for directory in theme_dirs:
            if directory == "" or path.startswith(directory + "/"):
                return f"inside the theme's custom_dir ({directory or '.'}/): templates, not documentation"
        if self.i18n is not None and path in self.i18n.unbuilt:
            return "a language the i18n plugin does not build (build: false)"
        if exclude.match_file(path):
            return "excluded by exclude_docs (MkDocs always leaves out names starting with '.' and /templates/)"
        if drafts is not None and drafts.match_file(path):
            return "a draft (draft_docs): not in `mkdocs build`"
        for glob in self.mkdocs.exclude_globs:
            if fnmatch.fnmatchcase(path, glob):
                return f"excluded by the mkdocs-exclude plugin (glob {glob})"
        for regex in regexes:
            if regex.matches(path, "match", otherwise=False):  # one that runs away excludes nothing: the file is checked
                return f"excluded by the mkdocs-exclude plugin (regex {regex.pattern})"
        return ""


def is_page(path: str) -> bool:
    return path.lower().endswith(PAGE_SUFFIXES)


def notebook_pages(mk: MkDocsProject, docs_files: Iterable[str]) -> frozenset[str]:
    """The docs files mkdocs-jupyter publishes as pages (at a page's URL, not as a file): the
    notebooks and scripts its `include` globs match and its `ignore` globs do not, matched as it
    matches them (pathlib's PurePath.match on the source's absolute path). Its `.md` ones (with a
    jupytext kernel) are pages anyway."""
    settings = mk.plugin_configs.get("mkdocs-jupyter")
    if settings is None:
        return frozenset()
    include, ignore = _globs(settings.get("include", JUPYTER_INCLUDE)), _globs(settings.get("ignore", ()))
    found = set()
    for path in docs_files:
        if path.lower().endswith(JUPYTER_SUFFIXES):
            source = PurePath(mk.docs_dir / path)
            if not any(source.match(glob) for glob in ignore) and any(source.match(glob) for glob in include):
                found.add(path)
    return frozenset(found)


def _globs(value: object) -> list[str]:
    return [glob for glob in value if isinstance(glob, str) and glob] if isinstance(value, (list, tuple)) else []


def _walk_order(path: str) -> tuple[tuple[str, ...], bool, str]:
    """The order MkDocs meets docs files in: os.walk top-down with sorted directories, and in
    a directory index/README first (README.md before index.md), then by name."""
    *directories, name = path.split("/")
    return tuple(directories), posixpath.splitext(name)[0] not in ("index", "README"), name


class Matcher(Protocol):
    """What `exclude_docs`-like patterns are read into: pathspec's GitIgnoreSpec or `DefaultExclude`."""

    def match_file(self, path: str) -> bool: ...


def _spec(lines: Iterable[str]) -> Matcher:
    lines = list(lines)
    if tuple(lines) == DEFAULT_EXCLUDE:
        return DefaultExclude()
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


class DefaultExclude:
    """MkDocs' default `exclude_docs` (`.*`, `/templates/`) as GitIgnoreSpec matches it, by hand:
    most projects set no exclude_docs, and importing pathspec was a twentieth of the start-up of
    a one-page check. Held to pathspec's answers in tests/inputs/test_mkdocs_default_exclude.py."""

    def match_file(self, path: str) -> bool:
        parts = path.split("/")
        # `.*`: a file or directory whose name starts with a dot, at any depth; `/templates/`: the
        # top directory `templates` (a file of that name is no directory).
        return any(part.startswith(".") for part in parts) or (parts[0] == "templates" and len(parts) > 1)


def _compiled(pattern: str) -> RepositoryPattern | None:
    try:
        return repository_pattern(pattern, origin="mkdocs-exclude's regex")
    except PatternError as exc:
        log.warning("mkdocs-exclude regex %r ignored: %s", pattern, exc)
        return None


def _docs_relative(directory: Path, docs_dir: Path) -> str | None:
    try:
        rel = directory.relative_to(docs_dir).as_posix()
    except ValueError:
        return None
    return "" if rel == "." else rel
