"""Where a built site is published, when `base_url` is not given: its URL decides which full
URLs are its own pages and what root-relative links (`/proj/page/`) mean when the site lives
under a path (`https://x.github.io/proj/`).

In this order:
1. the MkDocs config that built it: a mkdocs.yml (or mkdocs.yaml) in the site's directory or
   above it, up to the git work tree's top, whose `site_dir` is this directory: its `site_url`;
2. the site itself: the canonical link (`<link rel="canonical">`) of its home page, which
   MkDocs themes and most generators write from the site's URL.

Each says where it came from (the log, at info level), so that a reader of the report knows why
`/proj/x` was read as the site's own `x`.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..files.containment import git_top
from ..files.read import Unreadable, display_path, read_text
from ..mkdocs.config.dialect import CONFIG_NAMES
from ..mkdocs.config.load import read_config_data

log = logging.getLogger(__name__)

_CANONICAL = re.compile(r"""<link\b(?=[^>]*\brel\s*=\s*["']?canonical\b)[^>]*\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""",
                        re.IGNORECASE)
_HEAD_BYTES = 64_000  # the canonical link is in the head


@dataclass(frozen=True, slots=True)
class SiteUrl:
    url: str  # with a trailing slash
    source: str  # where it came from, in words


def published_at(site: Path) -> str:
    """The URL of the built site in `site`, said; '' when nothing says."""
    found = site_url_of(site, git_top(site.resolve()))
    if found is None:
        return ""
    log.warning("note: %s is published at %s (from %s): links under it are this site's own (give --base-url to say otherwise)",
                display_path(site), found.url, found.source)
    return found.url


def site_url_of(site: Path, top: Path | None) -> SiteUrl | None:
    """The URL the built site in `site` is published at, or None when nothing says."""
    return _from_config(site, top) or _from_home_page(site)


def _from_config(site: Path, top: Path | None) -> SiteUrl | None:
    found = _building(site, top)
    if found is None:
        return None
    config, url = found
    if not url.startswith(("http://", "https://")):
        return None
    return SiteUrl(_slashed(url), f"site_url of {display_path(config)}, which builds this site")


def building_config(site: Path, top: Path | None) -> Path | None:
    """The MkDocs-family config whose `site_dir` is `site`, in it or above it up to `top`."""
    found = _building(site, top)
    return found[0] if found is not None else None


def _building(site: Path, top: Path | None) -> tuple[Path, str] | None:
    """(config, its site_url or '') of the config that builds `site`."""
    real = site.resolve()
    for directory in [real, *real.parents]:
        for name in CONFIG_NAMES:
            config = directory / name
            if not config.is_file():
                continue
            try:
                data = read_config_data(config)
            except InputError as exc:
                log.debug("%s: %s", config, exc)
                continue
            site_dir = (directory / str(data.get("site_dir") or "site")).resolve()
            if site_dir == real:
                url = data.get("site_url")
                return config, url if isinstance(url, str) else ""
        if top is not None and directory == top.resolve():
            break
    return None


def _from_home_page(site: Path) -> SiteUrl | None:
    home = site / "index.html"
    try:
        head = read_text(home)[0][:_HEAD_BYTES]
    except Unreadable:
        return None
    match = _CANONICAL.search(head)
    if match is None:
        return None
    url = next(group for group in match.groups() if group is not None).strip()
    if not url.startswith(("http://", "https://")):
        return None
    url = url.partition("#")[0].partition("?")[0]
    url = url[: -len("index.html")] if url.endswith("/index.html") else url
    return SiteUrl(_slashed(url), f"the canonical link of {display_path(home)}")


def _slashed(url: str) -> str:
    return url if url.endswith("/") else url + "/"
