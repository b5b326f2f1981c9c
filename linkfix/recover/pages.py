"""HTML -> title, visible text and links, for archived copies and candidate pages."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin

from selectolax.lexbor import LexborHTMLParser as HTMLParser
from selectolax.lexbor import LexborNode as Node


@dataclass(frozen=True, slots=True, kw_only=True)
class Section:
    """A section of a page: its heading's words and the id that links to it."""

    id: str
    heading: str


@dataclass(frozen=True, slots=True, kw_only=True)
class WebPage:
    """A fetched web page, reduced to what ranking needs."""

    url: str  # where it ended up (after redirects)
    status: int | None
    title: str = ""
    text: str = ""
    links: tuple[tuple[str, str], ...] = ()  # (absolute href, link text) of <a> elements
    #: ... of the page's own content (not its navigation, header, footer or sidebar, whose
    #: link texts are the site's page titles, the same on every page)
    content_links: tuple[tuple[str, str], ...] = ()
    #: its section headings (h2 to h4 of its content): a page merged into another is often
    #: one of its sections now, under its old title ("Get the source code")
    headings: tuple[str, ...] = ()
    #: ... with the id a link to each uses (`page#id`), for the headings that have one
    sections: tuple[Section, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


_INVISIBLE = ("script", "style", "noscript", "template", "svg", "head")
#: Page furniture repeated on every page of a site: it would make all pages look alike.
_FURNITURE = ("nav", "header", "footer", "aside")


def parse_page(url: str, status: int | None, html: str, *, keep_furniture: bool = False) -> WebPage:
    """Title, whitespace-collapsed visible text and absolute <a href> links of a page."""
    if not html:
        return WebPage(url=url, status=status)
    tree = HTMLParser(html)
    title_node = tree.css_first("title")
    title = " ".join(title_node.text().split()) if title_node is not None else ""
    if not title:
        heading = tree.css_first("h1")
        title = " ".join(heading.text().split()) if heading is not None else ""
    base = url
    base_node = tree.css_first("base[href]")
    if base_node is not None and base_node.attributes.get("href"):
        base = urljoin(url, base_node.attributes["href"] or "")
    links = _links(tree, base)
    tree.strip_tags(list(_INVISIBLE))
    text = _text(tree) if keep_furniture else ""
    tree.strip_tags(list(_FURNITURE))
    content_links = _links(tree, base)
    headings, sections = _headings(tree)
    if not keep_furniture:
        text = _text(tree)
    return WebPage(url=url, status=status, title=title, text=text, links=links, content_links=content_links, headings=headings,
                   sections=sections)


#: The permalink signs generators put after a heading's words (Sphinx, MkDocs' toc: ¶).
_PERMALINK_SIGNS = "¶#🔗§"


def _headings(tree: HTMLParser) -> tuple[tuple[str, ...], tuple[Section, ...]]:
    """The h2-h4 headings' words, and the sections they head with their ids: the heading's own
    id (MkDocs), its section's (Sphinx: `<section id>`), or its permalink's (`<a href="#id">`)."""
    headings, sections = [], []
    for node in tree.css("h2, h3, h4"):
        words = " ".join(node.text().split()).rstrip(_PERMALINK_SIGNS).strip()
        if not words:
            continue
        headings.append(words)
        ident = _heading_id(node)
        if ident:
            sections.append(Section(id=ident, heading=words))
    return tuple(headings), tuple(sections)


def _heading_id(node: Node) -> str:
    if node.attributes.get("id"):
        return node.attributes["id"] or ""
    parent = node.parent
    if parent is not None and parent.tag in ("section", "div") and parent.attributes.get("id"):
        return parent.attributes["id"] or ""
    permalink = node.css_first("a[href^='#']")
    if permalink is not None:
        return (permalink.attributes.get("href") or "#")[1:]
    return ""


def _text(tree: HTMLParser) -> str:
    body = tree.body or tree.root
    return " ".join(body.text(separator=" ").split()) if body is not None else ""


def _links(tree: HTMLParser, base: str) -> tuple[tuple[str, str], ...]:
    links = []
    for node in tree.css("a[href]"):
        href = (node.attributes.get("href") or "").strip()
        if not href or href.startswith(("#", "mailto:", "javascript:", "tel:")):
            continue
        absolute = urldefrag(urljoin(base, href))[0]
        links.append((absolute, " ".join(node.text().split())))
    return tuple(links)
