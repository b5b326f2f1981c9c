"""A MkDocs config's `nav` entries checked as links: each names a page of the build (every page
of the site links to it), from the docs directory's root, as MkDocs reads it; and the entries of
plugins' nav files (awesome-nav's `.nav.yml`, from the file's directory; literate-nav's
SUMMARY.md, whose links are entries: `nav_document_targets`). An entry naming a directory (a
literate-nav or awesome-nav section) must name a directory of the docs.

An entry is resolved as a link written on `index.md` of the docs would be (the docs-relative
path it is), so what the build makes counts as for any link: `exclude_docs`, pages plugins and
gen-files scripts make, a theme's files. A missing page is `broken` at the entry's line and
column in the config that writes it; where a configured plugin linkfix does not know could have
made the page, `unverified`, naming the plugins.

Nav entries are documents of their own (`nav_documents`), read after the pages: they are
resolved, checked and suggested for as every link is (suggestions say where the page went);
`linkfix fix` never edits one (fix/plan.py): a replacement would have to be valid YAML in its
place, and the nav's shape is the maintainers'.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..files.read import display_path
from ..inputs.sources import Project
from ..mkdocs.structure.nav import NavEntry, is_web_link, nav_entries
from ..model import NAV_TAG, CheckResult, Dialect, Document, Link, LinkKind, Page, Reason, Scope, Span, Status
from .local import LocalChecker
from .targets import Target

#: Plugins known to make no page a nav could name, or whose pages linkfix knows already
#: (mkdocs.made, mkdocs.plugins.blog, mkdocs.plugins.i18n). Any other plugin may make one.
PLUGINS_KNOWN = frozenset({
    "search", "coverage", "tags", "blog", "i18n", "static-i18n", "gen-files", "monorepo", "print-site", "rss", "llmstxt", "offline",
    "privacy", "social", "meta", "info", "optimize", "typeset", "group", "mkdocstrings", "autorefs", "literate-nav",
    "section-index", "awesome-pages", "awesome-nav", "redirects", "macros", "glightbox", "minify", "minify-html",
    "git-revision-date", "git-revision-date-localized", "git-authors", "git-committers", "include-markdown",
    "markdown-exec", "exclude", "exclude-search", "mike", "mermaid2", "termynal", "table-reader", "open-in-new-tab",
    "swagger-ui-tag", "render_swagger", "neoteroi.mkdocsoad", "codeinclude", "badges", "caption", "enumerate-headings",
    "kroki", "drawio", "plantuml", "d2", "mkdocs-video", "ezlinks", "roamlinks",
    "autolinks", "mkdocs-jupyter", "bibtex", "spellcheck", "htmlproofer", "linkfix",
})
#: A nav entry's anchor text in every report (its tag is model.NAV_TAG).
NAV_ANCHOR = "nav entry"


def nav_documents(project: Project) -> list[tuple[str, Document]]:
    """The config's `nav` entries, and those of plugins' nav files (awesome-nav's `.nav.yml`), as
    documents of links tagged NAV_TAG, one per file that writes them: they are read after the
    pages, and resolved (`nav_targets`), checked, suggested for and reported as every link is.
    Keyed as the pipeline keys documents: root-relative, or absolute for a file outside the root."""
    mk, site = project.mkdocs, project.mkdocs_files
    if mk is None or site is None:
        return []
    by_file: dict[Path, list[NavEntry]] = {}
    for entry in (*nav_entries(mk.config_file), *site.plugin_nav):
        by_file.setdefault(entry.config, []).append(entry)
    documents = []
    for file, entries in by_file.items():
        shown = display_path(file)
        page = Page(path=shown, title=file.name, dialect=Dialect.PYTHON_MARKDOWN)
        links = tuple(Link(url=entry.path, kind=LinkKind.INLINE, anchor_text=NAV_ANCHOR, tag=NAV_TAG, page=page,
                           span=Span(path=shown, line=entry.line, column=entry.column, start=entry.start, end=entry.end))
                      for entry in entries)
        documents.append((project.relative(file) or str(file.resolve()), Document(page=page, links=links, is_nav=True)))
    return documents


def nav_targets(local: LocalChecker, page: Page, rel: str, links: Sequence[Link]) -> list[Target]:
    """Where the entries of a nav document (`nav_documents`) lead: from the docs' root for the
    config's, from the file's directory for a plugin's nav file among the docs."""
    assert local.mkdocs_links is not None
    base = "" if Path(rel).is_absolute() else posixpath.dirname(rel)
    plugins = {_short(name) for name in local.project.mkdocs.plugin_configs} if local.project.mkdocs else set()
    sections = bool({"literate-nav", "awesome-nav", "awesome-pages"} & plugins)
    return [nav_entry_target(local, page, link.url, base, directories=sections) for link in links]


def nav_broken(local: LocalChecker, result: CheckResult, path: str) -> CheckResult:
    """A nav entry's broken result, said as the nav's: unverified where a configured plugin
    linkfix does not know could have made the page."""
    mk = local.project.mkdocs
    site = local.mkdocs_links.site if local.mkdocs_links is not None else None
    unknown = sorted({name for name in (mk.plugin_configs if mk else {}) if _short(name) not in PLUGINS_KNOWN}
                     | set(site.unknown_pages if site else ()))
    return _nav_broken(result, path, unknown)


def nav_entry_target(local: LocalChecker, page: Page, path: str, base: str, *, directories: bool = True) -> Target:
    """Where a nav entry written relative to the docs directory `base` leads: a page, as a
    Markdown link of that directory would; with a nav plugin that makes sections of directories
    (`directories`), a directory when it names one of the docs' directories, or ends in `/`
    (written relative to the docs)."""
    assert local.mkdocs_links is not None
    site = local.mkdocs_links.site
    if is_web_link(path):  # an external link, before the rules of pages and sections
        return local.resolver_for(page, f"{base}/index.md" if base else "index.md")(path)
    directory = posixpath.normpath(posixpath.join(base, path)).strip("/")
    directory = "" if directory == "." else directory
    # A root-relative entry is a link MkDocs leaves as written ("presumably an external resource"),
    # unless it names a directory of the docs.
    names_section = path.endswith("/") and not path.startswith("/")
    if directories and (names_section or (not posixpath.splitext(path)[1] and directory in site.docs_directories)):
        if directory in site.docs_directories:
            return Target(Scope.INTERNAL, directory + "/", result=CheckResult(url=directory + "/", status=Status.OK, checked_at=local.now))
        return Target(Scope.INTERNAL, directory + "/", result=CheckResult(
            url=directory + "/", status=Status.BROKEN, reason=Reason.MISSING_FILE, checked_at=local.now,
            detail=f"no such directory among the docs: {directory}/ (a nav section is made of a directory's pages)"))
    return local.resolver_for(page, f"{base}/index.md" if base else "index.md")(path)


def nav_document_targets(local: LocalChecker, page: Page, rel: str, links: Sequence[Link]) -> list[Target]:
    """The targets of a nav document's links (literate-nav's SUMMARY.md at `rel`): nav entries
    from its directory; a wildcard (`*.md`) stands for pages, and names none."""
    base = posixpath.dirname(rel)
    return [Target(Scope.INTERNAL, link.url, result=CheckResult(url=link.url, status=Status.OK, detail="a nav wildcard"))
            if "*" in link.url else nav_entry_target(local, page, link.url, base) for link in links]


def _nav_broken(result: CheckResult, path: str, unknown: list[str]) -> CheckResult:
    if unknown:
        return replace(result, status=Status.UNVERIFIED, reason=Reason.BUILD_TIME_FILE, detail=(
            f"the nav names {path}, which is not among the docs; the plugin{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(unknown)} may make it when the site is built, and a source check does not know "
            f"{'their' if len(unknown) > 1 else 'its'} pages; to check it, check with the linkfix MkDocs plugin"))
    return replace(result, detail=f"the nav names a page that is not in the built site: {result.detail}")


def _short(name: str) -> str:
    return name.split("/")[-1]
