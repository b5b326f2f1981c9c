"""Write a new internal target the way the broken link was written.

The replacement keeps the link's own style: relative from the linking page (or root-relative,
or under the site's URL, as the link was), `page.md` vs `page/` vs `page.html` vs `page`, a
leading `./`. Pure: the caller confirms with the LocalChecker that what is written resolves.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import quote

from .names import PAGE_SUFFIXES

_MARKDOWN = frozenset({".md", ".markdown", ".mdown", ".mkd"})
_SCHEME_HOST = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/]*")
_INDEX = re.compile(r"(^|/)(index|README)\.[^/]+$", re.IGNORECASE)
# What stays unencoded in a written path: RFC 3986 path characters (`%` too: a name that
# holds one is rare, and the link's own escapes are not re-encoded).
_SAFE = "/:@!$&'()*+,;=-._~%"


def spellings(file: str, fragment: str, *, written: str, page_rel: str, site_prefix: str = "") -> list[str]:
    """Ways to write a link to root-relative `file` (+ `#fragment`) from `page_rel`, the
    link's own style first, then plainer forms (the caller keeps the first that resolves).

    `written` is the broken link as written; `site_prefix` the site's URL path ('' or 'docs/')
    that a root-relative link may start with."""
    path_part = written.partition("#")[0].partition("?")[0]
    tail = f"#{quote(fragment, safe=_SAFE + '#')}" if fragment else ""
    if file == page_rel and not path_part:
        return [tail or "#"]  # a link within the page stays one
    lead, rest = _lead(path_part, site_prefix)
    forms = [_form(file, rest)]
    if forms[0] != file:
        forms.append(file)
    out = []
    for form in forms:
        if lead:  # root-relative or absolute: from the root, as the broken link was written
            target = lead + form
        else:
            relative = _relative(form, posixpath.dirname(page_rel))
            if rest.startswith("./") and not relative.startswith(("../", "./")):
                relative = "./" + relative
            target = relative
        spelled = quote(target, safe=_SAFE) + tail
        if spelled not in out:
            out.append(spelled)
    return out


def _lead(path: str, site_prefix: str) -> tuple[str, str]:
    """('https://site/docs/' or '/' or '', the rest of the path)."""
    scheme = _SCHEME_HOST.match(path)
    if scheme:
        lead = scheme.group(0) + "/"
        rest = path[len(lead):]
        if site_prefix and rest.startswith(site_prefix):
            lead, rest = lead + site_prefix, rest[len(site_prefix):]
        return lead, rest
    if path.startswith("/"):
        rest = path.lstrip("/")
        if site_prefix and rest.startswith(site_prefix):
            return "/" + site_prefix, rest[len(site_prefix):]
        return "/", rest
    return "", path


def _form(file: str, written: str) -> str:
    """`file` in the form the written path used: file name, directory URL, `.html`, or bare."""
    stem, suffix = posixpath.splitext(file)
    if suffix.lower() not in PAGE_SUFFIXES:
        return file  # an image, a PDF: its own name
    directory = _INDEX.sub(r"\1", file)  # 'a/index.md' -> 'a/'; '' for the root index
    page = directory if directory != file else stem + "/"
    if written.endswith("/") or not written:
        return page
    written_suffix = posixpath.splitext(written)[1].lower()
    if written_suffix in (".html", ".htm") and suffix.lower() in _MARKDOWN:
        return (directory + "index" if directory != file else stem) + written_suffix
    if not written_suffix:
        return page.rstrip("/") if page else page  # 'a/b' for a/b.md, 'a' for a/index.md
    return file


def _relative(target: str, directory: str) -> str:
    """`target` (root-relative, maybe ending in '/') relative to `directory`."""
    if not target:
        relative = posixpath.relpath(".", directory or ".") if directory else "."
        return relative + "/" if relative != "." else "./"
    slash = target.endswith("/")
    relative = posixpath.relpath(target.rstrip("/") or ".", directory or ".")
    if relative == ".":
        return "./"  # the page's own directory: its index
    return relative + "/" if slash else relative
