"""Where a site is published, and which URLs on its host are this build's.

The site's URL (MkDocs' `site_url`, a built site's inferred one, else `base_url`) gives the path
prefix root-relative links carry (`/en/stable/x` is `x` with base `https://h/en/stable/`), the
full URLs that are the site's own, and what lies beside the build on the same host (another
language, a version, an API reference, an organisation's other project sites).

What lies beside the build under the site's URL is decided by evidence when the project is
known (a MkDocs-family config: `Deployments`): mike's versions, an i18n plugin's languages, Read
the Docs' versions and languages, an organisation's Pages root, or URLs the config itself names
on the site's host (a nav entry or an `extra` link to `/api/`). Without any, a path under the site's URL that the build lacks is
this build's to have, and broken. (A URL outside the site's path, `/pricing/` beside
`/docs/`, is another site's page on the host: checked as an external URL when online.) For a tree linkfix
knows nothing of (plain markdown, a built site), directories named like a language or a
version, and paths below a directory the build lacks, are taken to be beside it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, unquote, urljoin, urlsplit

# A top-level directory named like a language (zh, pt-BR, zh-hant) or a version (mike: 1.2, v2, latest).
_LANGUAGE_OR_VERSION = re.compile(r"[a-z]{2}(?:[-_][A-Za-z]{2,4})?|v?[0-9]+(?:\.[0-9]+)*(?:\.x)?|latest|stable|dev|main|master|next|nightly|preview")
_PAGES_HOST = re.compile(r"https?://[^/:]+\.(?:github\.io|gitlab\.io)(?::\d+)?$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Deployments:
    """What a known project says is deployed beside its build on the same host."""

    versioned: bool = False  # mike: each version in a directory of the site
    languages: bool = False  # an i18n plugin: a build per language
    named: frozenset[str] = frozenset()  # site-relative directories of URLs the config names (`api/python/stable/`)


class SitePlace:
    def __init__(self, site_url: str, base_url: str, has_directory: Callable[[str], bool], *,
                 serves: Callable[[str], bool] = lambda path: False, versioned: bool = False,
                 deployments: Deployments | None = None) -> None:
        self.prefixes = [p for p in (base_url, site_url) if p]
        self.url = site_url or base_url
        self.path_prefix = _url_path(self.url)  # stripped from root-relative links ('docs/')
        self.origin = _origin(self.url)
        self.root = f"{self.origin}/{self.path_prefix}"  # the site URL, ending in /
        self.has_directory = has_directory
        self.serves = serves  # whether the build has the file at a site-relative path
        # mike deploys each version in a directory of the site: a file at the site's root that
        # this build does not have may be another deployment's (an install script, versions.json).
        self.versioned = versioned
        # A user's or organisation's GitHub/GitLab Pages site (`https://org.github.io/`) shares
        # its host with the organisation's project sites, each at its first directory
        # (`/griffe/`): a first directory the build does not have is another project's site.
        self.hosts_project_sites = not self.path_prefix and bool(_PAGES_HOST.match(self.origin))
        self.deployments = deployments

    def relative(self, url: str) -> str | None:
        """Site-relative form (no leading slash) of an http(s) URL under base_url/site_url, else None."""
        for prefix in self.prefixes:
            stem = prefix if prefix.endswith("/") else prefix + "/"
            if url.startswith(stem) or url == prefix:
                return url[len(stem):]
        return None

    def beside_the_build(self, path: str, *, written_in_full: bool = False) -> bool:
        """Whether a site-relative path leads to a part of the site's host that this build does
        not hold (another language, a version, an API reference deployed beside it), when the
        site's URL is known: one of its directories is not the build's and the path goes on
        below it (`zh/tutorial/`, `api/python/stable/x.html` when the build has `api/` but no
        `api/python/`), or that directory is named like a language or a version (`zh/`,
        `latest/`), or the site is an organisation's Pages site and that first directory is one
        of its project sites (`https://org.github.io/griffe/`), or the site is versioned with
        mike and the path is a file at its root that the build does not have. A page-like
        `advanced/removed-page/` or a file (`nope.html`) is this build's to have, and so broken
        when it does not.

        For a known project (`deployments`), a path written as a site path (`/zh/x/`, relative)
        is beside the build only where the project says so: the link is written for the build.
        A URL written in full (`https://docs.example.org/api/python/`) spells the host on
        purpose, as links to another deployment are written: the rules above apply to it."""
        if not self.origin:
            return False
        segments = [s for s in path.split("/") if s]
        if any(s in (".", "..") for s in segments):
            return False
        known = self.deployments
        if known is not None and any(path.startswith(named) for named in known.named):
            return not self.serves(path) and not self.has_directory(path.rstrip("/"))
        if known is not None and not (known.versioned or known.languages or self.hosts_project_sites or written_in_full):
            return False  # nothing says another deployment shares the host: the build's to have
        directories = segments if path.endswith("/") else segments[:-1]
        if self.versioned and len(segments) == 1 and not path.endswith("/") and posixpath.splitext(segments[0])[1] \
                and not self.serves(path):
            return True
        if self.hosts_project_sites and segments and not directories and not posixpath.splitext(segments[0])[1]:
            directories = segments  # `https://org.github.io/project` (the host adds the slash)
        for depth, name in enumerate(directories, start=1):
            if not self.has_directory("/".join(segments[:depth])):
                return (len(segments) > depth or _LANGUAGE_OR_VERSION.fullmatch(name) is not None
                        or (depth == 1 and self.hosts_project_sites))
        return False


def base_place(page_rel: str, base: str, path_prefix: str) -> str:
    """Where a page's relative or root-relative `<base href>` sends its relative links: the
    site path of the base URL (a directory ending in `/`, '' for the root, or a file, whose
    directory counts), resolved from the page as a browser does (dot segments, a file name in
    the base dropped, the host's root never climbed above). A root-relative base is a path on
    the host: the site's own path (`path_prefix`, `docs/`) is taken off it, as from a
    root-relative link."""
    path = unquote(urlsplit(urljoin("http://site.invalid/" + quote(page_rel), base)).path).lstrip("/")
    if base.startswith("/") and path_prefix and (path + "/").startswith(path_prefix):
        path = path[len(path_prefix):]
    return path


def _origin(url: str) -> str:
    """scheme://host[:port] of a site URL ('' when there is none)."""
    match = re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/]*", url)
    return match.group(0) if match else ""


def _url_path(url: str) -> str:
    """Path part of a site URL without leading slash, with a trailing one ('' for the root)."""
    if not url:
        return ""
    path = re.sub(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/]*", "", url).strip("/")
    return path + "/" if path else ""
