"""Links and ids of a MkDocs page as MkDocs renders it, each link at its exact source span.

The page is rendered with Python-Markdown and the project's `markdown_extensions` (`render`,
`setup`): links inside admonitions, content tabs, `<div markdown>` blocks, footnotes, ... are
links, and the ids are the ones the extensions make (toc slugify and separator, attr_list,
footnotes, tabs, fences). Links and ids are read from the rendered HTML, and each rendered link
is put back on the place in the source where its target is written (`candidates`, `place`),
so that reports name file:line:column and `fix` edits exactly that target.

Rendered links with no place in the page:
- a link to a fragment of the page itself is made by an extension (toc permalinks, footnote
  references and back-references, line anchors): not the author's, skipped;
- one brought in by `pymdownx.snippets` is the included file's (`includes`);
- any other (made at build time, e.g. by a `:::` block) is kept, with an empty span at the
  place it is made from: checked, never auto-fixed.

A page whose build makes more ids than its source shows (`:::` blocks of mkdocstrings or
mkdocs-click, markdown-exec output) says so in `Page.build_ids`: the check reports a fragment
not found there as unverified, not broken. When Python-Markdown cannot render (not installed,
a page it fails on), the page is read with the CommonMark reader, as before.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from ...inputs.mkdocs_made import TRUST_HINT, install_hint
from ...model import Document, Link, LinkKind, Page, id_key
from ..html import extract_html
from ..markdown import extract_markdown
from .candidates import candidates, search
from .includes import SNIPPETS, IncludedFiles, attribute, span_at
from .place import Rerender, place
from .render import Body, renderer_for, split_meta
from .setup import BUILD_TIME_CLASS, INCLUDE_NAMES, MarkdownSetup, announce, is_template_extension, setup_of

__all__ = ["MarkdownSetup", "announce", "extract_mkdocs", "made_link_classes", "place_links", "setup_of", "without_made_links"]

# A `::: identifier` block (mkdocstrings, mkdocs-click, any `:::` directive) left as text: what
# it makes (headings, ids, links) exists only in the built site.
# mkdocstrings also takes one as a heading (`# ::: package`, its heading level set by the `#`s).
_DIRECTIVE_HTML = re.compile(r"<(?:p|h[1-6])\b[^>]*>:::[ \t]*[^\s<]")
_DIRECTIVE_SOURCE = re.compile(r"^[ ]{0,3}(?:#{1,6}[ \t]+)?:::[ \t]*\S", re.MULTILINE)
_BUILD_TIME_HTML = re.compile(rf'class="{BUILD_TIME_CLASS}" data-made-by="([^"]+)"')
# Links an extension makes, by the class it gives them: toc permalinks, footnote references and
# back-references. Not the author's: they are taken out before the rendered links are placed.
MADE_LINK_CLASSES = ("headerlink", "footnote-ref", "footnote-backref")


@functools.lru_cache(maxsize=8)
def _made_link(classes: tuple[str, ...]) -> re.Pattern[str]:
    names = "|".join(re.escape(name) for name in classes)
    return re.compile(r'<a\b(?=[^>]*\bclass="(?:[^"]*\s)?(?:' + names + r')(?:\s[^"]*)?")([^>]*?)\bhref=')


def without_made_links(html: str, classes: tuple[str, ...] = MADE_LINK_CLASSES) -> str:
    """`html` with the `href` of the links extensions make renamed (so that no link is read there)."""
    return _made_link(classes).sub(r"<a\1data-made-href=", html) if "href" in html else html


def made_link_classes(setup: MarkdownSetup) -> tuple[str, ...]:
    """MADE_LINK_CLASSES, with the toc permalink class the config sets."""
    toc = setup.configs().get("toc")
    permalink = toc.get("permalink_class") if isinstance(toc, dict) else None
    return (*MADE_LINK_CLASSES, permalink) if isinstance(permalink, str) and permalink not in MADE_LINK_CLASSES else MADE_LINK_CLASSES


def extract_mkdocs(text: str, path: str, setup: MarkdownSetup, *, want_text: bool = True) -> Document:
    """Every link MkDocs renders from the page `text` (file `path`), with its source span, and
    the page with the ids MkDocs gives it."""
    renderer = renderer_for(setup)
    body = split_meta(text)
    rendered = renderer.render(body.markdown, path) if renderer is not None else None
    if renderer is None or rendered is None:
        return _commonmark(text, path, want_text)
    made = made_link_classes(setup)
    html = extract_html(without_made_links(rendered, made), path, want_text=want_text)
    rewritten_by = "" if renderer.hooks_ran(path) else _rewritten_by(setup, body.markdown, rendered)
    page = Page(
        path=path,
        title=_title(body, html.page.title),
        text=html.page.text,
        ids=html.page.ids,
        build_ids="; ".join(clause for clause in (_build_ids(rendered), _template_ids(setup, body.markdown), rewritten_by and
                                                  f"{rewritten_by} may rewrite the page when the site is built, and its ids with it; {TRUST_HINT}")
                            if clause),
        rewritten_by=rewritten_by,
        **_unsure_ids(renderer.unsure, renderer.unsure_packages, body.markdown, html.page.ids),
    )
    def rerender(marked: str) -> list[str]:
        html = renderer.render(split_meta(marked).markdown, path)
        return [link.url for link in extract_html(without_made_links(html, made), path, want_text=False).links] if html else []

    links = place_links(html.links, text, path, setup, rerender)
    return Document(
        page=page,
        links=tuple(_link(source, shown, page) for shown, source in links),
        warnings=html.warnings,
    )


def place_links(shown: Sequence[Link], text: str, path: str, setup: MarkdownSetup | None,
                rerender: Rerender | None = None) -> list[tuple[Link, Link]]:
    """(rendered link, where it is written) for every rendered link of the page `text` (file
    `path`) that is the author's: each `shown` link's `url` is its target as written (before a
    build rewrote it). `rerender` renders marked source text (see `place`); `setup` says where
    included files are."""
    places = place(shown, candidates(text, path), text, rerender)
    body = split_meta(text).markdown
    body_start = len(text) - len(body) if text.endswith(body) else 0
    taken = {(p.span.start, p.span.end) for p in places if p is not None}
    missing: dict[int, Link] = {}
    for index, (link, where) in enumerate(zip(shown, places)):
        if where is not None:
            continue
        spot = search(text, link.url, start=body_start, taken=taken)
        if spot is not None and link.url.startswith("mailto:") and not text.startswith("mailto:", spot.start):
            # A mail address an extension made a link of (`<me@example.com>`, magiclink's bare
            # address, also inside a fence that renders Markdown): no URL is written, and mail
            # addresses are not checked (as the CommonMark reader leaves them).
            taken.add((spot.start, spot.end))
            continue
        if spot is not None:
            if spot.kind is not LinkKind.REFERENCE:  # a definition serves every use of its label
                taken.add((spot.start, spot.end))
            places[index] = Link(url=text[spot.start : spot.end], kind=spot.kind, span=span_at(text, path, spot.start, spot.end),
                                 page=link.page, tag=link.tag if spot.kind is LinkKind.HTML else "")
        elif not link.url.startswith("#"):  # a same-page fragment with no place: made by an extension
            missing[index] = link
    if missing:
        snippets = setup is not None and any(name in setup.extensions for name in (SNIPPETS, *INCLUDE_NAMES))
        included, include_at = attribute(missing, text, IncludedFiles(setup)) if setup is not None and snippets else ({}, None)
        for index, link in missing.items():
            if index in included:
                places[index] = included[index]
            else:
                at = include_at if include_at is not None else _made_at(text, link, body_start)
                places[index] = Link(url=link.url, kind=LinkKind.HTML, span=span_at(text, path, at, at), page=link.page, tag=link.tag)
    return [(link, where) for link, where in zip(shown, places) if where is not None]


def _link(source: Link, shown: Link, page: Page) -> Link:
    return Link(url=source.url, kind=source.kind, span=source.span, page=page, anchor_text=shown.anchor_text or source.anchor_text,
                context=shown.context, tag=source.tag, reference=source.reference)


def _made_at(text: str, link: Link, body_start: int) -> int:
    """Where a link made at build time is reported: its `:::` block, else its anchor text, else
    the start of the page's body."""
    directive = _DIRECTIVE_SOURCE.search(text, body_start)
    if directive is not None:
        return directive.start()
    if link.anchor_text:
        at = text.find(link.anchor_text, body_start)
        if at >= 0:
            return at
    return body_start


def _title(body: Body, rendered_title: str) -> str:
    title = body.meta.get("title")
    return str(title).strip() if isinstance(title, (str, int, float)) and not isinstance(title, bool) else rendered_title


def _build_ids(html: str) -> str:
    makers = []
    if _DIRECTIVE_HTML.search(html):
        makers.append("`:::` blocks")
    makers += sorted({f"{name} blocks" for name in _BUILD_TIME_HTML.findall(html)})
    return f"its {', '.join(makers)} make ids only when the site is built" if makers else ""


_HEADING_LINE = re.compile(r"^[ \t>]*#{1,6}[ \t]+(.+?)[ \t#]*$|^[ \t>]*(\S.*?)[ \t]*\n[ \t>]*(?:=+|-+)[ \t]*$", re.MULTILINE)
_EXPLICIT_ID = re.compile(r"""\{[:\s]*[^}\n]*?#([\w.:-]+)[^}\n]*\}|\b(?:id|name)\s*=\s*["']([^"'\s]+)["']""")


def _unsure_ids(unsure: tuple[str, ...], packages: tuple[str, ...], markdown: str, ids: frozenset[str]) -> dict[str, Any]:
    """Page fields for the ids this rendering may lack because something that makes them is
    left out here (`Loaded.unsure`): the keys of the headings and explicit ids the source spells
    that no rendered id has; with a slugify left out, every rendered id's too."""
    if not unsure:
        return {}
    rendered = {id_key(value) for value in ids}
    spelled = {id_key(next(g for g in match.groups() if g)) for match in _HEADING_LINE.finditer(markdown)}
    spelled |= {id_key(next(g for g in match.groups() if g)) for match in _EXPLICIT_ID.finditer(markdown)}
    keys = (spelled - rendered) | (rendered if any("slugify" in what for what in unsure) else set())
    keys.discard("")
    if not keys:
        return {}
    return {"unsure_ids": frozenset(keys),
            "unsure_why": f"{', '.join(unsure)} {'is' if len(unsure) == 1 else 'are'} not available here, and the source spells "
                          f"this id; {install_hint(', '.join(packages))}"}


def _template_ids(setup: MarkdownSetup, markdown: str) -> str:
    """What a plugin that renders the page's text as a template may bring in at build time:
    the macros plugin (`{{ macro() }}`, `{% include %}`) and include-markdown
    (`{% include-markdown "file" %}`)."""
    if "{%" not in markdown and "{{" not in markdown:
        return ""
    macros = any(is_template_extension(name) for name in setup.extensions)
    makers = [name for name, plugins, mark in _TEMPLATE_PLUGINS
              if (setup.has_plugin(*plugins) or (macros and "macros" in plugins)) and mark.search(markdown)]
    return f"the {' and '.join(makers)} may add headings when the site is built" if makers else ""


_TEMPLATE_PLUGINS = (
    ("macros plugin's templates", ("macros", "mkdocs-macros"), re.compile(r"\{\{|\{%")),
    ("include-markdown plugin's includes", ("include-markdown", "include_markdown"), re.compile(r"\{%\s*include")),
)


def _rewritten_by(setup: MarkdownSetup, markdown: str, html: str) -> str:
    """Which project hooks may rewrite this page when the site is built, unseen here ('' if none)."""
    hooks = [rewriter.name for rewriter in setup.rewriters if rewriter.touches(markdown, html)]
    return f"the hook{'s' if len(hooks) > 1 else ''} {', '.join(hooks)}" if hooks else ""


def _commonmark(text: str, path: str, want_text: bool) -> Document:
    """The CommonMark reading of a page Python-Markdown cannot render."""
    document = extract_markdown(text, path, want_text=want_text)
    if not _DIRECTIVE_SOURCE.search(text):
        return document
    page = Page(path=path, title=document.page.title, text=document.page.text, ids=document.page.ids,
                build_ids="its `:::` blocks make ids only when the site is built")
    links = tuple(Link(url=link.url, kind=link.kind, span=link.span, page=page, anchor_text=link.anchor_text, context=link.context,
                       tag=link.tag, reference=link.reference) for link in document.links)
    return Document(page=page, links=links, warnings=document.warnings)

