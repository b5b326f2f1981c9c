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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin

from ..config import Config
from ..inputs.sources import MARKDOWN_SUFFIXES, Project
from ..mkdocs.made import TRUST_HINT
from ..mkdocs.structure.links import MkDocsLinks
from ..model import CheckResult, Page, Reason, Scope, Status, id_key
from .site import Deployments, SitePlace

if TYPE_CHECKING:  # imported by the runs that render templates: it brings in the MkDocs extraction
    from ..formats.host_redirects import HostRedirect
    from ..mkdocs.config.project import MkDocsProject
    from ..mkdocs.plugins.macros import TemplateTargets

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_READ_THE_DOCS = re.compile(r"https?://[^/]+\.(?:readthedocs\.io|readthedocs-hosted\.com|rtfd\.io)(?:[:/]|$)", re.IGNORECASE)
# Fragments every browser honours without a matching id.
_IMPLICIT_FRAGMENTS = frozenset({"", "top"})
_PAGE_SUFFIXES = MARKDOWN_SUFFIXES | {".html", ".htm", ".xhtml"}


@dataclass(frozen=True, slots=True)
class Target:
    """Where a link points once resolved."""

    scope: Scope
    resolved: str  # external: absolute URL (fragment kept); internal: root-relative path[#fragment]
    fragment: str = ""
    result: CheckResult | None = None  # set when resolution alone decides (unsupported, outside root)


_TARGET_SLOTS = tuple(getattr(Target, name).__set__ for name in ("scope", "resolved", "fragment", "result"))


def _internal_target(resolved: str, fragment: str) -> Target:
    """Target(scope=Scope.INTERNAL, resolved=resolved, fragment=fragment), made without the
    frozen dataclass's __init__ (as model.make_link): one per distinct link of a directory."""
    target = object.__new__(Target)
    set_scope, set_resolved, set_fragment, set_result = _TARGET_SLOTS
    set_scope(target, Scope.INTERNAL)
    set_resolved(target, resolved)
    set_fragment(target, fragment)
    set_result(target, None)
    return target


MAX_REDIRECT_MAPS = 10  # redirect_maps entries followed one after another before giving up
MAX_IDS_LISTED = 8  # a missing fragment's detail lists this many of the page's ids


class LocalChecker:
    """Resolves links of one project and checks the internal ones. Results are memoised per
    target, so a site with 170k links does the work once per distinct target."""

    def __init__(self, project: Project, config: Config, pages: dict[str, Page],
                 load_page: Callable[[str], Page | None]):
        self.project = project
        self.config = config
        self.pages = pages  # root-relative path -> extracted page
        self.load_page = load_page  # extracts a target page that was not among the inputs
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
        self._resolved: dict[tuple, Target] = {}  # of the pages of one directory (resolver_for)
        self._resolved_for: tuple = ()
        self._checked: dict[str, CheckResult] = {}
        self._hosted: dict[str, HostRedirect] = {}  # built path the site lacks -> where its host redirects it
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
        unrendered = self.templates.unrendered(url) if self.templates is not None else None
        if unrendered is not None:  # template text left as written (see mkdocs.plugins.macros)
            return Target(scope=Scope.INTERNAL, resolved=url, result=unrendered)
        base = page.base
        if base and _SCHEME.match(base) is None and not base.startswith("//"):
            # A relative <base href> moves the page's directory within the site.
            page_rel = posixpath.join(posixpath.dirname(page_rel), base.rstrip("/") + "/x")
            base = ""
        absolute_base = base or (page.url if page.url.startswith(("http://", "https://")) else "")
        if absolute_base and not _SCHEME.match(url):
            url = urljoin(absolute_base, url)
        if url.startswith("//"):
            url = "https:" + url
        scheme = _SCHEME.match(url)
        if scheme:
            name = scheme.group(1).lower()
            if name in ("http", "https"):
                local = self.site.relative(url)
                if local is None:
                    return Target(scope=Scope.EXTERNAL, resolved=url, fragment=url.partition("#")[2])
                return self._under_site_url(local, url)
            else:
                return Target(
                    scope=Scope.UNSUPPORTED,
                    resolved=url,
                    result=CheckResult(url=url, status=Status.UNSUPPORTED, reason=Reason.scheme(name),
                                       detail=f"{name}: links are not checked"),
                )
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
                return self._host_redirect(rel, fragment) or self._outside_build(self.site.root + rel + (f"#{fragment}" if fragment else ""))
            if links is not None:
                return self._mkdocs("/" + rel, fragment, page_rel, as_written)
            target_rel = rel
        elif self.mkdocs_links is not None:
            return self._mkdocs(path, fragment, page_rel, as_written)
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
        return _internal_target(resolved + (f"#{fragment}" if fragment else ""), fragment)

    def _under_site_url(self, local: str, url: str) -> Target:
        """A full URL under the site's URL: a file of this build, unless it is beside it."""
        path_part, _, fragment = local.partition("#")
        path = unquote(path_part.partition("?")[0])
        if self.site.beside_the_build(path, written_in_full=True):
            return self._host_redirect(path, fragment) or self._outside_build(url)
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
        or, offline, reported as not checked."""
        fragment = absolute.partition("#")[2]
        if not self.config.offline:
            return Target(scope=Scope.EXTERNAL, resolved=absolute, fragment=fragment)
        return Target(scope=Scope.EXTERNAL, resolved=absolute, fragment=fragment, result=CheckResult(
            url=absolute, status=Status.EXCLUDED, reason=Reason.OUTSIDE_BUILD,
            detail="under the site's URL but not part of this build (another language, version or deployment); "
                   "checked as an external URL when online"))

    def _mkdocs(self, path: str, fragment: str, page_rel: str, as_written: bool) -> Target:
        """A link of a MkDocs page (path decoded; a root-relative one already without the
        site's path prefix), resolved as the built site follows it."""
        links = self.mkdocs_links
        assert links is not None
        suffix = f"#{fragment}" if fragment else ""
        if not path:  # #fragment or ?query: this page
            return self._internal(page_rel, False, fragment, page_rel)
        named = posixpath.normpath(posixpath.join(posixpath.dirname(page_rel), path))
        if not as_written:
            docs = links.rewritten(path, page_rel)
            if docs is not None:
                why = links.site.excluded.get(docs)
                if why:
                    return self._broken(docs + suffix, fragment, f"{docs} is not part of the built site: {why}")
                if docs not in links.docs_files:  # a file a plugin puts among the docs (monorepo)
                    return self._made(docs + suffix, fragment, links.site.made.docs[docs])
                # a.md when a/index.md is built over it: the URL shows a/index.md
                return self._internal(links.site.overwritten.get(docs, docs), False, fragment, page_rel)
            if not path.startswith("/") and named in links.mkdocs.redirects:
                # old.md of redirect_maps: reported as redirected (mkdocs-redirects keeps its URL alive)
                return self._internal(named, False, fragment, page_rel)
        if path.startswith("/"):
            found = links.serve(path.lstrip("/"), root_relative=as_written or not links.mkdocs.absolute_links_to_docs)
        else:
            found = links.follow(path, page_rel)
        if not as_written and named.startswith("../") and posixpath.splitext(path)[1].lower() in MARKDOWN_SUFFIXES:
            # A markdown source outside docs_dir is no page of the site, whatever its host serves
            # (MkDocs leaves the link as written; Zensical rewrites it to a page URL it never builds).
            return self._broken(named + suffix, fragment, f"{named} is outside docs_dir: no page of the built site")
        if found.climbs:
            return self._internal(found.built, path.endswith("/"), fragment, page_rel, detail=found.broken)
        if found.path:
            return self._internal(found.path, False, fragment, page_rel)
        if found.made:
            return self._made(found.built + suffix, fragment, found.made)
        maybe = links.site.may_make(*_made_names(named, found.built))
        if maybe is not None:
            return self._unverified_file((found.built or path) + suffix, fragment, maybe.sentence())
        hosted = self._host_redirect(found.built, fragment)
        if hosted is not None:
            return hosted
        if not as_written and not path.startswith("/") and posixpath.splitext(path.rstrip("/"))[1]:
            # A file link MkDocs did not find among the docs (it warns: "not found among
            # documentation files"), and left as written. What is missing is the source file it
            # names, relative to the page's source: that path is the target (the one suggestions
            # look up in the git history and the file list, and reports group by), not where a
            # browser would end up from the page's URL (faq/configure/ + ../a.md: faq/a.md).
            return self._broken(named + suffix, fragment, f"no such file: {named}{links.hint(named)}")
        return self._broken((found.built or path) + suffix, fragment, found.broken)

    def _mkdocs_url(self, path: str, fragment: str) -> Target:
        """A full URL under site_url, in a MkDocs project: what the built site has there."""
        assert self.mkdocs_links is not None
        found = self.mkdocs_links.serve(path)
        suffix = f"#{fragment}" if fragment else ""
        if found.path:
            return self._internal(found.path, False, fragment, "")
        if found.made:
            return self._made(found.built + suffix, fragment, found.made)
        maybe = self.mkdocs_links.site.may_make(*_made_names(path, path))
        if maybe is not None:
            return self._unverified_file(path + suffix, fragment, maybe.sentence())
        hosted = self._host_redirect(found.built, fragment)
        if hosted is not None:
            return hosted
        return self._broken(path + suffix, fragment, found.broken)

    def _host_redirect(self, built: str, fragment: str) -> Target | None:
        """A URL the built site lacks that its host redirects (vercel.json, _redirects): checked
        at its destination when targets are checked (`_host_redirected`)."""
        hosted = self._host_lookup(built) if built else None
        if hosted is None:
            return None
        self._hosted[built] = hosted
        return _internal_target(built + (f"#{fragment}" if fragment else ""), fragment)

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
        hosted = self._hosted.get(path)
        if hosted is not None:
            return self._host_redirected(resolved, hosted, fragment)
        found = self.find_file(path)
        if found is None or (self.mkdocs_links is not None and found in self.mkdocs_links.site.stubbed):
            redirect = self._mkdocs_redirect(found or path)
            if redirect is not None:
                return self._redirected(resolved, redirect, fragment)
            return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.MISSING_FILE,
                               detail=f"no such file: {path or '/'}", checked_at=self.now)
        if found in self.project.outside_files:  # whether it exists there, and its ids, are not the repository's to tell
            return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.OUTSIDE_ROOT, checked_at=self.now,
                               detail=f"{found} is a symlink that leads outside the project: not followed")
        if fragment and self.config.include_fragments and not self._fragment_ok(found, fragment):
            made_by = self._build_time_ids(found, unquote(fragment))
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
        if self.project.markdown and stem:
            suffix = posixpath.splitext(stem)[1].lower()
            if suffix in (".html", ".htm"):
                candidates.append(posixpath.splitext(stem)[0] + ".md")
            elif not suffix:
                candidates += [stem + ".md", stem + "/index.md"]
        return candidates

    def page_ids(self, file: str) -> frozenset[str] | None:
        """The ids of a page of the site (extracted once), or None when it cannot be read."""
        page = self.pages.get(file)
        if page is None:
            page = self.load_page(file)
            if page is None:
                return None
            self.pages[file] = page
        return page.ids

    def _redirected(self, resolved: str, redirect: str, fragment: str) -> CheckResult:
        """A page mkdocs-redirects replaced by a stub: its target must exist, and a #fragment
        (which the stub's script carries over) must be an id of the target page."""
        moved = CheckResult(url=resolved, status=Status.REDIRECTED, reason=Reason.MKDOCS_REDIRECT,
                            detail=f"redirected by mkdocs-redirects to {redirect}",
                            final_url=redirect, permanent=True, checked_at=self.now)
        if _SCHEME.match(redirect):
            return moved
        target, _, own_fragment = redirect.partition("#")
        fragment = fragment or own_fragment
        found = self.find_file(target)
        seen = {target}
        while found is None:  # a map may lead to another mapped page: its stub redirects again
            onward = self._mkdocs_redirect(target)
            if onward is None or len(seen) > MAX_REDIRECT_MAPS:
                return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.MISSING_FILE, checked_at=self.now,
                                   detail=f"redirect_maps sends it to {target}, which does not exist "
                                          "(mkdocs-redirects writes no page for it)")
            if _SCHEME.match(onward):
                return moved
            target, _, own_fragment = onward.partition("#")
            fragment = fragment or own_fragment
            if target in seen:
                return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.REDIRECT_LOOP, checked_at=self.now,
                                   detail=f"redirect_maps loop through {target}")
            seen.add(target)
            found = self.find_file(target)
        if fragment and self.config.include_fragments and not self._fragment_ok(found, fragment):
            return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.MISSING_FRAGMENT, checked_at=self.now,
                               detail=f"redirected by mkdocs-redirects to {target}, which has no id '{unquote(fragment)}'",
                               final_url=redirect)
        return moved

    def _host_redirected(self, resolved: str, hosted: HostRedirect, fragment: str) -> CheckResult:
        """A URL the host redirects (or rewrites): its destination must be on the built site, or
        on another one; a #fragment must be an id of the page it lands on (a browser keeps it
        over a redirect whose destination names none)."""
        links = self.mkdocs_links
        assert links is not None
        how = "rewritten" if hosted.status == 200 else "redirected"
        served = CheckResult(url=resolved, status=Status.OK if hosted.status == 200 else Status.REDIRECTED,
                             reason=Reason.NONE if hosted.status == 200 else Reason.HOST_REDIRECT,
                             detail=f"{how} by {hosted.by} to {hosted.destination}", final_url=hosted.destination,
                             permanent=hosted.status in (301, 308), checked_at=self.now)
        destination = hosted.destination
        for _ in range(MAX_REDIRECT_MAPS):
            path, _, own_fragment = self._site_path(destination).partition("#")
            if _SCHEME.match(path):
                return served  # another site's page: checked there when online (its redirect is the host's word)
            fragment = own_fragment or fragment
            found = links.serve(unquote(path).lstrip("/"))
            if found.made:
                return served
            if found.path:
                file = self.find_file(found.path)
                if file is None:  # a stub of mkdocs-redirects
                    mapped = self._mkdocs_redirect(found.path)
                    return self._redirected(resolved, mapped, fragment) if mapped is not None else served
                if fragment and self.config.include_fragments and not self._fragment_ok(file, fragment):
                    made_by = self._build_time_ids(file, unquote(fragment))
                    return replace(served, status=Status.UNVERIFIED if made_by else Status.BROKEN,
                                   reason=Reason.BUILD_TIME_ID if made_by else Reason.MISSING_FRAGMENT,
                                   detail=f"{how} by {hosted.by} to {destination}, which has no id '{unquote(fragment)}'"
                                          + (f" in its source; {made_by}" if made_by else ""))
                return served
            onward = self._host_lookup(unquote(path).lstrip("/"))
            if onward is None:
                return replace(served, status=Status.BROKEN, reason=Reason.MISSING_FILE, final_url="",
                               detail=f"{how} by {hosted.by} to {destination}, which the built site does not have")
            destination = onward.destination
        return replace(served, status=Status.BROKEN, reason=Reason.REDIRECT_LOOP, final_url="",
                       detail=f"{hosted.by} redirects it more than {MAX_REDIRECT_MAPS} times")

    def _host_lookup(self, built: str) -> HostRedirect | None:
        """Where the site's host sends the built path `built`, if it redirects it."""
        redirects = self.mkdocs_links.site.host_redirects if self.mkdocs_links is not None else None
        # The host's paths start at its root: above a site_url path (`/docs/`), with it.
        return redirects.lookup(self.site_path_prefix + built) if redirects is not None else None

    def _site_path(self, destination: str) -> str:
        """A redirect's destination as a site path when it is on this site (`/x/`, or a URL
        under site_url), else as it is."""
        if destination.startswith(self.site.root) and self.site.root.startswith(("http://", "https://")):
            return "/" + destination[len(self.site.root):]
        if _SCHEME.match(destination):
            return destination
        path = destination.lstrip("/")
        return "/" + (path[len(self.site_path_prefix):] if self.site_path_prefix and path.startswith(self.site_path_prefix) else path)

    def _mkdocs_redirect(self, path: str) -> str | None:
        mk = self.project.mkdocs
        if mk is None or not mk.redirects:
            return None
        stem = path.rstrip("/")
        for key in (path, stem, stem + ".md", stem + "/index.md", posixpath.splitext(stem)[0] + ".md"):
            if key in mk.redirects:
                return mk.redirects[key]
        return None

    def rewritten(self, result: CheckResult, page: Page) -> CheckResult:
        """A broken result of a link written on a page the build rewrites unseen (a hook):
        unverified, as the page the site shows may not have the link."""
        return replace(result, status=Status.UNVERIFIED, reason=Reason.REWRITTEN_AT_BUILD,
                       detail=f"{result.detail}; but {page.rewritten_by} may rewrite this page when the site is built; {TRUST_HINT}")

    def _build_time_ids(self, file: str, fragment: str) -> str:
        """What may make the id `fragment` in `file` when the site is built ('' if nothing)."""
        page = self.pages.get(file)
        if page is None or (page.build_ids_below and not fragment.startswith(tuple(page.build_ids_below))):
            return ""
        return page.build_ids

    def _fragment_ok(self, file: str, fragment: str) -> bool:
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


def _made_names(docs_path: str, built: str) -> list[str]:
    """The docs- and site-relative names a missing target may have among the files a build
    makes: as linked, and the page a directory URL would be (`reference/cli/` is `reference/cli.md`)."""
    names = [docs_path.lstrip("/"), built]
    stem = built.rstrip("/")
    if stem and not posixpath.splitext(stem)[1]:
        names += [stem + ".md", stem + "/index.md"]
    elif stem.endswith(".html"):
        names.append(stem[: -len(".html")] + ".md")
    return names


def _is_page_url(path: str) -> bool:
    return path == "" or path.endswith("/") or posixpath.splitext(path)[1].lower() in (".html", ".htm", "")
