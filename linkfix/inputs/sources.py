"""Find the inputs: markdown trees, built HTML sites, MkDocs projects, explicit file lists.

The result is a `Project`: which files to read, which directory is the site root for
root-relative links, and how markdown sources map to built URLs (MkDocs rules).
"""

from __future__ import annotations

import functools
import logging
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Config
from ..config.patterns import RepositoryPattern, repository_pattern
from ..errors import InputError
from ..files.containment import git_top
from ..files.read import display_path
from ..mkdocs.config.dialect import CONFIG_NAMES
from ..mkdocs.config.load import is_config, read_config
from ..mkdocs.config.project import MkDocsProject
from .hosting import PLAIN, Hosting, served
from .project_dir import built_site, left_out_note, project_of_directory
from .site_tree import index_tree
from .walk import HTML_SUFFIXES, MARKDOWN_SUFFIXES, SKIP_DIRS, is_excluded, nothing_read, outside_reason, say_unread_rst, walk

if TYPE_CHECKING:
    from ..formats.host_redirects import HostRedirects
    from ..mkdocs.structure.files import MkDocsFiles

log = logging.getLogger(__name__)

# Files at the top of a directory that mark it as a built site (MkDocs, Sphinx, Hugo, ...):
# markdown files in it are then assets (mkdocs-llmstxt writes them), not pages.
BUILT_SITE_MARKERS = ("index.html", "404.html", "sitemap.xml", "sitemap.xml.gz")


@dataclass(slots=True, kw_only=True)
class Project:
    """What to read and how to resolve what is read."""

    files: list[Path]  # every file to extract links from
    root: Path  # site root: root-relative links resolve here; nothing outside is followed
    markdown: bool  # sources are markdown (links to .md files) rather than built HTML
    mkdocs: MkDocsProject | None = None
    # What MkDocs publishes and where, when the root is the docs_dir of `mkdocs` (set by
    # `collect`): links are then resolved as the built site serves them (mkdocs/structure/links.py).
    mkdocs_files: MkDocsFiles | None = None
    site_files: frozenset[str] = frozenset()  # every file under root, root-relative posix paths
    site_dirs: frozenset[str] = frozenset()  # every directory under root, root-relative
    outside_files: frozenset[str] = frozenset()  # site files that are symlinks leading out of the project (`refusal`)
    dead_symlinks: dict[str, str] = field(default_factory=dict)  # site files that are symlinks leading nowhere -> why
    errors: list[str] = field(default_factory=list)  # inputs skipped, with the reason
    # Files are read only from under this directory (default: root), through no SKIP_DIRS
    # directory: a symlink in the docs cannot make linkfix read (and report) ../.git/config.
    boundary: Path | None = None
    # Where a built site is published, when base_url does not say: found by `site_url_of`.
    site_url: str = ""
    # Who serves a built site (whether /page serves page.html) and the redirects its files
    # (_redirects, vercel.json, netlify.toml) keep alive: inputs/hosting.
    hosting: Hosting = PLAIN
    host_redirects: HostRedirects | None = None

    def refusal(self, path: Path) -> str | None:
        """Why `path` must not be read, or None when it may be."""
        return outside_reason(path, self.boundary or self.root)

    def relative(self, path: Path) -> str | None:
        """Root-relative posix path of a file, or None when it is outside the root. A file that
        is a symlink keeps its own name: MkDocs builds `docs/contributing.md ->
        ../CONTRIBUTING.md` as contributing/, and its relative links start from there, as a web
        server's links from a symlinked page do (whether a symlink may be read at all is
        decided when the files are collected, by its real path)."""
        parent = path.parent
        # (a relative directory resolves against the working directory, which may change: the
        # memo is keyed by the absolute directory)
        in_directory = _resolved_directory(parent if parent.is_absolute() else Path(os.getcwd(), parent)) / path.name
        try:
            return in_directory.relative_to(self.root).as_posix()
        except ValueError:
            pass
        try:  # the file itself resolved only now: a resolution per file was 3% of a site's check
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None


@functools.lru_cache(maxsize=4096)
def _resolved_directory(directory: Path) -> Path:
    """`directory` with its symlinks resolved, once per directory (a site's pages share a few:
    resolving each page's was 5% of an offline check of python3.11-doc)."""
    return directory.resolve()


def collect(inputs: list[str], config: Config) -> Project:
    """Turn command-line inputs into a Project, or raise InputError with a clear message
    (also when there is nothing to read: a check of zero files proves nothing)."""
    if not inputs:
        raise InputError("nothing to check: give a directory, files, or a mkdocs.yml or zensical.toml")
    paths = [Path(i) for i in inputs]
    for p in paths:
        if not p.exists() and not p.is_symlink():
            raise InputError(f"no such file or directory: {p}")
    excluded = [repository_pattern(p, origin="the config's exclude_path") for p in config.exclude_path]

    if len(paths) == 1 and paths[0].is_file() and is_config(paths[0]):
        return _mkdocs_project(read_config(paths[0], generator=config.generator), config, excluded)
    for p in paths:
        if p.is_file() and p.suffix.lower() in (".yml", ".yaml", ".toml"):
            if is_config(p):
                raise InputError(f"{p}: a MkDocs or Zensical config is checked on its own: give it as the only input")
            raise InputError(f"{p}: not a MkDocs or Zensical config (no site_name, docs_dir, nav, theme or plugins, "
                             "INHERIT followed; for TOML, in its [project] table) and not a documentation file")

    file_list = all(not p.is_dir() for p in paths)
    if not config.root_dir and len(paths) == 1 and paths[0].is_dir():
        mk = project_of_directory(paths[0], generator=config.generator)
        if mk is not None:  # `linkfix check .` in the project's root: as its config, its build left out (said)
            return _directory_project(paths[0], mk, config, excluded)
    if not config.root_dir:
        # Pages, or directories, of a MkDocs project's docs_dir (what pre-commit passes, or
        # `linkfix check docs`): checked by MkDocs' rules, as the site that is published from them.
        mk = enclosing_mkdocs(paths, generator=config.generator)
        if mk is not None:
            none_read: list[str] = []
            given = _files_of(paths, mk, excluded, config, none_read)
            if given is not None and not given and none_read:
                raise InputError("; ".join(none_read))
            return _mkdocs_project(mk, config, excluded, given=given, errors=none_read)
    if config.root_dir:
        root = config.path(config.root_dir)
    elif len(paths) == 1 and paths[0].is_dir():
        root = paths[0]
    else:
        # From the paths as given: a symlink among them must not move the root to its target.
        common = Path(os.path.commonpath([os.path.abspath(p if p.is_dir() else p.parent) for p in paths]))
        root = (git_top(common) or common) if file_list else common
    if not root.is_dir():
        raise InputError(f"root_dir: not a directory: {root}")
    # Reads stay under the root and the directories named on the command line; a file named
    # there (pre-commit passes every changed file) is read only if its real path is inside too,
    # or inside the git work tree holding the root (a README.md beside `root_dir: docs`). A
    # file's own directory does not count: named through a directory symlink, it is elsewhere.
    named = [os.path.realpath(p) for p in paths if p.is_dir()]
    top = git_top(root) if file_list else None
    boundary = Path(os.path.commonpath([os.path.realpath(root), *named, *([os.path.realpath(top)] if top else [])]))
    files: list[Path] = []
    skipped: list[str] = []
    empty: list[str] = []  # the directories given that hold nothing to read
    site_url = ""
    for p in paths:
        if p.is_dir():
            found = list(walk(p, excluded, config.gitignore, suffixes=MARKDOWN_SUFFIXES | HTML_SUFFIXES,
                              boundary=boundary, skipped=skipped))
            if is_built_site(p, found):
                # A built site: its .md files are assets served as text (mkdocs-llmstxt), not pages.
                found = [f for f in found if f.suffix.lower() not in MARKDOWN_SUFFIXES]
                if len(paths) == 1 and not config.base_url:
                    from .site_url import published_at

                    site_url = published_at(p)
            if not found:  # an input error of its own: the other inputs are still checked
                empty.append(nothing_read(p, excluded, config.gitignore, MARKDOWN_SUFFIXES | HTML_SUFFIXES))
            files.extend(found)
        elif not is_excluded(p, excluded):
            reason = outside_reason(p, boundary)
            if reason is None:
                files.append(p)
            else:
                skipped.append(f"{display_path(p)}: {reason}")
                log.warning("skipping %s: %s", p, reason)
    if not files and empty:
        raise InputError("; ".join(empty))
    for message in empty:
        log.warning("%s", message)
    skipped += empty
    if not files:
        raise InputError(f"nothing to read: every file given is {'outside the project' if skipped else 'excluded by exclude_path'}"
                         + (f" ({skipped[0]})" if skipped else ""))
    markdown_count = sum(f.suffix.lower() in MARKDOWN_SUFFIXES for f in files)
    markdown = markdown_count * 2 >= len(files)
    project = _finish(Project(files=files, root=root.resolve(), markdown=markdown, errors=skipped, boundary=boundary, site_url=site_url))
    if not markdown:
        project.hosting, project.host_redirects = served(project.root, project.site_files, config.host, project.site_url or config.base_url)
    for p in paths:
        if p.is_dir():
            say_unread_rst(p, excluded, config.gitignore)
    return project


def text_project(config: Config) -> Project:
    """The project of a document read from stdin and nothing else: no file to read; its
    relative links resolve from `root_dir`, else the working directory."""
    root = config.path(config.root_dir) if config.root_dir else Path.cwd()
    if not root.is_dir():
        raise InputError(f"root_dir: not a directory: {root}")
    return _finish(Project(files=[], root=root.resolve(), markdown=True))


def _mkdocs_project(mk: MkDocsProject, config: Config, excluded: list[RepositoryPattern], *,
                    given: list[Path] | None = None, errors: list[str] | None = None) -> Project:
    """A MkDocs project: its docs_dir walked (or the `given` files of it), resolved the way
    MkDocs renders links when the root is the docs_dir (MkDocsFiles)."""
    from ..mkdocs.structure.files import MkDocsFiles

    mk = replace(mk, trust_project_code=config.trust_project_code)
    for note in mk.notes:
        log.warning("%s", note)
    root = (Path(config.path(config.root_dir)) if config.root_dir else mk.docs_dir).resolve()
    # What MkDocs itself builds from: the project directory (docs/index.md -> ../README.md
    # is a common idiom), or wider when docs_dir or root_dir is set outside it.
    boundary = Path(os.path.commonpath([mk.config_file.parent.resolve(), mk.docs_dir, root]))
    skipped: list[str] = list(errors or ())
    for message in skipped:
        log.warning("%s", message)
    if given is None:
        files = list(walk(mk.docs_dir, excluded, config.gitignore, suffixes=MARKDOWN_SUFFIXES, boundary=boundary, skipped=skipped))
    else:
        files = [p for p in given if not is_excluded(p, excluded)]
    if not files:
        if given is not None:
            raise InputError("nothing to read: every file given is excluded by exclude_path")
        raise InputError(nothing_read(mk.docs_dir, excluded, config.gitignore, MARKDOWN_SUFFIXES, what=f"{mk.config_file} docs_dir "))
    project = _finish(Project(files=files, root=root, markdown=True, mkdocs=mk, errors=skipped, boundary=boundary))
    if root == mk.docs_dir:
        site = project.mkdocs_files = MkDocsFiles(mk, project.site_files)
        if given is None:  # files named one by one are checked whatever MkDocs does with them
            published = [f for f in files if project.relative(f) not in site.excluded]
            if not published:
                why = site.excluded[project.relative(files[0]) or ""]
                raise InputError(f"{display_path(mk.docs_dir)}/: none of the {len(files)} markdown files is a page MkDocs "
                                 f"publishes (e.g. {display_path(files[0])}: {why})")
            if len(published) < len(files):
                log.info("%d of %d markdown files are not published by MkDocs (exclude_docs, drafts, theme templates, ...): "
                         "not checked", len(files) - len(published), len(files))
            project.files = published
    return project


def _directory_project(directory: Path, mk: MkDocsProject, config: Config, excluded: list[RepositoryPattern]) -> Project:
    """The project whose config `directory` holds, and the note on what it leaves out there."""
    project = _mkdocs_project(mk, config, excluded)
    site = built_site(mk)
    leaves = [mk.docs_dir, *([site.resolve()] if site is not None else [])]
    outside = [f for f in walk(directory, excluded, config.gitignore, suffixes=MARKDOWN_SUFFIXES)
               if not any(Path(os.path.realpath(f)).is_relative_to(leave) for leave in leaves)]
    log.warning("%s", left_out_note(directory, mk, site, outside))
    return project


def _files_of(paths: list[Path], mk: MkDocsProject, excluded: list[RepositoryPattern], config: Config,
              empty: list[str]) -> list[Path] | None:
    """The markdown files `paths` name (a directory walked), or None for the whole docs_dir. A
    directory with none of them is said in `empty`, and leaves the others to be checked."""
    if any(p.is_dir() and Path(os.path.realpath(p)) == mk.docs_dir for p in paths):
        return None
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = list(walk(path, excluded, config.gitignore, suffixes=MARKDOWN_SUFFIXES, boundary=mk.docs_dir))
            if not found:
                empty.append(nothing_read(path, excluded, config.gitignore, MARKDOWN_SUFFIXES))
            files += found
        else:
            files.append(path)
    return files


def project_inputs(paths: list[str]) -> list[str]:
    """The inputs that hold every link to `paths` (files, which may no longer exist): the
    family config whose docs_dir holds them all, else the git work tree's top (else their
    common directory)."""
    real = [Path(os.path.realpath(p)) for p in paths]
    current = Path(os.path.commonpath([p.parent for p in real]))
    while not current.is_dir():
        current = current.parent
    top = git_top(current)
    directory = current
    while True:
        for name in CONFIG_NAMES:
            config = directory / name
            if config.is_file():
                try:
                    mk = read_config(config)
                except InputError:
                    continue
                if all(p.is_relative_to(mk.docs_dir) for p in real):
                    return [str(config)]
        if directory == top or directory.parent == directory:
            break
        directory = directory.parent
    return [str(top or current)]


def enclosing_mkdocs(paths: list[Path], *, generator: str = "") -> MkDocsProject | None:
    """The family project whose docs_dir holds every one of `paths` (files or directories), looked
    for from their common directory up to the git work tree's top, each directory's configs in the
    order the generators read them (CONFIG_NAMES): what pre-commit passes is then checked by its
    generator's rules."""
    real = [Path(os.path.realpath(p)) for p in paths]
    current = Path(os.path.commonpath([p.parent for p in real]))
    top = git_top(current)
    while True:
        for name in CONFIG_NAMES:
            config = current / name
            if config.is_file():
                try:
                    mk = read_config(config, generator=generator)
                except InputError as exc:
                    log.warning("not using %s for the files given: %s", config, exc)
                    continue
                if all(p.is_relative_to(mk.docs_dir) for p in real):
                    log.info("the files are in the docs_dir of %s: checked by %s's rules", config, mk.dialect.name)
                    return mk
        if current == top or current.parent == current:
            return None
        current = current.parent


def is_built_site(directory: Path, found: list[Path]) -> bool:
    """A directory of mostly HTML files with the top-level files a site generator writes."""
    html = sum(f.suffix.lower() in HTML_SUFFIXES for f in found)
    return html * 2 > len(found) and any((directory / marker).is_file() for marker in BUILT_SITE_MARKERS)


def _finish(project: Project) -> Project:
    """Index every file and directory under the root once, so resolution never stats (site_tree)."""
    boundary = project.boundary or project.root
    tree = index_tree(project.root, SKIP_DIRS, lambda path: outside_reason(path, boundary))
    project.site_files, project.site_dirs = tree.files, tree.dirs
    project.outside_files, project.dead_symlinks = tree.outside, tree.dead
    return project


