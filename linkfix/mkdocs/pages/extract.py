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
- on a page that includes files, one whose target is written whole in no single file is made
  of included text spliced into the page's: never checked (`includes.SPLICED`);
- any other (made at build time, e.g. by a `:::` block) is kept, with an empty span at the
  place it is made from: checked, never auto-fixed.

A page whose build makes more ids than its source shows (`:::` blocks of mkdocstrings or
mkdocs-click, markdown-exec output) says so in `Page.build_ids`: the check reports a fragment
not found there as unverified, not broken. When Python-Markdown cannot render (not installed,
a page it fails on), the page is read with the CommonMark reader instead; so is a page that
takes Python-Markdown more CPU time than `render_seconds` allows (a page written to hit its
quadratic cases), and the page's warning says so.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace

from ...formats.cpu_limit import CpuLimitExceeded, cpu_limit
from ...formats.html import extract_html
from ...formats.markdown import extract_markdown
from ...model import Dialect, Document, Link, LinkKind, Page
from ..extensions.setup import INCLUDE_NAMES, MarkdownSetup, announce, is_template_extension, setup_of
from ..extensions.snippet_reads import snippets_name
from ..plugins.mkdocstrings import root_ids
from ..project_code.rewritten import links_a_rewrite_may_show
from .candidates import candidates, search
from .includes import SPLICED, SPLICED_TARGET, IncludedFiles, attribute, span_at
from .place import Rerender, place
from .render import Body, Renderer, renderer_for, split_meta
from .unknowns import made_ids, page_unknowns

__all__ = ["MarkdownSetup", "announce", "extract_mkdocs", "made_link_classes", "place_links", "setup_of", "without_made_links"]

# A `::: identifier` block (mkdocstrings, mkdocs-click, any `:::` directive) left as text: what
# it makes (headings, ids, links) exists only in the built site.
# mkdocstrings also takes one as a heading (`# ::: package`, its heading level set by the `#`s).
_DIRECTIVE_SOURCE = re.compile(r"^[ ]{0,3}(?:#{1,6}[ \t]+)?:::[ \t]*\S", re.MULTILINE)
# Links an extension makes, by the class it gives them: toc permalinks, footnote references and
# back-references. Not the author's: they are taken out before the rendered links are placed.
MADE_LINK_CLASSES = ("headerlink", "footnote-ref", "footnote-backref")


@functools.lru_cache(maxsize=8)
def _made_link(classes: tuple[str, ...]) -> re.Pattern[str]:
    names = "|".join(re.escape(name) for name in classes)
    return re.compile(r'<a\b(?=[^>]*\bclass="(?:[^"]*\s)?(?:' + names + r')(?:\s[^"]*)?")([^>]*?)\bhref=')


# The images pymdownx.emoji makes of `:rocket:`, by the class its generators give them (the
# emoji index's name): the author wrote no URL. Without the site's own generator installed
# (Material's inline SVG), the fallback's CDN images are this rendering's alone.
_EMOJI_IMAGE = re.compile(r'<img\b(?=[^>]*\bclass="(?:[^"]*\s)?(?:twemoji|emojione|gemoji|joypixels)(?:\s[^"]*)?")([^>]*?)\bsrc=')


def without_made_links(html: str, classes: tuple[str, ...] = MADE_LINK_CLASSES) -> str:
    """`html` with the `href` of the links extensions make (and the `src` of the emoji images
    they make) renamed, so that no link is read there."""
    html = _made_link(classes).sub(r"<a\1data-made-href=", html) if "href" in html else html
    return _EMOJI_IMAGE.sub(r"<img\1data-made-src=", html) if "<img" in html else html


def made_link_classes(setup: MarkdownSetup) -> tuple[str, ...]:
    """MADE_LINK_CLASSES, with the toc permalink class the config sets."""
    toc = setup.configs().get("toc")
    permalink = toc.get("permalink_class") if isinstance(toc, dict) else None
    return (*MADE_LINK_CLASSES, permalink) if isinstance(permalink, str) and permalink not in MADE_LINK_CLASSES else MADE_LINK_CLASSES


# CPU time a page's rendering (with the renders that place its links) may take: measured on the
# real projects of ../shared/realdocs (1,041 pages, 2026-11-27), the most a page took was 3.5 s
# (FastAPI's 700 KB release notes); most take milliseconds. Pages written to be slow blow far
# past this (`[` 20,000 times in 20 KB: 76 s).
RENDER_SECONDS = 5.0
RENDER_SECONDS_PER_MB = 10.0


def render_seconds(text: str) -> float:
    """The CPU time the rendering of a page of `text` may take."""
    return RENDER_SECONDS + RENDER_SECONDS_PER_MB * len(text) / 1_000_000


#: What a space inside template text (`{{ git.tag }}`) is read as: no Markdown reader ends a link
#: destination at it (Python-Markdown's `[^\s]+`, CommonMark's no-space rule), one character for
#: one, so that every offset stays the source's. Put back in what a page's links and text say.
TEMPLATE_SPACE = "\u2423"
# Template text inside a target: right after a character of it (`/docs/{{ git.tag }}`, `({{ url }}`),
# or a reference definition's `]: `. Elsewhere (a heading, `{% include %}` on a line of its own) it
# stays as written: what reads templates as such (mkdocs.pages.unknowns) reads it there.
_TEMPLATE_TEXT = re.compile(r"(?:(?<=\S)|(?<=\]: )|(?<=\]:\t))(?:\{\{[^\n]*?\}\}|\{%[^\n]*?%\})")


def extract_mkdocs(text: str, path: str, setup: MarkdownSetup, *, want_text: bool = True, links: bool = True) -> Document:
    """Every link MkDocs renders from the page `text` (file `path`), with its source span, and
    the page with the ids MkDocs gives it. With `links` false, the page alone (a fragment's
    target page, whose ids are wanted): no rendered link is put back on its source, which is
    most of the work beside rendering.

    A page the macros plugin renders as a template is read with its template text kept whole:
    `[guide]: https://x.dev/docs/{{ git.tag }}/guide/` is a reference definition once the
    template is filled in, and read as written its space ended the destination (the link was
    cut to `https://x.dev/docs/{{`, or lost with its definition)."""
    if is_templated(setup) and TEMPLATE_SPACE not in text and ("{{" in text or "{%" in text):
        shadow = _TEMPLATE_TEXT.sub(lambda m: m.group(0).replace(" ", TEMPLATE_SPACE), text)
        if shadow != text:
            return _spaces_back(_extract(shadow, path, setup, want_text, links))
    return _extract(text, path, setup, want_text, links)


def is_templated(setup: MarkdownSetup) -> bool:
    """Pages are Jinja templates (the macros plugin, or a macros Markdown extension)."""
    return setup.has_plugin("macros") or any(is_template_extension(name) for name in setup.extensions)


def _spaces_back(document: Document) -> Document:
    def back(value: str) -> str:
        return value.replace(TEMPLATE_SPACE, " ")

    page = replace(document.page, text=back(document.page.text), title=back(document.page.title))
    links = tuple(replace(link, url=back(link.url), anchor_text=back(link.anchor_text), context=back(link.context), page=page)
                  for link in document.links)
    return Document(page=page, links=links, warnings=document.warnings)


def _extract(text: str, path: str, setup: MarkdownSetup, want_text: bool, links: bool) -> Document:
    renderer = renderer_for(setup)
    if renderer is None:
        return _commonmark(text, path, want_text)
    limit = render_seconds(text)
    try:
        with cpu_limit(limit):
            return _rendered(text, path, setup, renderer, want_text, links)
    except CpuLimitExceeded:
        document = _commonmark(text, path, want_text)
        slow = (f"Python-Markdown took more than {round(limit, 1):g} s of CPU time to render it (markdown that makes it slow, "
                "such as thousands of unclosed brackets): read with the CommonMark reader instead")
        return Document(page=document.page, links=document.links, warnings=(*document.warnings, slow))


def _rendered(text: str, path: str, setup: MarkdownSetup, renderer: Renderer, want_text: bool, links: bool) -> Document:
    body = split_meta(text)
    rendered = renderer.render(body.markdown, path, body.meta)
    if rendered is None:
        return _commonmark(text, path, want_text)
    refused_reads = tuple(dict.fromkeys(renderer.refused_reads))
    made = made_link_classes(setup)
    html = extract_html(without_made_links(rendered, made), path, want_text=want_text)
    ids = html.page.ids | root_ids(setup.autodoc, body.markdown, rendered) | made_ids(rendered)
    page = Page(
        path=path,
        title=_title(body, html.page.title, permalink_text(setup)),
        text=html.page.text,
        ids=ids,
        **page_unknowns(setup, renderer, path, body.markdown, rendered, ids, _body_start(text, body.markdown), body.meta),
        dialect=Dialect.PYTHON_MARKDOWN,
    )
    if not links:
        return Document(page=page, links=(), warnings=(*html.warnings, *refused_reads))

    def rerender(marked: str) -> list[str]:
        html = renderer.render(split_meta(marked).markdown, path, body.meta)
        return [link.url for link in extract_html(without_made_links(html, made), path, want_text=False).links] if html else []

    placed = [_link(source, shown, page) for shown, source in place_links(html.links, text, path, setup, rerender)]
    return Document(
        page=page,
        links=(*placed, *links_a_rewrite_may_show(text, path, page, placed)),
        warnings=(*html.warnings, *refused_reads),
    )


def place_links(shown: Sequence[Link], text: str, path: str, setup: MarkdownSetup | None,
                rerender: Rerender | None = None) -> list[tuple[Link, Link]]:
    """(rendered link, where it is written) for every rendered link of the page `text` (file
    `path`) that is the author's: each `shown` link's `url` is its target as written (before a
    build rewrote it). `rerender` renders marked source text (see `place`); `setup` says where
    included files are."""
    places = place(shown, candidates(text, path), text, rerender)
    body_start = _body_start(text, split_meta(text).markdown)
    taken = {(p.span.start, p.span.end) for p in places if p is not None}
    missing: dict[int, Link] = {}
    same_page: dict[int, Link] = {}
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
        elif link.url.startswith("#"):
            same_page[index] = link
        else:
            missing[index] = link
    if missing or same_page:
        includes = setup is not None and (snippets_name(setup.extensions) is not None or any(n in setup.extensions for n in INCLUDE_NAMES))
        files = IncludedFiles(setup) if setup is not None and includes else None
        included, include_at = attribute(missing | same_page, text, files) if files is not None else ({}, None)
        # A same-page fragment with no place is an included file's (a README's `#contributors`,
        # fastapi-users), else one an extension made: only the first kind is the author's.
        for index in same_page.keys() & included.keys():
            places[index] = included[index]
        for index, link in missing.items():
            if index in included:
                places[index] = included[index]
            elif link.url.startswith("mailto:"):
                continue  # an address an extension made a link of in included text: not checked, as above
            elif files is not None and include_at is not None and not files.written_in_one(link.url, text):
                places[index] = Link(url=SPLICED_TARGET, kind=LinkKind.HTML, span=span_at(text, path, include_at, include_at),
                                     page=link.page, tag=link.tag, unverified=SPLICED)
            else:
                at = include_at if include_at is not None else _made_at(text, link, body_start)
                places[index] = Link(url=link.url, kind=LinkKind.HTML, span=span_at(text, path, at, at), page=link.page, tag=link.tag)
    return [(link, where) for link, where in zip(shown, places) if where is not None]


def _body_start(text: str, body: str) -> int:
    """Where the page's body (after its meta) starts in the file's text."""
    return len(text) - len(body) if text.endswith(body) else 0


def _link(source: Link, shown: Link, page: Page) -> Link:
    return Link(url=source.url, kind=source.kind, span=source.span, page=page, anchor_text=shown.anchor_text or source.anchor_text,
                context=shown.context, tag=source.tag, reference=source.reference, unverified=source.unverified)



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


def _title(body: Body, rendered_title: str, permalink: str) -> str:
    title = body.meta.get("title")
    if isinstance(title, (str, int, float)) and not isinstance(title, bool):
        return str(title).strip()
    # The rendered h1 ends with the permalink toc puts in it ("Configuration¶"): not the title's.
    return rendered_title.removesuffix(permalink).rstrip() if permalink else rendered_title


def permalink_text(setup: MarkdownSetup) -> str:
    """The text of the permalink toc adds to each heading ('' when it adds none)."""
    toc = setup.configs().get("toc")
    permalink = toc.get("permalink") if isinstance(toc, dict) else None
    if permalink is True:
        return "\u00b6"  # toc's default: ¶
    return " ".join(permalink.split()) if isinstance(permalink, str) else ""


def _commonmark(text: str, path: str, want_text: bool) -> Document:
    """The CommonMark reading of a page Python-Markdown cannot render here (MkDocs still renders
    it with Python-Markdown: its targets are decoded as Python-Markdown does)."""
    document = extract_markdown(text, path, want_text=want_text)
    build_ids = "its `:::` blocks make ids only when the site is built" if _DIRECTIVE_SOURCE.search(text) else ""
    page = Page(path=path, title=document.page.title, text=document.page.text, ids=document.page.ids, build_ids=build_ids,
                dialect=Dialect.PYTHON_MARKDOWN)
    links = tuple(Link(url=link.url, kind=link.kind, span=link.span, page=page, anchor_text=link.anchor_text, context=link.context,
                       tag=link.tag, reference=link.reference) for link in document.links)
    return Document(page=page, links=links, warnings=document.warnings)

