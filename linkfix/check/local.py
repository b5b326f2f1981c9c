"""Resolve links against the project and check internal targets and fragments (no network).

Rules (documented in the README, "How internal links are resolved"):
- relative links resolve against the linking page's directory; root-relative ones (`/x`)
  against the site root (`root_dir`, else the input directory, else the MkDocs `docs_dir`),
  less the path of `base_url`/`site_url` (`/en/stable/x` with base `https://h/en/stable/`);
- `http(s)://` links that start with `base_url` (or MkDocs `site_url`) are local files too;
- a URL under the site's URL whose first directory is not part of this build (another
  language, version or deployment beside it) is an external URL (not checked: outside-build
  when offline);
- query strings are ignored for files, paths are percent-decoded;
- a directory URL (`dir/`) means `dir/index.html` (built site) or `dir/index.md`,
  `dir/README.md`, `dir.md` (markdown sources, as MkDocs maps them); `page.html` in markdown
  sources may name `page.md`;
- in a MkDocs project read from its config, links are followed as the built site follows them
  (mkdocs/structure/links.py);
- a link that climbs above the site root is broken ("outside-root") and never followed.
"""

from __future__ import annotations

import difflib
import posixpath
import re
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin

from ..config import Config
from ..extract.pages import SitePages
from ..inputs.sources import Project
from ..inputs.walk import MARKDOWN_SUFFIXES
from ..mkdocs.building import TRUST_HINT
from ..mkdocs.structure.links import MkDocsLinks, Reached
from ..model import CheckResult, Page, Reason, Scope, Status, id_key
from .filter import LinkFilter
from .redirected import Redirects
from .site import Deployments, SitePlace, base_place
from .syntax import scheme_result, unparseable
from .targets import Target, internal_target

if TYPE_CHECKING:  # imported by the runs that render templates: it brings in the MkDocs extraction
    from ..mkdocs.config.project import MkDocsProject
    from ..mkdocs.plugins.macros import TemplateTargets

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_READ_THE_DOCS = re.compile(r"https?://[^/]+\.(?:readthedocs\.io|readthedocs-hosted\.com|rtfd\.io)(?:[:/]|$)", re.IGNORECASE)
# Fragments every browser honours without a matching id.
_IMPLICIT_FRAGMENTS = frozenset({"", "top"})
_PAGE_SUFFIXES = MARKDOWN_SUFFIXES | {".html", ".htm", ".xhtml"}


NO_SOURCE = "(no source)"  # what an image without a source is reported as pointing at
MAX_IDS_LISTED = 8  # a missing fragment's detail lists this many of the page's ids


class LocalChecker:
    """Resolves links of one project and checks the internal ones. Results are memoised per
    target, so a site with 170k links does the work once per distinct target."""

    def __init__(self, project: Project, config: Config, pages: SitePages | None = None, link_filter: LinkFilter | None = None):
        self.project = project
        self.config = config
        self.filter = link_filter or LinkFilter(config)  # what is not checked, and why
        # root-relative path -> extracted page; one no input named is extracted when asked for
        self.pages = pages if pages is not None else SitePages()
        site_url = project.mkdocs.site_url if project.mkdocs else project.site_url
        self.site = SitePlace(site_url, config.base_url, self._has_directory, serves=self._serves,
                              versioned=bool(project.mkdocs and project.mkdocs.versioned),
                              deployments=_deployments(project.mkdocs, site_url or config.base_url))
        self.site_path_prefix = self.site.path_prefix  # stripped from root-relative links ('docs/')
        files = project.mkdocs_files
        self.mkdocs_links = MkDocsLinks(files, project.site_files) if files is not None else None
        self.templates: TemplateTargets | None = None  # macros
        if project.mkdocs and project.mkdocs.renders_templates:
            from ..mkdocs.plugins.macros import TemplateTargets

            self.templates = TemplateTargets(project.mkdocs)
        self._resolved: dict[tuple[str, bool] | tuple[str, str, bool], Target] = {}  # of the pages of one directory (resolver_for)
        self._resolved_for: tuple[tuple[str, str], str] | tuple[()] = ()
        self._checked: dict[str, CheckResult] = {}
        self.redirects = Redirects(self)  # mkdocs-redirects' stubs and the host's redirect files
        self.now = time.time()

    # -- resolution ------------------------------------------------------------------------

    def resolve(self, url: str, page: Page, page_rel: str, *, as_written: bool = False) -> Target:
        return self.resolver_for(page, page_rel)(url, as_written)

    def resolver_for(self, page: Page, page_rel: str) -> Callable[..., Target]:
        """A resolve function for the links of one page (its per-page work done once): it takes
        the URL and whether the link is one MkDocs leaves as written whatever it names (raw
        HTML in markdown)."""
        # Links from pages of one directory resolve alike, except same-page ones ("#x", "?q"),
        # and in a MkDocs project the links followed from the page's own URL.
        directory = page_rel if self.mkdocs_links is not None else posixpath.dirname(page_rel)
        base_key = (page.base, page.url if page.url.startswith(("http://", "https://")) else "")
        if (base_key, directory) != self._resolved_for:
            # Only pages of one directory share resolutions, and a run reads a directory's pages
            # one after another: the memo of the others would only grow with the site (issue 26).
            self._resolved, self._resolved_for = {}, (base_key, directory)
        memo = self._resolved

        def resolve(url: str, as_written: bool = False) -> Target:
            # The memo holds one directory's (and base's) resolutions: the key needs no more.
            key = (url, as_written) if url and url[0] not in "#?" else (page_rel, url, as_written)
            target = memo.get(key)
            if target is None:
                target = memo[key] = self._resolve(url.strip(), page, page_rel, as_written)
            return target

        return resolve

    def _resolve(self, url: str, page: Page, page_rel: str, as_written: bool = False) -> Target:
        if not url and posixpath.splitext(page_rel)[1].lower() not in MARKDOWN_SUFFIXES:
            # The only empty URL an HTML page's scan reports (a site's page, a crawled one): an
            # <img> with no source (formats/html). In markdown, `[x]()` is the page itself.
            return Target(scope=Scope.INTERNAL, resolved=NO_SOURCE, result=CheckResult(
                url=NO_SOURCE, status=Status.BROKEN, reason=Reason.NO_SOURCE, detail="an image with no source: its src is empty or missing"))
        unrendered = self.templates.unrendered(url) if self.templates is not None else None
        if unrendered is not None:  # template text left as written (see mkdocs.plugins.macros)
            return Target(scope=Scope.INTERNAL, resolved=url, result=unrendered)
        base, based = page.base, None
        if base and _SCHEME.match(base) is None and not base.startswith("//"):
            # A relative or root-relative <base href> moves the page's links within the site.
            based = base_place(page_rel, base, self.site_path_prefix)
            page_rel, base = (based + "x" if not based or based.endswith("/") else based), ""
        absolute_base = base or (page.url if page.url.startswith(("http://", "https://")) else "")
        if absolute_base and not _SCHEME.match(url):
            url = urljoin(absolute_base, url)
        if url.startswith("//"):
            url = "https:" + url
        scheme = _SCHEME.match(url)
        if scheme:
            name = scheme.group(1).lower()
            if name in ("http", "https"):
                problem = unparseable(url)
                if problem:  # never fetched, online or not
                    return Target(scope=Scope.EXTERNAL, resolved=url, result=CheckResult(
                        url=url, status=Status.BROKEN, reason=Reason.INVALID_URL, detail=problem))
                local = self.site.relative(url)
                if local is None:
                    return Target(scope=Scope.EXTERNAL, resolved=url, fragment=url.partition("#")[2])
                return self._under_site_url(local, url)
            else:
                syntax = scheme_result(url, name)  # a mailto: with no address, a tel: with no number: broken offline
                verdict = syntax if syntax.status is Status.BROKEN else self.filter.scheme(name).result(url)
                return Target(scope=Scope.UNSUPPORTED, resolved=url, result=verdict)
        path_part, _, fragment = url.partition("#")
        path_part = path_part.partition("?")[0]
        path = unquote(path_part)
        links = self.mkdocs_links
        if path.startswith("/") and not (links is not None and not as_written and links.mkdocs.absolute_links_to_docs):
            # On the published site: under the site's path, then in this build or beside it.
            rel = path.lstrip("/")
            prefix = self.site_path_prefix
            if prefix:
                if not (rel + "/").startswith(prefix):
                    return self._outside_build(self.site.origin + path_part + (f"#{fragment}" if fragment else ""))
                rel = rel[len(prefix):]
            if self.site.beside_the_build(rel):
                return self.redirects.host_redirect(rel, fragment) or self._outside_build(self.site.root + rel + (f"#{fragment}" if fragment else ""))
            if links is not None:
                return self._mkdocs("/" + rel, fragment, page_rel, as_written)
            target_rel = rel
        elif self.mkdocs_links is not None:
            return self._mkdocs(path, fragment, page_rel, as_written)
        elif not path and based is not None:  # `#x` leads to the base URL's page, not this one
            return self._internal(based, based.endswith("/"), fragment, page_rel)
        elif not path:
            target_rel = page_rel
        else:
            target_rel = posixpath.join(posixpath.dirname(page_rel), path)
        return self._internal(target_rel, path.endswith("/"), fragment, page_rel)

    def _internal(self, target_rel: str, trailing_slash: bool, fragment: str, page_rel: str, *,
                  detail: str = "link leaves the site root; not followed") -> Target:
        normal = posixpath.normpath(target_rel) if target_rel else "."
        if normal == ".." or normal.startswith("../") or normal.startswith("/"):
            if self.site_path_prefix and normal.startswith(".."):
                # Above the site's own path but on its host: a version or deployment beside this
                # one (mike's ../1.0/).
                above = urljoin(self.site.root, normal + ("/" if trailing_slash else ""))
                return self._outside_build(above + (f"#{fragment}" if fragment else ""))
            return Target(
                scope=Scope.INTERNAL,
                resolved=normal,
                fragment=fragment,
                result=CheckResult(url=normal, status=Status.BROKEN, reason=Reason.OUTSIDE_ROOT, detail=detail),
            )
        normal = "" if normal == "." else normal
        resolved = normal + ("/" if trailing_slash and normal else "")
        return internal_target(resolved + (f"#{fragment}" if fragment else ""), fragment)

    def site_target(self, path: str) -> Target:
        """The target of a path from the site root with its #fragment, as `--dump` prints one
        (`guide/setup.md#install`): where a remap rule sends an internal link (check/filter)."""
        path_part, _, fragment = path.lstrip("/").partition("#")
        return self._internal(path_part, path_part.endswith("/"), fragment, "")

    def _under_site_url(self, local: str, url: str) -> Target:
        """A full URL under the site's URL: a file of this build, unless it is beside it."""
        path_part, _, fragment = local.partition("#")
        path = unquote(path_part.partition("?")[0])
        if self.site.beside_the_build(path, written_in_full=True):
            return self.redirects.host_redirect(path, fragment) or self._outside_build(url)
        if self.mkdocs_links is not None:
            return self._mkdocs_url(path, fragment)
        return self._internal(path, path.endswith("/"), fragment, "")

    def _has_directory(self, path: str) -> bool:
        if self.mkdocs_links is not None:
            return self.mkdocs_links.site.has_directory(path)
        return path in self.project.site_dirs

    def _serves(self, path: str) -> bool:
        if self.mkdocs_links is not None:
            return self.mkdocs_links.site.serve(path) is not None
        return path in self.project.site_files

    def _outside_build(self, absolute: str) -> Target:
        """A URL on the site's host that this build does not hold: checked as an external URL,
        unless the filter says otherwise (offline)."""
        verdict = self.filter.beside_the_build()
        return Target(scope=Scope.EXTERNAL, resolved=absolute, fragment=absolute.partition("#")[2],
                      result=None if verdict.checked else verdict.result(absolute))

    def _mkdocs(self, path: str, fragment: str, page_rel: str, as_written: bool) -> Target:
        """A link of a MkDocs page (path decoded; a root-relative one already without the
        site's path prefix), resolved as the built site follows it (mkdocs.structure.links)."""
        assert self.mkdocs_links is not None
        if not path:  # #fragment or ?query: this page
            return self._internal(page_rel, False, fragment, page_rel)
        reached = self.mkdocs_links.reach(path, page_rel, as_written=as_written, hosted=self._is_hosted)
        return self._reached(reached, fragment, page_rel, trailing_slash=path.endswith("/"))

    def _mkdocs_url(self, path: str, fragment: str) -> Target:
        """A full URL under site_url, in a MkDocs project: what the built site has there."""
        assert self.mkdocs_links is not None
        return self._reached(self.mkdocs_links.reach_url(path, hosted=self._is_hosted), fragment, "", trailing_slash=False)

    def _reached(self, reached: Reached, fragment: str, page_rel: str, *, trailing_slash: bool) -> Target:
        """The target of where a MkDocs link leads."""
        suffix = f"#{fragment}" if fragment else ""
        if reached.kind == "file":
            return self._internal(reached.path, False, fragment, page_rel)
        if reached.kind == "climbs":
            return self._internal(reached.path, trailing_slash, fragment, page_rel, detail=reached.why)
        if reached.kind == "made":
            return self._made(reached.path + suffix, fragment, reached.by)
        if reached.kind == "maybe":
            return self._unverified_file(reached.path + suffix, fragment, reached.why)
        if reached.kind == "hosted":
            return self.redirects.hosted_target(reached.path, fragment)
        return self._broken(reached.path + suffix, fragment, reached.why)

    def _is_hosted(self, built: str) -> bool:
        return self.redirects.host_lookup(built) is not None

    def _made(self, resolved: str, fragment: str, made_by: str) -> Target:
        """A file the build makes beside the docs (a theme's, a plugin's): there, though its ids
        are not known here."""
        if fragment and self.config.include_fragments and fragment not in _IMPLICIT_FRAGMENTS and _is_page_url(resolved.partition("#")[0]):
            return Target(scope=Scope.INTERNAL, resolved=resolved, fragment=fragment, result=CheckResult(
                url=resolved, status=Status.UNVERIFIED, reason=Reason.BUILD_TIME_ID, checked_at=self.now,
                detail=f"{made_by} makes this page when the site is built: its ids are not known to a source check"))
        return Target(scope=Scope.INTERNAL, resolved=resolved, fragment=fragment, result=CheckResult(
            url=resolved, status=Status.OK, detail=f"made by {made_by} when the site is built", checked_at=self.now))

    def _unverified_file(self, resolved: str, fragment: str, detail: str) -> Target:
        return Target(scope=Scope.INTERNAL, resolved=resolved, fragment=fragment, result=CheckResult(
            url=resolved, status=Status.UNVERIFIED, reason=Reason.BUILD_TIME_FILE, detail=detail, checked_at=self.now))

    def _broken(self, resolved: str, fragment: str, detail: str) -> Target:
        return Target(scope=Scope.INTERNAL, resolved=resolved, fragment=fragment, result=CheckResult(
            url=resolved, status=Status.BROKEN, reason=Reason.MISSING_FILE, detail=detail, checked_at=self.now))

    # -- checking --------------------------------------------------------------------------

    def check(self, target: Target) -> CheckResult:
        """Outcome for an internal target (existence of the file, then the fragment)."""
        if target.result is not None:
            return target.result
        result = self._checked.get(target.resolved)
        if result is None:
            path, _, fragment = target.resolved.partition("#")
            result = self._checked[target.resolved] = self._check(path, fragment, target.resolved)
        return result

    def _check(self, path: str, fragment: str, resolved: str) -> CheckResult:
        hosted = self.redirects.hosted(path)
        if hosted is not None:
            return self.redirects.host_redirected(resolved, hosted, fragment)
        found = self.find_file(path)
        if found is None or (self.mkdocs_links is not None and found in self.mkdocs_links.site.stubbed):
            redirect = self.redirects.mapped(found or path)
            if redirect is not None:
                return self.redirects.redirected(resolved, redirect, fragment)
            hosted = self.redirects.host_lookup(path) if found is None and self.mkdocs_links is None and path else None
            if hosted is not None:  # a built site's URL its host redirects (_redirects, vercel.json, netlify.toml)
                return self.redirects.host_redirected(resolved, hosted, fragment)
            return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.MISSING_FILE,
                               detail=f"no such file: {path or '/'}{self._extensionless_hint(path)}", checked_at=self.now)
        if found in self.project.outside_files:  # whether it exists there, and its ids, are not the repository's to tell
            return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.OUTSIDE_ROOT, checked_at=self.now,
                               detail=f"{found} is a symlink that leads outside the project: not followed")
        dead = self.project.dead_symlinks.get(found)
        if dead:  # a server answers 404 there, and a clone has no file either
            return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.MISSING_FILE, checked_at=self.now, detail=f"{found} is {dead}")
        if fragment and self.config.include_fragments and not self.fragment_ok(found, fragment):
            made_by = self.build_time_ids(found, unquote(fragment))
            if made_by:
                return CheckResult(url=resolved, status=Status.UNVERIFIED, reason=Reason.BUILD_TIME_ID,
                                   detail=f"no id '{unquote(fragment)}' in the source of {found}; {made_by}", checked_at=self.now)
            page = self.pages.get(found)
            if page is not None and page.unsure_ids and id_key(unquote(fragment)) in page.unsure_ids:
                return CheckResult(url=resolved, status=Status.UNVERIFIED, reason=Reason.BUILD_TIME_ID, checked_at=self.now,
                                   detail=f"no id '{unquote(fragment)}' in {found} as rendered here: {page.unsure_why}")
            return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.MISSING_FRAGMENT,
                               detail=f"no id '{unquote(fragment)}' in {found}{_ids_listed(self.page_ids(found), unquote(fragment))}",
                               checked_at=self.now)
        return CheckResult(url=resolved, status=Status.OK, checked_at=self.now)

    def find_file(self, path: str) -> str | None:
        """The site file a root-relative path names, following directory-URL conventions."""
        files = self.project.site_files
        return next((c for c in self.file_names(path) if c in files), None)

    def file_names(self, path: str) -> list[str]:
        """The files a root-relative path may name, in the order they are looked for."""
        stem = path.rstrip("/")
        candidates: list[str] = []
        if path and not path.endswith("/"):
            candidates.append(path)
        is_dir = stem in self.project.site_dirs
        if is_dir or path.endswith("/") or not path:
            prefix = f"{stem}/" if stem else ""
            candidates += [prefix + "index.html", prefix + "index.htm"]
            if self.project.markdown:
                candidates += [prefix + "index.md", prefix + "README.md"]
                if stem:
                    candidates.append(stem + ".md")
        if not self.project.markdown and stem and not path.endswith("/") and self.project.hosting.extensionless \
                and not posixpath.splitext(stem)[1]:
            candidates.append(stem + ".html")  # GitHub Pages, Netlify, Cloudflare Pages serve /page from page.html
        if self.project.markdown and stem:
            suffix = posixpath.splitext(stem)[1].lower()
            if suffix in (".html", ".htm"):
                candidates.append(posixpath.splitext(stem)[0] + ".md")
            elif not suffix:
                candidates += [stem + ".md", stem + "/index.md"]
        return candidates

    def _extensionless_hint(self, path: str) -> str:
        """'; page.html is there: ...' for a built site's `/page` its host does not serve."""
        if self.project.markdown or not path or path.endswith("/") or posixpath.splitext(path)[1] \
                or path + ".html" not in self.project.site_files:
            return ""
        return (f"; {path}.html is there, which GitHub Pages, Netlify and Cloudflare Pages serve at this URL but "
                f"{self.project.hosting.describe()} does not: the host key says who serves the site")

    def page_ids(self, file: str) -> frozenset[str] | None:
        """The ids of a page of the site (extracted once), or None when it cannot be read."""
        page = self.pages.page(file)
        return None if page is None else page.ids

    def rewritten(self, result: CheckResult, page: Page) -> CheckResult:
        """A broken result of a link written on a page the build rewrites unseen (a hook):
        unverified, as the page the site shows may not have the link."""
        return replace(result, status=Status.UNVERIFIED, reason=Reason.REWRITTEN_AT_BUILD,
                       detail=f"{result.detail}; but {page.rewritten_by} may rewrite this page when the site is built; {TRUST_HINT}")

    def build_time_ids(self, file: str, fragment: str) -> str:
        """What may make the id `fragment` in `file` when the site is built ('' if nothing)."""
        page = self.pages.get(file)
        if page is None or (page.build_ids_below and not fragment.startswith(tuple(page.build_ids_below))):
            return ""
        return page.build_ids

    def fragment_ok(self, file: str, fragment: str) -> bool:
        if fragment in _IMPLICIT_FRAGMENTS or fragment.startswith(":~:"):
            return True  # `#top` and text fragments need no id
        suffix = posixpath.splitext(file)[1].lower()
        if suffix not in _PAGE_SUFFIXES or (suffix in MARKDOWN_SUFFIXES and not self.project.markdown):
            # fragments of images, PDFs, ... are not ids we can see; a built site serves its
            # .md files as text (mkdocs-llmstxt writes them): their "ids" are no element's
            return True
        ids = self.page_ids(file)
        if ids is None:
            return True  # unreadable target: its own read error is reported elsewhere
        return fragment in ids or unquote(fragment) in ids


def _deployments(mk: MkDocsProject | None, site_url: str) -> Deployments | None:
    """What a family project says is deployed beside its build (None: no project to ask)."""
    if mk is None:
        return None
    prefix = site_url if site_url.endswith("/") else site_url + "/"
    rels = [url[len(prefix):].partition("#")[0].partition("?")[0] for url in mk.named_urls if site_url and url.startswith(prefix)]
    named = frozenset(rel.rsplit("/", 1)[0] + "/" for rel in rels if "/" in rel)  # the directory each names
    languages = any(plugin.split("/")[-1] in ("i18n", "static-i18n") for plugin in mk.plugins)
    # Read the Docs serves every version and language of a project beside each other (/en/latest/).
    read_the_docs = bool(_READ_THE_DOCS.match(site_url)) or any(
        (mk.config_file.parent / name).is_file() for name in (".readthedocs.yaml", ".readthedocs.yml"))
    return Deployments(versioned=mk.versioned or read_the_docs, languages=languages or read_the_docs, named=named)


def _ids_listed(ids: frozenset[str] | None, fragment: str) -> str:
    """'; its ids: #a, #b, #c' (the ones spelled most like `fragment` first, MAX_IDS_LISTED at
    most, then how many more): what a reader picks the right id from, without opening the page."""
    if not ids:
        return "; it has no ids"
    wanted = fragment.lower()
    ranked = sorted(ids, key=lambda i: (-difflib.SequenceMatcher(None, wanted, i.lower()).ratio(), i))
    shown = ", ".join(f"#{i}" for i in ranked[:MAX_IDS_LISTED])
    more = f" and {len(ids) - MAX_IDS_LISTED} more" if len(ids) > MAX_IDS_LISTED else ""
    return f"; its ids: {shown}{more}"


def _is_page_url(path: str) -> bool:
    return path == "" or path.endswith("/") or posixpath.splitext(path)[1].lower() in (".html", ".htm", "")
