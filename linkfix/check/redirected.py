"""Links whose target is a redirect the site serves: mkdocs-redirects' stub pages (`redirect_maps`)
and the host's redirect files (vercel.json, _redirects, netlify.toml).

A redirected link works for every reader when the redirect lands somewhere: its target must be
on the built site (or on another site, checked there), and a `#fragment` an id of the page it
lands on (the stub's script carries it over; a browser keeps it over a redirect whose
destination names none). Chains are followed to MAX_REDIRECT_MAPS hops; a loop is broken.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol
from urllib.parse import unquote

from ..mkdocs.plugins.redirects import redirect_of
from ..model import CheckResult, Reason, Status
from .targets import Target, internal_target

if TYPE_CHECKING:
    from ..config import Config
    from ..formats.host_redirects import HostRedirect
    from ..inputs.sources import Project
    from ..mkdocs.structure.links import MkDocsLinks
    from .site import SitePlace

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
MAX_REDIRECT_MAPS = 10  # redirect_maps entries (or host redirects) followed one after another before giving up


class Site(Protocol):
    """What judging a redirect asks of the site it is on (check.local.LocalChecker is one): where
    a path is, whether a page has an id, and what the build makes."""

    project: Project
    config: Config
    site: SitePlace
    site_path_prefix: str
    mkdocs_links: MkDocsLinks | None
    now: float

    def find_file(self, path: str) -> str | None: ...

    def fragment_ok(self, file: str, fragment: str) -> bool: ...

    def build_time_ids(self, file: str, fragment: str) -> str: ...


class Redirects:
    """The redirects a site serves, and the verdicts of links to them."""

    def __init__(self, checker: Site) -> None:
        self.checker = checker
        self._hosted: dict[str, HostRedirect] = {}  # built path the site lacks -> where its host redirects it

    def host_redirect(self, built: str, fragment: str) -> Target | None:
        """A URL the built site lacks that its host redirects: a target checked at its
        destination when targets are checked (`host_redirected`), or None."""
        hosted = self.host_lookup(built) if built else None
        if hosted is None:
            return None
        return self.hosted_target(built, fragment, hosted)

    def hosted_target(self, built: str, fragment: str, hosted: HostRedirect | None = None) -> Target:
        found = hosted or self.host_lookup(built)
        assert found is not None
        self._hosted[built] = found
        return internal_target(built + (f"#{fragment}" if fragment else ""), fragment)

    def hosted(self, path: str) -> HostRedirect | None:
        """The host redirect a target's path was resolved to, if it was."""
        return self._hosted.get(path)

    def redirected(self, resolved: str, redirect: str, fragment: str) -> CheckResult:
        """A page mkdocs-redirects replaced by a stub: its target must exist, and a #fragment
        (which the stub's script carries over) must be an id of the target page."""
        moved = CheckResult(url=resolved, status=Status.REDIRECTED, reason=Reason.MKDOCS_REDIRECT,
                            detail=f"redirected by mkdocs-redirects to {redirect}",
                            final_url=redirect, permanent=True, checked_at=self.checker.now)
        if _SCHEME.match(redirect):
            return moved
        target, _, own_fragment = redirect.partition("#")
        fragment = fragment or own_fragment
        found = self.checker.find_file(target)
        seen = {target}
        while found is None:  # a map may lead to another mapped page: its stub redirects again
            onward = self.mapped(target)
            if onward is None or len(seen) > MAX_REDIRECT_MAPS:
                return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.MISSING_FILE, checked_at=self.checker.now,
                                   detail=f"redirect_maps sends it to {target}, which does not exist "
                                          "(mkdocs-redirects writes no page for it)")
            if _SCHEME.match(onward):
                return moved
            target, _, own_fragment = onward.partition("#")
            fragment = fragment or own_fragment
            if target in seen:
                return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.REDIRECT_LOOP, checked_at=self.checker.now,
                                   detail=f"redirect_maps loop through {target}")
            seen.add(target)
            found = self.checker.find_file(target)
        if fragment and self.checker.config.include_fragments and not self.checker.fragment_ok(found, fragment):
            return CheckResult(url=resolved, status=Status.BROKEN, reason=Reason.MISSING_FRAGMENT, checked_at=self.checker.now,
                               detail=f"redirected by mkdocs-redirects to {target}, which has no id '{unquote(fragment)}'",
                               final_url=redirect)
        return moved

    def host_redirected(self, resolved: str, hosted: HostRedirect, fragment: str) -> CheckResult:
        """A URL the host redirects (or rewrites): its destination must be on the built site, or
        on another one; a #fragment must be an id of the page it lands on (a browser keeps it
        over a redirect whose destination names none)."""
        how = "rewritten" if hosted.status == 200 else "redirected"
        served = CheckResult(url=resolved, status=Status.OK if hosted.status == 200 else Status.REDIRECTED,
                             reason=Reason.NONE if hosted.status == 200 else Reason.HOST_REDIRECT,
                             detail=f"{how} by {hosted.by} to {hosted.destination}", final_url=hosted.destination,
                             permanent=hosted.status in (301, 308), checked_at=self.checker.now)
        destination = hosted.destination
        for _ in range(MAX_REDIRECT_MAPS):
            path, _, own_fragment = self._site_path(destination).partition("#")
            if _SCHEME.match(path):
                return served  # another site's page: checked there when online (its redirect is the host's word)
            fragment = own_fragment or fragment
            made, source = self._served(unquote(path).lstrip("/"))
            if made:
                return served
            if source:
                file = self.checker.find_file(source)
                if file is None:  # a stub of mkdocs-redirects
                    mapped = self.mapped(source)
                    return self.redirected(resolved, mapped, fragment) if mapped is not None else served
                if fragment and self.checker.config.include_fragments and not self.checker.fragment_ok(file, fragment):
                    made_by = self.checker.build_time_ids(file, unquote(fragment))
                    return replace(served, status=Status.UNVERIFIED if made_by else Status.BROKEN,
                                   reason=Reason.BUILD_TIME_ID if made_by else Reason.MISSING_FRAGMENT,
                                   detail=f"{how} by {hosted.by} to {destination}, which has no id '{unquote(fragment)}'"
                                          + (f" in its source; {made_by}" if made_by else ""))
                return served
            onward = self.host_lookup(unquote(path).lstrip("/"))
            if onward is None:
                return replace(served, status=Status.BROKEN, reason=Reason.MISSING_FILE, final_url="",
                               detail=f"{how} by {hosted.by} to {destination}, which the built site does not have")
            destination = onward.destination
        return replace(served, status=Status.BROKEN, reason=Reason.REDIRECT_LOOP, final_url="",
                       detail=f"{hosted.by} redirects it more than {MAX_REDIRECT_MAPS} times")

    def _served(self, built: str) -> tuple[bool, str]:
        """What the built site has at the site path `built`: (made by the build, the file it
        is built from: a docs path in a MkDocs project, the site's own file in a built site;
        '' for none)."""
        links = self.checker.mkdocs_links
        if links is None:
            return False, self.checker.find_file(built) or ""
        found = links.serve(built)
        return bool(found.made), found.path or ""

    def host_lookup(self, built: str) -> HostRedirect | None:
        """Where the site's host sends the built path `built`, if it redirects it."""
        links = self.checker.mkdocs_links
        redirects = links.site.host_redirects if links is not None else self.checker.project.host_redirects
        # The host's paths start at its root: above a site_url path (`/docs/`), with it.
        return redirects.lookup(self.checker.site_path_prefix + built) if redirects is not None else None

    def _site_path(self, destination: str) -> str:
        """A redirect's destination as a site path when it is on this site (`/x/`, or a URL
        under site_url), else as it is."""
        if destination.startswith(self.checker.site.root) and self.checker.site.root.startswith(("http://", "https://")):
            return "/" + destination[len(self.checker.site.root):]
        if _SCHEME.match(destination):
            return destination
        path = destination.lstrip("/")
        return "/" + (path[len(self.checker.site_path_prefix):] if self.checker.site_path_prefix and path.startswith(self.checker.site_path_prefix) else path)

    def mapped(self, path: str) -> str | None:
        """Where mkdocs-redirects' `redirect_maps` sends the docs path `path`, if it maps it."""
        mk = self.checker.project.mkdocs
        return redirect_of(mk.redirects, path) if mk is not None else None
