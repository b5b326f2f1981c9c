"""Links of MkDocs pages, followed the way the built site follows them (MkDocs 1.6).

MkDocs rewrites a link only when it is written in Markdown syntax (`[x](y)`, `![x](y)`,
reference links) and names a file of the docs (`y` joined to the page's source directory,
normalised: `page.md/#frag` is `page.md`). Everything else it leaves as written: raw HTML
attributes, links to directories or extension-less names ("unrecognized"), links to files it does
not have, and root-relative links (`/x`, unless `validation.links.absolute_links:
relative_to_docs`). A link left as written is followed by the browser from the page's built URL
(`a/b/` with `use_directory_urls`, `a/b.html` without, and with Material's offline plugin), which
is what this module does, with MkDocsFiles saying what the built site serves there.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from .files import MkDocsFiles, is_page


@dataclass(frozen=True, slots=True)
class Resolved:
    """A MkDocs link resolved to a docs file (`path`, docs-relative), or why it is broken."""

    path: str = ""  # the docs file (page or asset) or redirect_maps key the link reaches
    broken: str = ""  # why nothing is there (a sentence), when `path` is empty
    climbs: bool = False  # the link leads above the site root
    built: str = ""  # the site-relative URL path it was followed to, when it was left as written
    made: str = ""  # what makes the file there when the site is built (a theme, a plugin), when no docs file is


class MkDocsLinks:
    def __init__(self, site: MkDocsFiles, docs_files: frozenset[str]) -> None:
        self.site = site
        self.docs_files = docs_files  # every file under docs_dir
        self.mkdocs = site.mkdocs

    def rewritten(self, path: str, page: str) -> str | None:
        """The docs file MkDocs rewrites a Markdown-syntax link `path` (decoded, relative or
        root-relative) of `page` to, or None when MkDocs leaves the link as written."""
        if path.startswith("/") and not self.mkdocs.absolute_links_to_docs:
            return None
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)).lstrip("/")
        if target in self.docs_files or target in self.site.made.docs:
            return target
        if self.site.i18n is not None:  # the page's language, the default's, as written
            return next((found for found in self.site.i18n.lookups(target, page) if found in self.docs_files), None)
        return None

    def follow(self, path: str, page: str) -> Resolved:
        """Where the built site takes a relative link left as written in `page`: the path is
        joined to the page's URL and served as the site serves it."""
        url = self.site.pages.get(page) or self.site.url(page)
        directory = posixpath.dirname(url)
        joined = posixpath.normpath(f"{directory}/{path}" if directory else path)
        if joined == ".." or joined.startswith("../"):
            return Resolved(climbs=True, built=joined, broken=f"MkDocs leaves this link as written; from the page's URL /{url} "
                                                               "it climbs above the site root")
        joined = "" if joined == "." else joined
        names_directory = path.endswith("/") or posixpath.basename(path) in (".", "..")
        built = joined + "/" if names_directory and joined else joined
        return self.serve(built, written_from=url)

    def serve(self, built: str, *, written_from: str | None = None, root_relative: bool = False) -> Resolved:
        """What the built site has at the site-relative URL path `built`; when nothing, why,
        for a link followed from the page's URL `written_from`, a root-relative link, or a
        full URL under site_url."""
        served = self.site.serve(built)
        if served is not None and served.kind == "made":
            return Resolved(made=served.target, built=built)
        if served is not None:
            return Resolved(path=served.target, built=built)
        hint = self.hint(built)
        if written_from is not None:
            why = f"MkDocs leaves this link as written; from the page's URL /{written_from} it leads to /{built}, which the built site does not have"
        elif root_relative:
            why = f"MkDocs leaves root-relative links as written: /{built} is not a URL of the built site (a 404 once published)"
        else:
            why = f"/{built} is not a URL of the built site"
        return Resolved(broken=why + hint, built=built)

    def hint(self, built: str) -> str:
        """Where the page a missing built path was probably meant for is published."""
        stem = built.rstrip("/")
        if stem in self.site.pages:
            return f" (MkDocs publishes {stem} at /{self.site.pages[stem]}: link it as a relative {posixpath.basename(stem)})"
        if stem in self.site.excluded:
            return f" ({stem} is not published: {self.site.excluded[stem]})"
        if is_page(stem) or not self.site.directory_urls:
            guess = self._page_near(stem)
            if guess is not None:
                return f" (the page {guess} is published at /{self.site.pages[guess]})"
        return ""

    def _page_near(self, stem: str) -> str | None:
        """The page a built path that is not served was probably meant for."""
        base = posixpath.splitext(stem)[0] if is_page(stem) or stem.endswith(".html") else stem
        for candidate in (base + ".md", posixpath.join(base, "index.md"), posixpath.join(base, "README.md")):
            if candidate in self.site.pages:
                return candidate
        return None
