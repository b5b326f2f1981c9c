"""A document's links resolved as they will be checked: what each link's target is as its
renderer decodes it, where it leads from its page, and what the run's filter makes of it; and
which of them a change (--changed-since, --staged) puts up for checking."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from ..check.local import LocalChecker
from ..check.targets import Target
from ..formats.html.scanned import ScannedLinks
from ..formats.markdown.gfm import is_gfm_www
from ..formats.markdown.targets import markdown_target
from ..inputs.changed import Changes
from ..inputs.sources import Project
from ..inputs.walk import MARKDOWN_SUFFIXES
from ..model import Document, Link, LinkKind, Scope


class Keep(Protocol):
    def __call__(self, page: Path, link: Link, target: Target) -> bool: ...



def keep_for(changed: Changes, project: Project) -> Keep:
    """--changed-since (or --staged) with deleted files: a link on a changed line of a changed
    file, or one that leads to a deleted file (as written, or at the URL a family build gave it)."""
    gone: set[str] = set()
    for path in changed.deleted:
        rel = project.relative(Path(path))
        if rel is None:
            continue
        gone.add(rel)
        if project.mkdocs_files is not None and project.mkdocs_files.is_page(rel):
            url = project.mkdocs_files.url(rel)
            gone.update({url, url.rstrip("/"), url + "index.html"} if url else {""})

    def keep(page: Path, link: Link, target: Target) -> bool:
        """`page`: the absolute path of the document the link was read from."""
        if target.scope is Scope.INTERNAL and target.resolved.partition("#")[0] in gone:
            return True
        return changed.covers(page, link.span.line)

    return keep



def resolve_links(rel: str, doc: Document, local: LocalChecker) -> tuple[Sequence[Link], list[Target]]:
    """The links of `doc` (at root-relative `rel`) as they will be checked, and where each
    points: what renders (markdown keeps targets as written: `a\\)b`, `&amp;`), resolved from
    its page, then what the run's filter makes of it (check/filter: ignore comments,
    attributes and files; exclude and remap rules of internal links)."""
    decode = _markdown_target if Path(rel).suffix.lower() in MARKDOWN_SUFFIXES else _link_as_is
    resolve = local.resolver_for(doc.page, rel)
    rules = local.filter.rules_for(resolve, local.site_target)
    links = doc.links
    if isinstance(links, ScannedLinks) and local.templates is None and not doc.silenced:
        # A scanned HTML page: resolved from its URLs, its Links made only for the results kept.
        if rules is None:
            return links, links.resolved(resolve)
        return links, links.resolved(lambda url, as_written: rules(url, url, resolve(url, as_written), as_written))
    # Raw HTML in markdown is what MkDocs leaves as written whatever it names; a GitHub
    # `www.` autolink (only plain markdown has them: formats/markdown/gfm.py) goes to http://.
    # A link extraction says must not be checked (`Link.unverified`) is not even resolved. A link
    # the build made (no place in the source: an extension's, a hook's) is in Python-Markdown's
    # tree, where MkDocs rewrites links to docs files as it does Markdown links.
    # A macros template's target is checked as each value it renders to from the project's data.
    if local.templates is not None:
        links = local.templates.links(local.project.root / rel, doc)
    # (Zensical rewrites raw HTML links as it does Markdown ones: mkdocs.config.dialect.)
    raw_as_written = not (local.project.mkdocs is not None and local.project.mkdocs.dialect.rewrites_raw_html)
    if local.mkdocs_links is not None and (doc.is_nav or rel in local.mkdocs_links.site.nav_documents):
        # The config's nav, a plugin's nav file (literate-nav's SUMMARY.md): their links are nav entries.
        from ..check.mkdocs_nav import nav_document_targets, nav_targets

        targets = (nav_targets if doc.is_nav else nav_document_targets)(local, doc.page, rel, links)
        if rules is not None:  # ignore files, exclude and remap reach a nav entry as any link
            targets = [rules(link.url, link.url, target, False) for link, target in zip(links, targets, strict=True)]
    else:
        targets = []
        for link in links:
            as_written = raw_as_written and link.kind is LinkKind.HTML and link.span.start != link.span.end
            if link.unverified:
                url, target = link.url, local.filter.included_text(link)
            else:
                url = f"http://{link.url}" if link.kind is LinkKind.BARE and is_gfm_www(link.url) else decode(link)
                target = resolve(url, as_written)
            targets.append(target if rules is None else rules(link.url, url, target, as_written))
    if doc.silenced:
        targets = [local.filter.silenced(link, target, doc.silenced) for link, target in zip(links, targets, strict=True)]
    return links, targets



def _markdown_target(link: Link) -> str:
    """What a markdown source's link points at: decoded as the page's renderer decodes a link
    of its kind (formats/markdown/targets.py)."""
    return markdown_target(link.url, link.kind, link.page.dialect)



def _link_as_is(link: Link) -> str:
    return link.url
