"""HTML -> title, visible text and links, for archived copies and candidate pages."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin

from selectolax.lexbor import LexborHTMLParser as HTMLParser


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
    headings = tuple(words for node in tree.css("h2, h3, h4") if (words := " ".join(node.text().split())))
    if not keep_furniture:
        text = _text(tree)
    return WebPage(url=url, status=status, title=title, text=text, links=links, content_links=content_links, headings=headings)


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
