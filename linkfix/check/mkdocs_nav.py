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

Findings are added after suggestions, and `linkfix fix` never edits a nav entry (fix/plan.py): a
replacement would have to be valid YAML in its place, and the nav's shape is the maintainers'.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import replace

from ..files.read import display_path
from ..inputs.sources import Project
from ..mkdocs.structure.nav import nav_entries
from ..model import NAV_TAG, CheckResult, Dialect, Link, LinkKind, LinkResult, Page, Reason, Scope, Span, Status
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


def nav_results(project: Project, local: LocalChecker) -> list[LinkResult]:
    """Each page entry of the config's `nav`, checked as a link of the docs' root."""
    mk = project.mkdocs
    if mk is None or local.mkdocs_links is None:
        return []
    unknown = sorted({name for name in mk.plugin_configs if _short(name) not in PLUGINS_KNOWN} | set(local.mkdocs_links.site.unknown_pages))
    pages: dict[str, Page] = {}
    results = []
    sections = bool({"literate-nav", "awesome-nav", "awesome-pages"} & {_short(name) for name in mk.plugin_configs})
    for entry in (*nav_entries(mk.config_file), *local.mkdocs_links.site.plugin_nav):
        shown = display_path(entry.config)
        page = pages.setdefault(shown, Page(path=shown, title=entry.config.name, dialect=Dialect.PYTHON_MARKDOWN))
        link = Link(url=entry.path, kind=LinkKind.INLINE, anchor_text=NAV_ANCHOR, tag=NAV_TAG, page=page,
                    span=Span(path=shown, line=entry.line, column=entry.column, start=entry.start, end=entry.end))
        target = nav_entry_target(local, page, entry.path, entry.base, directories=sections)
        result = local.check(target)
        if result.status is Status.BROKEN and target.scope is Scope.INTERNAL:
            result = _nav_broken(result, entry.path, unknown)
        results.append(LinkResult(link=link, resolved=target.resolved, scope=target.scope, result=result))
    return results


def nav_entry_target(local: LocalChecker, page: Page, path: str, base: str, *, directories: bool = True) -> Target:
    """Where a nav entry written relative to the docs directory `base` leads: a page, as a
    Markdown link of that directory would; with a nav plugin that makes sections of directories
    (`directories`), a directory when it names one of the docs' directories, or ends in `/`
    (written relative to the docs)."""
    assert local.mkdocs_links is not None
    site = local.mkdocs_links.site
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
