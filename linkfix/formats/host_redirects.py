"""Redirects the site's host serves beside the built files: Vercel's `vercel.json`, the
`_redirects` file of Netlify and Cloudflare Pages, Netlify's `netlify.toml`.

A site published to such a host keeps old URLs alive with them (a page moved; `.html` URLs that
became directory URLs), so a link to such a URL works for every reader, through a redirect, as a
link to a mkdocs-redirects `redirect_maps` key does. They are read where the host reads them: the
site's root (a file at the top of the docs directory, which the build copies there) and, for
`vercel.json` and `netlify.toml`, the project's top (the tree a host builds from).

Patterns: exact paths, `:name` segments and splats (`*`, `:name*`, `(.*)`), with `:name`,
`:splat` and `$1` in the destination; the first rule that matches wins, as on both hosts. Left
out: rules with conditions (headers, cookies, query, country, role), and answers that keep no
URL alive (404, 410, ...): they do not hold for every reader.
"""

from __future__ import annotations

import json
import logging
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config.patterns import PatternError, RepositoryPattern, RunawayPattern, repository_pattern
from ..errors import InputError
from ..files.read import Unreadable, read_bytes

log = logging.getLogger(__name__)

MAX_RULES = 20_000  # a redirect file bigger than this is read up to here
MAX_FILE_BYTES = 4 * 1024 * 1024
# Answers that keep the URL working: a redirect, or a rewrite (200) that serves other content there.
WORKING_STATUSES = frozenset({200, 301, 302, 303, 307, 308})
_TOKEN = re.compile(r"(:[A-Za-z_]\w*\*?|\(\.\*\)|\*)")
_REFERENCE = re.compile(r"\$(\d+)|:([A-Za-z_]\w*)\*?")  # `:name*` in a destination is the splat too


@dataclass(frozen=True, slots=True)
class HostRedirect:
    destination: str  # a site path (`/new/`, perhaps with #fragment) or a full URL
    by: str  # the file that says so, for the report (`vercel.json`, `docs/_redirects`)
    status: int  # 301, 302, 307, 308: a redirect; 200: a rewrite (the destination served at the URL)


@dataclass(frozen=True, slots=True)
class _Rule:
    source: str
    destination: str
    by: str
    status: int


class HostRedirects:
    def __init__(self, rules: list[_Rule]) -> None:
        self._exact: dict[str, tuple[int, _Rule]] = {}
        self._patterns: list[tuple[int, RepositoryPattern, _Rule]] = []
        for index, rule in enumerate(rules[:MAX_RULES]):
            if _TOKEN.search(rule.source):
                pattern = _compile(rule.source, rule.by)
                if pattern is not None:
                    self._patterns.append((index, pattern, rule))
            else:
                self._exact.setdefault(rule.source, (index, rule))

    def __len__(self) -> int:
        return len(self._exact) + len(self._patterns)

    def lookup(self, path: str) -> HostRedirect | None:
        """Where the host sends the site path `path` (site-relative, no leading slash), or None."""
        wanted = "/" + path
        exact = self._exact.get(wanted)
        first = exact[0] if exact is not None else len(self._exact) + len(self._patterns) + 1
        for index, pattern, rule in self._patterns:
            if index > first:
                break
            try:
                found = pattern.fullmatch(wanted)
            except RunawayPattern:  # a source that backtracks without bound (`/(.*)(.*)...x`) matches nothing
                continue
            if found is not None:
                return HostRedirect(_substitute(rule.destination, found), rule.by, rule.status)
        if exact is None:
            return None
        rule = exact[1]
        return HostRedirect(rule.destination, rule.by, rule.status)


def read_host_redirects(site_root: Path, project_top: Path, site_root_files: frozenset[str]) -> HostRedirects | None:
    """The host redirects of a site whose built root is copied from `site_root` (the docs
    directory; `site_root_files`: the names the build publishes there) and whose project is at
    `project_top`; None when there are none."""
    rules: list[_Rule] = []
    for name, reader in (("_redirects", _redirects_file), ("vercel.json", _vercel)):
        if name in site_root_files:
            rules += reader(site_root / name, f"{site_root.name}/{name}")
    for name, reader in (("vercel.json", _vercel), ("netlify.toml", _netlify_toml)):
        if (project_top / name).is_file() and project_top.resolve() != site_root.resolve():
            rules += reader(project_top / name, name)
    return HostRedirects(rules) if rules else None


def _text(path: Path) -> str | None:
    """Through read_bytes, as every config linkfix reads: a FIFO or a device under the name is
    refused, not waited on."""
    try:
        return read_bytes(path, limit=MAX_FILE_BYTES).decode("utf-8", errors="replace")
    except Unreadable as exc:
        log.warning("%s: its redirects are not read (%s)", path, exc)
        return None


def _redirects_file(path: Path, by: str) -> list[_Rule]:
    """Netlify's and Cloudflare Pages' `_redirects`: `from to [status[!]]` a line."""
    text = _text(path)
    rules: list[_Rule] = []
    for line in (text or "").splitlines():
        fields = [] if line.lstrip().startswith("#") else line.split()  # a comment is a line of its own
        if len(fields) < 2 or len(fields) > 3 or "=" in fields[1]:
            continue  # a comment, or a rule with conditions (query, country, language, role)
        status = _status(fields[2].rstrip("!")) if len(fields) == 3 else 301
        if status in WORKING_STATUSES and fields[0].startswith("/"):
            rules.append(_Rule(fields[0], fields[1], by, status))
    return rules


def _vercel(path: Path, by: str) -> list[_Rule]:
    """`vercel.json`: its `redirects` and `rewrites`."""
    text = _text(path)
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        log.warning("%s is not JSON: its redirects are not read", path)
        return []
    except RecursionError:
        raise _too_deep(path) from None
    rules: list[_Rule] = []
    for key in ("redirects", "rewrites"):
        entries = data.get(key) if isinstance(data, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, dict) or entry.get("has") or entry.get("missing"):
                continue  # conditional on headers, cookies, query or host
            source, destination = entry.get("source"), entry.get("destination")
            status = 200 if key == "rewrites" else entry.get("statusCode", 308 if entry.get("permanent", True) else 307)
            if isinstance(source, str) and isinstance(destination, str) and source.startswith("/") and status in WORKING_STATUSES:
                rules.append(_Rule(source, destination, by, status))
    return rules


def _netlify_toml(path: Path, by: str) -> list[_Rule]:
    """`netlify.toml`: its `[[redirects]]` tables."""
    text = _text(path)
    try:
        data = tomllib.loads(text) if text else {}
    except tomllib.TOMLDecodeError:
        log.warning("%s is not TOML: its redirects are not read", path)
        return []
    except RecursionError:
        raise _too_deep(path) from None
    rules: list[_Rule] = []
    entries = data.get("redirects")
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or entry.get("conditions") or entry.get("query"):
            continue
        source, destination, status = entry.get("from"), entry.get("to"), entry.get("status", 301)
        if isinstance(source, str) and isinstance(destination, str) and source.startswith("/") and status in WORKING_STATUSES:
            rules.append(_Rule(source, destination, by, status))
    return rules


def _too_deep(path: Path) -> InputError:
    """A redirect file nested deeper than Python's parsers go (200,000 `[`): not a file of
    redirects anyone writes; said as the input error it is, not a traceback."""
    return InputError(f"{path}: nested too deeply to be read (its redirects decide which links work): not read")


def _status(text: str) -> int:
    return int(text) if text.isdigit() else 0


def _compile(source: str, by: str) -> RepositoryPattern | None:
    parts = []
    for piece in _TOKEN.split(source):
        if piece == "*":
            parts.append("(?P<splat>.*)")
        elif piece == "(.*)":
            parts.append("(.*)")
        elif piece.startswith(":") and _TOKEN.fullmatch(piece):
            name = piece[1:].rstrip("*")
            parts.append(f"(?P<{name}>.*)" if piece.endswith("*") else f"(?P<{name}>[^/]+)")
        else:
            parts.append(re.escape(piece))
    try:
        return repository_pattern("".join(parts), origin=f"{by}: the redirect source {source[:100]!r}")
    except PatternError:  # the same name twice, say: a rule the host would refuse too
        return None


def _substitute(destination: str, found: Any) -> str:
    def value(reference: re.Match[str]) -> str:
        number, name = reference.groups()
        try:
            return (found.group(int(number)) if number else found.group(name)) or ""
        except IndexError:  # no such group in the source: left as written
            return reference.group(0)

    return _REFERENCE.sub(value, destination)
