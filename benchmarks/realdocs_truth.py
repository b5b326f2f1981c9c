"""What is really broken, judged on the site MkDocs built (benchmarks/realdocs.py).

The built site is what a reader gets: a link is followed the way MkDocs rendered it (relative to
the page's published URL, root-relative under site_url's path), a file must exist there (a
directory serves its index.html), and a fragment must be an id in the published HTML. That
decides most disagreements automatically; realdocs_judgements.yaml overrides it by hand where
the built site cannot tell (ids a left-out plugin would make, links outside the site)."""

from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

_ID = re.compile(r"""<[a-zA-Z][^>]*?\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""")
_REFRESH = re.compile(r"""<meta\s+http-equiv=["']?refresh["']?\s+content=["']?\d+;\s*url=([^"'>]+)""", re.I)
_PY_OBJECT = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")  # mkdocstrings' heading ids
_TEMPLATE = ("{{", "{%")


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    broken: bool | None  # None: cannot be judged here (left out of the build, outside the site)
    reason: str
    where: str = ""  # the site path the link lands on, with its fragment (for grouping)


def normal_target(target: str) -> str:
    return html.unescape(target).strip()


class SiteTruth:
    """Judges (page, target as written) on one built site, from the hook's record."""

    def __init__(self, record: dict, site: Path, dropped_plugins: frozenset[str] = frozenset()):
        self.files: dict[str, dict] = record.get("files", {})
        self.pages: dict[str, dict] = record.get("pages", {})
        self.dest_to_src = {info["dest"]: src for src, info in self.files.items()}
        self.site = site
        site_url = record.get("site_url") or ""
        self.site_url = site_url
        prefix = urlsplit(site_url).path or "/"
        self.prefix = prefix if prefix.endswith("/") else prefix + "/"
        self.dropped_plugins = dropped_plugins
        docs_dir, custom_dir = record.get("docs_dir", ""), record.get("custom_dir", "")
        self.theme_dir = ""  # a theme custom_dir inside docs_dir: MkDocs copies its templates as files
        if docs_dir and custom_dir and (custom_dir + "/").startswith(docs_dir.rstrip("/") + "/"):
            self.theme_dir = custom_dir[len(docs_dir.rstrip("/")) + 1:].strip("/") + "/"
        self.top_level = {p.name for p in site.iterdir()} if site.is_dir() else set()
        self._ids: dict[str, set[str]] = {}

    # -- the site -----------------------------------------------------------------------
    def ids(self, dest: str) -> set[str]:
        if dest not in self._ids:
            try:
                text = (self.site / dest).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._ids[dest] = {html.unescape(next(g for g in m.groups() if g is not None)) for m in _ID.finditer(text)}
        return self._ids[dest]

    def _existing(self, site_path: str, directory_only: bool) -> str | None:
        candidates = [] if directory_only else [site_path]
        candidates.append(posixpath.join(site_path, "index.html") if site_path else "index.html")
        for candidate in candidates:
            if candidate and (self.site / candidate).is_file():
                return candidate
        return None

    def rendered(self, page: str, target: str) -> str | None:
        """The href MkDocs wrote for this link on this page, or None if it renders no such link."""
        wanted = normal_target(target)
        record = self.pages.get(page, {})
        for _tag, _attr, written, rendered, *_ in record.get("links", []):
            if normal_target(written) == wanted and rendered is not None:  # None: a link the site does not hold
                return rendered
        for _tag, _attr, url in record.get("raw", []):
            if normal_target(url) == wanted:
                return url
        return None

    def resolve(self, base_dest: str, href: str) -> tuple[str | None, str, str]:
        """(site path, fragment, why unresolvable) of an href on the page published at base_dest."""
        parts = urlsplit(href)
        path, fragment = unquote(parts.path), unquote(parts.fragment)
        if parts.scheme or parts.netloc:
            if self.site_url and href.startswith(self.site_url.rstrip("/")):
                path = "/" + href[len(self.site_url.rstrip("/")):].lstrip("/").split("#")[0].split("?")[0]
                path = self.prefix.rstrip("/") + unquote(path)
            else:
                return None, fragment, "external"
        if path.startswith("/"):
            if not path.startswith(self.prefix) and path + "/" != self.prefix:
                return None, fragment, f"root-relative outside the site's path {self.prefix!r} (site_url)"
            return posixpath.normpath(path[len(self.prefix):]) if path[len(self.prefix):] else "", fragment, ""
        if not path:
            return base_dest, fragment, ""
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(base_dest), path))
        if joined.startswith("../") or joined == "..":
            return None, fragment, "climbs above the site root"
        return ("" if joined == "." else joined), fragment, ""

    # -- verdicts -----------------------------------------------------------------------
    def judge_nav(self, target: str) -> Verdict:
        """A `nav` entry of the config (docs-relative): broken when the build has no such page
        (every built page's navigation then links to nothing)."""
        info = self.files.get(posixpath.normpath(target))
        if info is None:
            return Verdict(broken=True, reason="the nav names a file the build does not have")
        if info["excluded"]:
            return Verdict(broken=True, reason="the nav names a file excluded from the built site")
        return Verdict(broken=False, reason="the nav names a file of the build")

    def judge(self, page: str, target: str) -> Verdict:
        info = self.files.get(page)
        if page.startswith("site:"):
            return self.judge_href(page[5:], target)
        if info is None:
            including = self.rendering_page(target)
            if including is not None:  # a file included into a page (snippets): judged where it is shown
                then = self.judge(including, target)
                return Verdict(broken=then.broken, reason=f"included into {including}: {then.reason}", where=then.where)
            return Verdict(broken=False, reason="the page is not part of the MkDocs site (not in its files)")
        if info["excluded"]:
            return Verdict(broken=False, reason="the page is excluded from the built site (exclude_docs)")
        if self.theme_dir and page.startswith(self.theme_dir):
            return Verdict(broken=None, reason="a theme template (custom_dir inside docs_dir) that MkDocs copies as a "
                                               "file; nobody links to it, so its links are not judged")
        if not info["page"]:
            if any(mark in target for mark in _TEMPLATE):
                return Verdict(broken=False, reason="a Jinja template expression in a theme file, not a link")
            return self.judge_href(info["dest"], target)
        href = self.rendered(page, target)
        if href is None and any(mark in target for mark in _TEMPLATE):
            return Verdict(broken=False, reason="a Jinja expression: the project's macros replace it before Markdown "
                                                "runs, and the page has the expanded links instead")
        if href is None:
            return Verdict(broken=False, reason="the build renders no link with this target on this page "
                                                "(it is in code, a comment, or not link syntax for Python-Markdown)")
        return self.judge_href(info["dest"], href, page=page)

    def rendering_page(self, target: str) -> str | None:
        """The first page that renders a link with this target as written (for a file outside
        the docs that a page includes: its links are shown on that page)."""
        return next((page for page in sorted(self.pages) if self.rendered(page, target) is not None), None)

    def refresh(self, dest: str) -> str | None:
        """The target of a meta refresh page (mkdocs-redirects writes these), else None."""
        if not dest.endswith((".html", ".htm")):
            return None
        try:
            head = (self.site / dest).read_text(encoding="utf-8", errors="replace")[:2000]
        except OSError:
            return None
        match = _REFRESH.search(head)
        return html.unescape(match.group(1)).strip() if match else None

    def judge_href(self, base_dest: str, href: str, page: str = "", depth: int = 0) -> Verdict:
        if any(mark in href for mark in _TEMPLATE):
            return Verdict(broken=False, reason="a Jinja template expression, not a link")
        site_path, fragment, why = self.resolve(base_dest, href)
        if site_path is None:
            if why == "external":
                return Verdict(broken=False, reason="rendered as an external URL")
            return Verdict(broken=None if "outside" in why else True, reason=why, where=href)
        found = self._existing(site_path, directory_only=urlsplit(href).path.endswith("/"))
        if found is None and (href.startswith("/") or urlsplit(href).netloc) and site_path \
                and site_path.split("/")[0] not in self.top_level:
            return Verdict(broken=None, reason=f"under site_url but outside this build ({site_path.split('/')[0]}/ is not "
                                               "in the site: another deployment or language on the same host); "
                                               "only an online check can tell", where=site_path)
        if found is None:
            return Verdict(broken=True, reason=f"no such file in the built site: {site_path or '/'}",
                           where=site_path + (f"#{fragment}" if fragment else ""))
        where = found + (f"#{fragment}" if fragment else "")
        refresh = self.refresh(found)
        if refresh is not None and depth < 3:  # a mkdocs-redirects stub: the browser goes on, hash and all
            then = self.judge_href(found, refresh + (f"#{fragment}" if fragment else ""), depth=depth + 1)
            return Verdict(broken=then.broken, reason=f"{found} redirects to {refresh}: {then.reason}", where=where)
        if not fragment or fragment == "top" or not found.endswith((".html", ".htm")):
            return Verdict(broken=False, reason=f"lands on {found}", where=where)
        if fragment in self.ids(found):
            return Verdict(broken=False, reason=f"id '{fragment}' is in the built {found}", where=where)
        if "mkdocstrings" in self.dropped_plugins and _PY_OBJECT.match(fragment):
            return Verdict(broken=None, reason=f"id '{fragment}' would be made by mkdocstrings, left out of the oracle build",
                           where=where)
        return Verdict(broken=True, reason=f"no id '{fragment}' in the built {found}", where=where)

    def broken_links(self):
        """Every link a page renders from its source that the built site says is broken, as
        (page, target as written, verdict): the whole truth, not only what some tool reported."""
        for page, record in sorted(self.pages.items()):
            for _tag, _attr, written, _rendered, *generated in record.get("links", []):
                if any(generated):
                    continue
                verdict = self.judge(page, written)
                if verdict.broken:
                    yield page, written, verdict

    def written_for(self, page: str, rendered_href: str) -> str | None:
        """The target as written in the source for a link MkDocs rendered as rendered_href."""
        record = self.pages.get(page, {})
        for _tag, _attr, written, rendered, *_ in record.get("links", []):
            if rendered == rendered_href or normal_target(rendered) == normal_target(rendered_href):
                return written
        for _tag, _attr, url in record.get("raw", []):
            if normal_target(url) == normal_target(rendered_href):
                return url
        return None

    def source_page(self, site_page: str) -> str:
        """The docs-relative source of a built file, or 'site:<path>' when no source maps to it."""
        return self.dest_to_src.get(site_page) or f"site:{site_page}"
