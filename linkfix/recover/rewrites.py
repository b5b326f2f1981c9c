"""Cheap URL rewrites that are tried (and checked) before any search, and the ones learned in a run.

A rewrite is only a guess: the recoverer checks every one through the HTTP client and keeps it
only when the page is live, not a soft-404 and not the site's home page.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit, urlunsplit

#: Cheap rewrites tried per dead link (each costs one check).
MAX_CHEAP = 5

_GITHUB_BRANCH = re.compile(r"^(/[^/]+/[^/]+/(?:blob|tree|raw|edit)/)master(/|$)")


def _with(parts: SplitResult, **changes: str) -> str:
    return urlunsplit(parts._replace(**changes))


def cheap_rewrites(url: str) -> list[tuple[str, str]]:
    """(rewritten URL, rule name), most likely first; never the URL itself."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return []
    path = parts.path or "/"
    out: list[tuple[str, str]] = []
    host = parts.hostname or ""
    if host in ("github.com", "www.github.com") and _GITHUB_BRANCH.match(path):
        out.append((_with(parts, path=_GITHUB_BRANCH.sub(r"\1main\2", path, count=1)), "github-master-main"))
    stem, ext = posixpath.splitext(path)
    if ext in (".html", ".htm"):
        if stem.endswith("/index"):
            out.append((_with(parts, path=stem[: -len("index")]), "drop-index-html"))
        else:
            out.append((_with(parts, path=stem + "/"), "html-to-directory"))
            out.append((_with(parts, path=stem), "drop-extension"))
        if ext == ".htm":
            out.append((_with(parts, path=stem + ".html"), "htm-to-html"))
    elif path.endswith("/") and path != "/":
        out.append((_with(parts, path=path.rstrip("/") + ".html"), "directory-to-html"))
        out.append((_with(parts, path=path.rstrip("/")), "drop-trailing-slash"))
    elif not ext and path != "/":
        out.append((_with(parts, path=path + "/"), "add-trailing-slash"))
        out.append((_with(parts, path=path + ".html"), "add-html"))
    if parts.scheme == "http":
        out.insert(0, (_with(parts, scheme="https"), "https"))
    if path != path.lower():
        out.append((_with(parts, path=path.lower()), "lowercase"))
    if host.startswith("www."):
        out.append((_with(parts, netloc=parts.netloc.replace("www.", "", 1)), "drop-www"))
    elif host.count(".") == 1:
        out.append((_with(parts, netloc="www." + parts.netloc), "add-www"))
    seen = {url}
    unique = []
    for candidate, rule in out:
        if candidate not in seen:
            seen.add(candidate)
            unique.append((candidate, rule))
    return unique[:MAX_CHEAP]


@dataclass(frozen=True, slots=True)
class PathRule:
    """old prefix + rest (+ old suffix) -> new prefix + rest (+ new suffix), on one host.

    Learned from pairs like /docs/v1/install.html -> /guide/install/ (prefix /docs/v1/ ->
    /guide/, suffix .html -> /), the shape of a site restructure.
    """

    old_host: str
    new_host: str
    old_prefix: str
    new_prefix: str
    old_suffix: str
    new_suffix: str

    def apply(self, url: str) -> str | None:
        parts = urlsplit(url)
        path = parts.path
        if parts.netloc != self.old_host or not path.startswith(self.old_prefix) or not path.endswith(self.old_suffix):
            return None
        rest = path[len(self.old_prefix): len(path) - len(self.old_suffix) if self.old_suffix else None]
        if not rest:
            return None
        return urlunsplit(parts._replace(netloc=self.new_host, path=self.new_prefix + rest + self.new_suffix))


_SUFFIXES = ("/index.html", ".html", ".htm", "/", "")


def _split_suffix(path: str) -> tuple[str, str]:
    for suffix in _SUFFIXES:
        if suffix and path.endswith(suffix) and len(path) > len(suffix):
            return path[: -len(suffix)], suffix
    return path, ""


def learn_rule(old_url: str, new_url: str) -> PathRule | None:
    """The prefix/suffix rule that maps old to new, when they share the last path segment(s)."""
    old, new = urlsplit(old_url), urlsplit(new_url)
    old_stem, old_suffix = _split_suffix(old.path)
    new_stem, new_suffix = _split_suffix(new.path)
    old_segments, new_segments = old_stem.split("/"), new_stem.split("/")
    common = 0
    while (
        common < min(len(old_segments), len(new_segments)) - 1
        and old_segments[-1 - common] == new_segments[-1 - common]
    ):
        common += 1
    if common == 0:
        return None  # the page itself was renamed: nothing a rule could carry to other pages
    old_prefix = "/".join(old_segments[:-common]) + "/"
    new_prefix = "/".join(new_segments[:-common]) + "/"
    rule = PathRule(old.netloc, new.netloc, old_prefix, new_prefix, old_suffix, new_suffix)
    if (old.netloc, old_prefix, old_suffix) == (new.netloc, new_prefix, new_suffix):
        return None
    return rule


class LearnedRewrites:
    """Rules learned in this run from confident recoveries, tried first on the same host."""

    def __init__(self) -> None:
        self.support: Counter[PathRule] = Counter()

    def record(self, old_url: str, new_url: str) -> None:
        rule = learn_rule(old_url, new_url)
        if rule is not None:
            self.support[rule] += 1

    def rewrites(self, url: str) -> list[tuple[str, str, int]]:
        """(rewritten URL, rule description, support), best supported first."""
        out = []
        for rule, support in self.support.most_common():
            target = rule.apply(url)
            if target and target != url:
                out.append((target, f"learned {rule.old_prefix}*{rule.old_suffix} -> {rule.new_host}{rule.new_prefix}*{rule.new_suffix}", support))
        return out
