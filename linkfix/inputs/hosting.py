"""Who serves a built site, for what only the host decides: whether `/page` serves `page.html`,
and which old URLs its redirect files keep alive.

Extensionless URLs: GitHub Pages, Netlify and Cloudflare Pages answer `/page` with `page.html`;
a plain file server (`python -m http.server`, nginx or Apache as installed) answers 404, and so
does Vercel unless its `vercel.json` sets `cleanUrls`. The `host` key says which host serves the
site; `auto` (the default) takes it from the project, in this order, and is plain when nothing says:

1. the site's top: `.nojekyll` or `CNAME` (files only GitHub Pages reads): github-pages;
2. the project's top (below): `netlify.toml`: netlify; `wrangler.toml` / `wrangler.json(c)`:
   cloudflare; a `vercel.json` with `"cleanUrls": true`: vercel, serving `/page`;
3. the site's top: `_redirects` or `_headers` (Netlify's and Cloudflare Pages' files): netlify;
4. the site's URL: `*.github.io`, `*.netlify.app`, `*.pages.dev` (`*.vercel.app`: vercel,
   without `cleanUrls` unless its file says).

The redirect files (formats/host_redirects) are read where the host reads them: `_redirects`
and `vercel.json` at the site's top (Netlify users copy `_redirects` into the build, and a
directory deployed as it is has its `vercel.json` there), and `vercel.json` and `netlify.toml`
at the project's top: the directory of the MkDocs-family config that builds the site (site_url
finds it), else the top of the git work tree holding the site.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from ..files.containment import git_top
from ..files.read import Unreadable, display_path, read_bytes
from ..formats.host_redirects import HostRedirects, read_host_redirects
from .site_url import building_config

log = logging.getLogger(__name__)

HOSTS = ("github-pages", "netlify", "cloudflare", "vercel", "plain")
EXTENSIONLESS = frozenset({"github-pages", "netlify", "cloudflare"})  # serve /page from page.html
_URL_HOSTS = ((re.compile(r"https?://[^/]+\.github\.io(?:[:/]|$)", re.I), "github-pages"),
              (re.compile(r"https?://[^/]+\.netlify\.app(?:[:/]|$)", re.I), "netlify"),
              (re.compile(r"https?://[^/]+\.pages\.dev(?:[:/]|$)", re.I), "cloudflare"),
              (re.compile(r"https?://[^/]+\.vercel\.app(?:[:/]|$)", re.I), "vercel"))


@dataclass(frozen=True, slots=True)
class Hosting:
    name: str  # one of HOSTS
    why: str  # what said so, in words ('' for the default)
    extensionless: bool  # `/page` is served from `page.html`

    def describe(self) -> str:
        """'a plain file server (nothing in the project says which host)', 'vercel (vercel.json)'."""
        if self.name == "plain":
            return f"a plain file server ({self.why or 'nothing in the project says which host'})"
        return f"{self.name} ({self.why})"


PLAIN = Hosting("plain", "", False)


def served(site: Path, site_files: frozenset[str], setting: str, site_url: str) -> tuple[Hosting, HostRedirects | None]:
    """Who serves the built site in `site` (`setting`: the host key) and the redirects its
    host's files keep alive."""
    top = project_top(site)
    hosting = hosting_of(setting, site, top, site_url)
    if hosting.why and setting == "auto":
        log.info("%s is served by %s: %s", display_path(site), hosting.name, hosting.why)
    return hosting, site_host_redirects(site, top, site_files)


def project_top(site: Path) -> Path | None:
    """Where the host reads the project's own files for the built site in `site`: the directory
    of the config that builds it, else the git work tree's top, else None."""
    top = git_top(site.resolve())
    config = building_config(site, top)
    return config.parent if config is not None else top


def hosting_of(setting: str, site: Path, top: Path | None, site_url: str) -> Hosting:
    """Who serves the built site in `site` (`setting`: the `host` key; `top`: project_top)."""
    if setting != "auto":
        clean = setting == "vercel" and top is not None and _clean_urls(top / "vercel.json")
        return Hosting(setting, "the host key", setting in EXTENSIONLESS or clean)
    for name in (".nojekyll", "CNAME"):
        if (site / name).is_file():
            return Hosting("github-pages", f"{display_path(site / name)}", True)
    if top is not None:
        for name, host in (("netlify.toml", "netlify"), ("wrangler.toml", "cloudflare"), ("wrangler.json", "cloudflare"),
                           ("wrangler.jsonc", "cloudflare")):
            if (top / name).is_file():
                return Hosting(host, display_path(top / name), True)
        if _clean_urls(top / "vercel.json"):
            return Hosting("vercel", f"cleanUrls in {display_path(top / 'vercel.json')}", True)
    for name in ("_redirects", "_headers"):
        if (site / name).is_file():
            return Hosting("netlify", display_path(site / name), True)
    for pattern, host in _URL_HOSTS:
        if pattern.match(site_url):
            clean = host == "vercel" and top is not None and _clean_urls(top / "vercel.json")
            return Hosting(host, f"the site's URL {site_url}", host in EXTENSIONLESS or clean)
    return PLAIN


def site_host_redirects(site: Path, top: Path | None, site_files: frozenset[str]) -> HostRedirects | None:
    """The redirects the host of the built site in `site` serves (None: no redirect file)."""
    at_top = frozenset(name for name in ("_redirects", "vercel.json") if name in site_files)
    return read_host_redirects(site, top if top is not None else site, at_top)


def _clean_urls(path: Path) -> bool:
    try:
        data = json.loads(read_bytes(path, limit=1 << 20))
    except (Unreadable, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("cleanUrls") is True
