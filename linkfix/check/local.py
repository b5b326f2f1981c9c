"""Resolve links against the project and check internal targets and fragments (no network).

Rules (documented in the README, "How internal links are resolved"):
- relative links resolve against the linking page's directory; root-relative ones (`/x`)
  against the site root (`root_dir`, else the input directory, else the MkDocs `docs_dir`);
- `http(s)://` links that start with `base_url` (or MkDocs `site_url`) are local files too;
- query strings are ignored for files, paths are percent-decoded;
- a directory URL (`dir/`) means `dir/index.html` (built site) or `dir/index.md`,
  `dir/README.md`, `dir.md` (markdown sources, as MkDocs maps them); `page.html` in markdown
  sources may name `page.md`;
- a link that climbs above the site root is broken ("outside-root") and never followed.
"""

from __future__ import annotations

import posixpath
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urljoin

from ..config import Config
from ..inputs.sources import MARKDOWN_SUFFIXES, Project
from ..model import CheckResult, Page, Reason, Scope, Status

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
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


class LocalChecker:
    """Resolves links of one project and checks the internal ones. Results are memoised per
    target, so a site with 170k links does the work once per distinct target."""

    def __init__(self, project: Project, config: Config, pages: dict[str, Page],
                 load_page: Callable[[str], Page | None]):
        self.project = project
        self.config = config
        self.pages = pages  # root-relative path -> extracted page
        self.load_page = load_page  # extracts a target page that was not among the inputs
        self.site_prefixes = [p for p in (config.base_url, project.mkdocs.site_url if project.mkdocs else "") if p]
        self._site_path_prefix = _url_path(project.mkdocs.site_url) if project.mkdocs else ""
        self._templates = bool(project.mkdocs and project.mkdocs.renders_templates)  # a macros plugin or extension
        self._resolved: dict[tuple, Target] = {}
        self._checked: dict[str, CheckResult] = {}
        self.now = time.time()

    # -- resolution ------------------------------------------------------------------------

    def resolve(self, url: str, page: Page, page_rel: str) -> Target:
        return self.resolver_for(page, page_rel)(url)

    def resolver_for(self, page: Page, page_rel: str) -> Callable[[str], Target]:
        """A resolve function for the links of one page (its per-page work done once)."""
        directory = posixpath.dirname(page_rel)
        base_key = (page.base, page.url if page.url.startswith(("http://", "https://")) else "")
        memo = self._resolved

        def resolve(url: str) -> Target:
            # Links from pages of one directory resolve alike, except same-page ones ("#x", "?q").
            key = (base_key, page_rel if not url or url[0] in "#?" else directory, url)
            target = memo.get(key)
            if target is None:
                target = memo[key] = self._resolve(url.strip(), page, page_rel)
            return target

        return resolve

    def _resolve(self, url: str, page: Page, page_rel: str) -> Target:
        if self._templates and ("{{" in url or "{%" in url):
            return Target(scope=Scope.INTERNAL, resolved=url, result=CheckResult(
                url=url, status=Status.UNVERIFIED, reason=Reason.TEMPLATE,
                detail="template text: the site's macros fill in the target when it is built"))
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
                local = self._site_relative(url)
                if local is None:
                    return Target(scope=Scope.EXTERNAL, resolved=url, fragment=url.partition("#")[2])
                url = local
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
        if not path:
            target_rel = page_rel
        elif path.startswith("/"):
            rel = path.lstrip("/")
            prefix = self._site_path_prefix
            if prefix and (rel + "/").startswith(prefix):
                rel = rel[len(prefix):]
            target_rel = rel
        else:
            target_rel = posixpath.join(posixpath.dirname(page_rel), path)
        trailing_slash = path.endswith("/")
        normal = posixpath.normpath(target_rel) if target_rel else "."
        if normal == ".." or normal.startswith("../") or normal.startswith("/"):
            return Target(
                scope=Scope.INTERNAL,
                resolved=normal,
                fragment=fragment,
                result=CheckResult(url=normal, status=Status.BROKEN, reason=Reason.OUTSIDE_ROOT,
                                   detail="link leaves the site root; not followed"),
            )
        normal = "" if normal == "." else normal
        resolved = normal + ("/" if trailing_slash and normal else "")
        return Target(scope=Scope.INTERNAL, resolved=resolved + (f"#{fragment}" if fragment else ""),
                      fragment=fragment)

    def _site_relative(self, url: str) -> str | None:
        """Root-relative form of an http(s) URL under base_url/site_url, else None."""
        for prefix in self.site_prefixes:
            stem = prefix if prefix.endswith("/") else prefix + "/"
            if url.startswith(stem) or url == prefix:
                return "/" + url[len(stem):]
        return None

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
        found = self._find_file(path)
        if found is None:
            redirect = self._mkdocs_redirect(path)
            if redirect is not None:
                return CheckResult(url=resolved, status=Status.REDIRECTED, reason=Reason.MKDOCS_REDIRECT,
                                   detail=f"redirected by mkdocs-redirects to {redirect}",
                                   final_url=redirect, permanent=True, checked_at=self.now)
            return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.MISSING_FILE,
                               detail=f"no such file: {path or '/'}", checked_at=self.now)
        if fragment and self.config.include_fragments and not self._fragment_ok(found, fragment):
            made_by = self._build_time_ids(found)
            if made_by:
                return CheckResult(url=resolved, status=Status.UNVERIFIED, reason=Reason.BUILD_TIME_ID,
                                   detail=f"no id '{unquote(fragment)}' in the source of {found}; its {made_by} make ids "
                                          "only when the site is built", checked_at=self.now)
            return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.MISSING_FRAGMENT,
                               detail=f"no id '{unquote(fragment)}' in {found}", checked_at=self.now)
        return CheckResult(url=resolved, status=Status.OK, checked_at=self.now)

    def _find_file(self, path: str) -> str | None:
        """The site file a root-relative path names, following directory-URL conventions."""
        files = self.project.site_files
        stem = path.rstrip("/")
        if path and not path.endswith("/") and path in files:
            return path
        is_dir = stem in self.project.site_dirs
        candidates: list[str] = []
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
        return next((c for c in candidates if c in files), None)

    def _mkdocs_redirect(self, path: str) -> str | None:
        mk = self.project.mkdocs
        if mk is None or not mk.redirects:
            return None
        stem = path.rstrip("/")
        for key in (path, stem, stem + ".md", stem + "/index.md", posixpath.splitext(stem)[0] + ".md"):
            if key in mk.redirects:
                return mk.redirects[key]
        return None

    def _build_time_ids(self, file: str) -> str:
        """What makes more ids in `file` when the site is built ('' if nothing)."""
        page = self.pages.get(file)
        return page.build_ids if page is not None else ""

    def _fragment_ok(self, file: str, fragment: str) -> bool:
        if fragment in _IMPLICIT_FRAGMENTS or fragment.startswith(":~:"):
            return True  # `#top` and text fragments need no id
        if posixpath.splitext(file)[1].lower() not in _PAGE_SUFFIXES:
            return True  # fragments of images, PDFs, ... are not ids we can see
        page = self.pages.get(file)
        if page is None:
            page = self.load_page(file)
            if page is None:
                return True  # unreadable target: its own read error is reported elsewhere
            self.pages[file] = page
        return fragment in page.ids or unquote(fragment) in page.ids


def _url_path(url: str) -> str:
    """Path part of a site URL without leading slash, with a trailing one ('' for the root)."""
    if not url:
        return ""
    path = re.sub(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/]*", "", url).strip("/")
    return path + "/" if path else ""
