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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .files import PAGE_SUFFIXES, MkDocsFiles, is_page


@dataclass(frozen=True, slots=True)
class Reached:
    """Where a link of a MkDocs page leads on the built site, as facts the checker turns into a
    verdict (check.local): one of
    - `file`: a docs file (page or asset) of the build, docs-relative, still to be checked (it
      may be missing: the path the link names when nothing else is known);
    - `made`: a file the build makes beside the docs (`by` makes it);
    - `maybe`: a file the build may make that a source check cannot list (`why`: the sentence);
    - `hosted`: a site path the built site lacks, left to the host's redirect files;
    - `broken`: nothing is there (`why`), at `path`;
    - `climbs`: the link climbs above the site root from the page's URL (`why`)."""

    kind: Literal["file", "made", "maybe", "hosted", "broken", "climbs"]
    path: str
    why: str = ""
    by: str = ""


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

    def reach(self, path: str, page: str, *, as_written: bool, hosted: Callable[[str], bool]) -> Reached:
        """Where the link `path` (decoded; relative, or root-relative without the site's path
        prefix) of the docs page `page` leads. `as_written`: a link MkDocs leaves as written
        whatever it names (raw HTML in markdown). `hosted`: whether the host's redirect files
        serve a site path (a missing file there is theirs to answer)."""
        named = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        if not as_written:
            docs = self.rewritten(path, page)
            if docs is not None:
                why = self.site.excluded.get(docs)
                if why:
                    return Reached("broken", docs, f"{docs} is not part of the built site: {why}")
                if docs not in self.docs_files:  # a file a plugin puts among the docs (monorepo), or a theme's
                    return Reached("made", docs, by=self.site.made.docs.get(docs) or self.site.made.files[docs])
                # a.md when a/index.md is built over it: the URL shows a/index.md
                return Reached("file", self.site.overwritten.get(docs, docs))
            if not path.startswith("/") and named in self.mkdocs.redirects:
                return Reached("file", named)  # old.md of redirect_maps: mkdocs-redirects keeps its URL alive
            if named.startswith("../") and posixpath.splitext(path)[1].lower() in PAGE_SUFFIXES:
                # A markdown source outside docs_dir is no page of the site, whatever its host serves
                # (MkDocs leaves the link as written; Zensical rewrites it to a page URL it never builds).
                return Reached("broken", named, f"{named} is outside docs_dir: no page of the built site")
        if path.startswith("/"):
            found = self.serve(path.lstrip("/"), root_relative=as_written or not self.mkdocs.absolute_links_to_docs)
        else:
            found = self.follow(path, page)
        if found.climbs:
            return Reached("climbs", found.built, found.broken)
        if found.path:
            return Reached("file", found.path)
        if found.made:
            return Reached("made", found.built, by=found.made)
        maybe = self.site.may_make(*_made_names(named, found.built))
        if maybe is not None:
            return Reached("maybe", found.built or path, maybe.sentence())
        if found.built and hosted(found.built):
            return Reached("hosted", found.built)
        if not as_written and not path.startswith("/") and posixpath.splitext(path.rstrip("/"))[1]:
            # A file link MkDocs did not find among the docs (it warns: "not found among
            # documentation files"), and left as written. What is missing is the source file it
            # names, relative to the page's source: that path is the target (the one suggestions
            # look up in the git history and the file list, and reports group by), not where a
            # browser would end up from the page's URL (faq/configure/ + ../a.md: faq/a.md).
            return Reached("broken", named, f"no such file: {named}{self.hint(named)}")
        return Reached("broken", found.built or path, found.broken)

    def reach_url(self, path: str, *, hosted: Callable[[str], bool]) -> Reached:
        """Where a full URL under site_url (its site path `path`, decoded) leads."""
        found = self.serve(path)
        if found.path:
            return Reached("file", found.path)
        if found.made:
            return Reached("made", found.built, by=found.made)
        maybe = self.site.may_make(*_made_names(path, path))
        if maybe is not None:
            return Reached("maybe", path, maybe.sentence())
        if found.built and hosted(found.built):
            return Reached("hosted", found.built)
        return Reached("broken", path, found.broken)

    def rewritten(self, path: str, page: str) -> str | None:
        """The docs file MkDocs rewrites a Markdown-syntax link `path` (decoded, relative or
        root-relative) of `page` to, or None when MkDocs leaves the link as written."""
        if path.startswith("/") and not self.mkdocs.absolute_links_to_docs:
            return None
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)).lstrip("/")
        if target in self.docs_files or target in self.site.made.docs or target in self.site.made.theme:
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


def _made_names(docs_path: str, built: str) -> list[str]:
    """The docs- and site-relative names a missing target may have among the files a build
    makes: as linked, and the page a directory URL would be (`reference/cli/` is `reference/cli.md`)."""
    names = [docs_path.lstrip("/"), built]
    stem = built.rstrip("/")
    if stem and not posixpath.splitext(stem)[1]:
        names += [stem + ".md", stem + "/index.md"]
    elif stem.endswith(".html"):
        names.append(stem[: -len(".html")] + ".md")
    return names
