"""Check a site's links the way its build rendered them: what a build plugin hands over.

A build knows what a source check can only guess: every link of every page as rendered (the
build's own rewriting of `page.md` into `../page/`, what plugins add: API pages,
cross-references, macros) and every id the written pages have. `SiteBuild` takes each rendered
page, puts each link back on the place in the source where its target is written (the mapper
of the source check, `mkdocs.pages.extract.place_links`), and checks it against the built site as a
browser follows it: the link as rendered, from the page's own URL. Reports show each link as
written, where it is written, so that `linkfix fix --from REPORT` edits it. A link the build
made (no place in the source) is reported with an empty span at the place that made it, and is
never edited.

No network, no abort: `network_reachable` tells quickly (a few name lookups at once, a few
seconds at most) whether checking external links can work at all.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
import threading
import urllib.request
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .config import Config
from .errors import LinkfixError, NetworkDownError
from .files.read import Unreadable, display_path, read_text
from .inputs.sources import Project
from .inputs.walk import SKIP_DIRS, outside_reason
from .mkdocs.config.load import read_config
from .mkdocs.config.project import MkDocsProject
from .model import CheckResult, Document, Link, LinkResult, Page, Reason, Report, Scope, Status

if TYPE_CHECKING:
    from .mkdocs.extensions.setup import MarkdownSetup

log = logging.getLogger(__name__)

NETWORK_HOSTS = 5  # host names looked up to tell whether the network works
NETWORK_SECONDS = 3.0  # how long those lookups may take together


@dataclass(frozen=True, slots=True, kw_only=True)
class RenderedPage:
    """One page as a build made it."""

    source: Path | None  # the page's source file (None: a page a plugin generated)
    source_uri: str  # its path in the docs directory, e.g. `guide/install.md`
    output_uri: str  # the file the build wrote, relative to the site, e.g. `guide/install/index.html`
    content: str  # the page's content as rendered: its links
    output: str  # the page as written, theme included: its ids
    # (as rendered, as written) of the links the build rewrote, in document order
    written: Sequence[tuple[str, str]] = ()
    markdown: str = ""  # the page's markdown, read when there is no source file


class SiteBuild:
    """The rendered pages of one build, checked together at its end (`check`)."""

    def __init__(self, config: Config, *, site_dir: Path, docs_dir: Path, config_file: Path, boundary: Path,
                 site_url: str = "", use_directory_urls: bool = True, redirects: dict[str, str] | None = None) -> None:
        self.config = config
        self.site_dir = site_dir.resolve()
        self.boundary = boundary
        self.mkdocs = MkDocsProject(config_file=config_file, docs_dir=docs_dir.resolve(), site_url=site_url,
                                    use_directory_urls=use_directory_urls, redirects=dict(redirects or {}))
        self.setup = _setup_of(config_file, config.trust_project_code)
        self.documents: dict[str, Document] = {}
        self.sources: dict[str, str] = {}  # displayed source path -> source_uri
        self._as_written: dict[int, Link] = {}  # id(link checked) -> the same link as written
        self.network_down = ""  # why external links were not checked, when the network was down

    def add(self, page: RenderedPage) -> str | None:
        """Take one rendered page; returns why it is left out (its source is outside the
        project: not read, not reported), else None."""
        from .formats.html import extract_html
        from .formats.silence import silenced_in
        from .mkdocs.pages.extract import made_link_classes, place_links, without_made_links

        text, path = page.markdown, page.source_uri
        if page.source is not None:
            reason = outside_reason(page.source, self.boundary)
            if reason is not None:
                return reason
            path = display_path(page.source)
            try:
                text = read_text(page.source)[0]
            except Unreadable as exc:
                log.warning("%s: %s; placing its links in the markdown the build passed", page.source_uri, exc)
        made = made_link_classes(self.setup) if self.setup is not None else ()
        content = extract_html(without_made_links(page.content, made) if made else page.content, path, want_text=self.config.suggest)
        written: dict[str, deque[str]] = defaultdict(deque)
        for as_rendered, original in page.written:
            written[as_rendered].append(original)
        as_written = [replace(link, url=written[link.url].popleft()) if written.get(link.url) else link for link in content.links]
        rendered = {id(mine): theirs for mine, theirs in zip(as_written, content.links)}
        placed = place_links(as_written, text, path, self.setup, self._rerender(path))
        built = extract_html(page.output, path, want_text=False).page
        page_data = Page(path=path, url=page.output_uri, title=built.title or content.page.title, text=content.page.text, ids=built.ids)
        links = []
        for shown, source in placed:
            checked = Link(url=source.url if source.unverified else rendered[id(shown)].url, kind=source.kind, span=source.span,
                           page=page_data, anchor_text=shown.anchor_text or source.anchor_text, context=shown.context,
                           tag=source.tag or shown.tag, reference=source.reference, unverified=source.unverified)
            self._as_written[id(checked)] = replace(checked, url=source.url)
            links.append(checked)
        self.documents[page.output_uri] = Document(page=page_data, links=tuple(links), warnings=content.warnings,
                                                   silenced=silenced_in(text))  # the source's ignore comments and attributes
        self.sources[path] = page.source_uri
        return None

    def _rerender(self, path: str) -> Callable[[str], list[str]] | None:
        if self.setup is None:
            return None
        from .formats.html import extract_html
        from .mkdocs.pages.extract import made_link_classes, without_made_links
        from .mkdocs.pages.render import renderer_for, split_meta

        renderer, made = renderer_for(self.setup), made_link_classes(self.setup)
        if renderer is None:
            return None

        def rerender(marked: str) -> list[str]:
            html = renderer.render(split_meta(marked).markdown, path)
            return [link.url for link in extract_html(without_made_links(html, made), path, want_text=False).links] if html else []

        return rerender

    def external_hosts(self) -> list[str]:
        """The host names of the external links that only a working network resolves (no IP
        address, no `localhost` or single-label name, not the site's own host), in order, each once."""
        own = urlsplit(self.mkdocs.site_url).hostname if self.mkdocs.site_url else None
        hosts: dict[str, None] = {}
        for document in self.documents.values():
            for link in document.links:
                if not link.url.startswith(("http://", "https://", "//")):
                    continue
                try:
                    host = urlsplit(link.url if not link.url.startswith("//") else "https:" + link.url).hostname
                except ValueError:
                    continue
                if host and host != own and _needs_dns(host):
                    hosts.setdefault(host)
        return list(hosts)

    async def check(self, *, fail_on_network_down: bool = False, network_check: Callable[[Sequence[str]], bool] | None = None) -> Report:
        """Check every link of the pages taken; each result shows its link as written.

        External links need the network: when it is down (name lookups fail everywhere, or the
        checker finds out), they are left unchecked with `network_down` saying why, unless
        `fail_on_network_down` (then NetworkDownError)."""
        from .pipeline import check_documents

        project = self._project()
        config = self.config
        # A probe URL is the user's own test of the network (the checker asks it first); a probe
        # host name (the default) only confirms "name not found": the link hosts tell sooner.
        if not config.offline and not config.network_probe.startswith(("http://", "https://")) and not _proxied():
            hosts = self.external_hosts()[:NETWORK_HOSTS]
            if hosts and not (network_check or network_reachable)(hosts):
                self._down(NetworkDownError(f"network down: none of {', '.join(hosts)} resolves; external links not checked"),
                           fail_on_network_down)
                config = replace(config, offline=True)
        documents = sorted(self.documents.items())
        try:
            report = await check_documents(documents, project, config)
        except NetworkDownError as exc:
            self._down(exc, fail_on_network_down)
            report = await check_documents(documents, project, replace(config, offline=True))
        return replace(report, results=tuple(self._shown(result) for result in report.results))

    def _down(self, error: NetworkDownError, fail: bool) -> None:
        if fail:
            raise error
        self.network_down = str(error)

    def _shown(self, result: LinkResult) -> LinkResult:
        link = self._as_written.get(id(result.link), result.link)
        if self.network_down and result.scope is Scope.EXTERNAL and result.result.reason == Reason.OFFLINE:
            outcome = CheckResult(url=result.result.url, status=Status.EXCLUDED, reason=Reason.OFFLINE,
                                  detail="external link not checked: the network is down")
            return replace(result, link=link, result=outcome)
        return replace(result, link=link)

    def _project(self) -> Project:
        files: set[str] = set()
        dirs: set[str] = {""}
        for directory, subdirectories, names in os.walk(self.site_dir):
            subdirectories[:] = [d for d in subdirectories if d not in SKIP_DIRS]
            rel = os.path.relpath(directory, self.site_dir).replace(os.sep, "/")
            prefix = "" if rel == "." else rel + "/"
            if prefix:
                dirs.add(rel)
            files.update(prefix + name for name in names)
        return Project(files=[], root=self.site_dir, markdown=False, mkdocs=self.mkdocs, boundary=self.site_dir,
                       site_files=frozenset(files), site_dirs=frozenset(dirs))


def _setup_of(config_file: Path, trust_project_code: bool) -> MarkdownSetup | None:
    """The Markdown setup the source check would use for this project (where included files
    are, how to render marked text), or None when the config cannot be read here."""
    from .mkdocs.pages.extract import announce, setup_of

    try:
        setup = setup_of(replace(read_config(config_file), trust_project_code=trust_project_code))
    except LinkfixError as exc:
        log.debug("%s: %s", config_file, exc)
        return None
    return setup if announce(setup) else None


def _needs_dns(host: str) -> bool:
    """A name whose lookup tells whether the network works (resolvers answer `localhost` and
    IP addresses without one)."""
    try:
        ipaddress.ip_address(host.strip("[]"))
        return False
    except ValueError:
        pass
    return "." in host.strip(".") and host != "localhost" and not host.endswith(".localhost")


def _proxied() -> bool:
    """Requests go through a proxy (HTTP(S)_PROXY): local name lookups say nothing."""
    proxies = urllib.request.getproxies()
    return bool(proxies.get("http") or proxies.get("https"))


def network_reachable(hosts: Sequence[str], *, timeout: float = NETWORK_SECONDS,
                      resolve: Callable[[str], object] | None = None) -> bool:
    """Does any of `hosts` resolve within `timeout` seconds? All looked up at once; a lookup
    that hangs (no DNS server answers) is left to finish on its own (daemon threads)."""
    lookup = resolve or (lambda host: socket.getaddrinfo(host, 443, type=socket.SOCK_STREAM))
    answered = threading.Event()
    lock = threading.Lock()
    outcome = {"resolved": 0, "failed": 0}

    def look(host: str) -> None:
        try:
            lookup(host)
            key = "resolved"
        except (OSError, UnicodeError):
            key = "failed"
        with lock:
            outcome[key] += 1
            if key == "resolved" or outcome["failed"] == len(hosts):
                answered.set()

    for host in hosts:
        threading.Thread(target=look, args=(host,), name=f"linkfix-resolve-{host}", daemon=True).start()
    answered.wait(timeout)
    with lock:
        return outcome["resolved"] > 0
