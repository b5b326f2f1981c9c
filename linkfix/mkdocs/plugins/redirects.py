"""mkdocs-redirects (and Zensical's own `redirects`): `redirect_maps` keeps old URLs alive.

After the build (`on_post_build`) the plugin writes, at the URL each `redirect_maps` key would
have had, a stub page whose script and meta refresh send the reader to the target: when the
target is a page of the build or an http(s) URL, and over the page of a key that still exists.
Keys and targets are docs-relative `.md` paths (a target may carry a `#fragment`).
"""

from __future__ import annotations

import posixpath


def redirect_of(redirects: dict[str, str], path: str) -> str | None:
    """The target `redirect_maps` gives the docs path (or directory URL) `path`, if it maps it:
    `old.md`, `old/` and `old` name the key `old.md` (or `old/index.md`)."""
    if not redirects:
        return None
    stem = path.rstrip("/")
    for key in (path, stem, stem + ".md", stem + "/index.md", posixpath.splitext(stem)[0] + ".md"):
        if key in redirects:
            return redirects[key]
    return None


def stubs(redirects: dict[str, str], pages: dict[str, str]) -> list[str]:
    """The keys mkdocs-redirects writes a stub for: its target is a page of the build
    (`pages`, docs-relative) or an http(s) URL."""
    return [old for old, new in redirects.items()
            if new.lower().startswith(("http://", "https://")) or new.partition("#")[0] in pages]
