"""Documents as plain JSON data, for the extraction cache: `encode` and `decode` round-trip a
Document exactly, and `decode` accepts nothing else.

The layout is compact because a warm run decodes every document of a site: pages once each
(the document's own first; links point at theirs by index, so they share it again after
decoding), and each link as one fixed-length row.
"""

from __future__ import annotations

from typing import Any

from ..model import Dialect, Document, LinkKind, Page, Silenced, make_link, make_span

_KINDS = {kind.value: kind for kind in LinkKind}
_DIALECTS = {dialect.value: dialect for dialect in Dialect}
# A link row: url, kind, page index, span path, line, column, start, end, anchor text, context, tag, reference, unverified, template.
_LINK_ROW = (str, str, int, str, int, int, int, int, str, str, str, str, str, str)
# path, url, title, text, ids, base, build_ids, rewritten_by, unsure_ids, unsure_why, dialect, build_ids_below, rewritten_after
_PAGE_ROW = (str, str, str, str, list, str, str, str, list, str, str, list, int)
_TEXT = {str}
_SILENCED_ROW = (int, int, str, int, int, int)  # first line, last line, comment, the comment's line, an element's start and end


def encode(document: Document) -> dict[str, Any]:
    pages: dict[int, int] = {id(document.page): 0}  # by identity: links share their page object
    page_rows = [_page_row(document.page)]
    links = []
    for link in document.links:
        index = pages.get(id(link.page))
        if index is None:
            index = pages[id(link.page)] = len(page_rows)
            page_rows.append(_page_row(link.page))
        span = link.span
        links.append([link.url, link.kind.value, index, span.path, span.line, span.column, span.start, span.end,
                      link.anchor_text, link.context, link.tag, link.reference, link.unverified, link.template])
    silenced = [[s.first, s.last, s.comment, s.line, s.start, s.end] for s in document.silenced]
    return {"pages": page_rows, "links": links, "warnings": list(document.warnings), "silenced": silenced,
            "is_nav": document.is_nav}


def _page_row(page: Page) -> list[Any]:
    return [page.path, page.url, page.title, page.text, sorted(page.ids), page.base, page.build_ids, page.rewritten_by,
            sorted(page.unsure_ids), page.unsure_why, page.dialect.value, sorted(page.build_ids_below),
            page.rewritten_after]


def decode(data: Any) -> Document | None:
    """The Document `encode` made, or None for anything else (any other shape or type)."""
    if not isinstance(data, dict) or not isinstance(data.get("pages"), list) or not isinstance(data.get("links"), list):
        return None
    warnings = data.get("warnings")
    if type(warnings) is not list or not all(type(w) is str for w in warnings):
        return None
    read = [_page(row) for row in data["pages"]]
    pages = [page for page in read if page is not None]
    if not pages or len(pages) < len(read):
        return None
    links = []
    kinds, row_types = _KINDS, _LINK_ROW
    for row in data["links"]:
        if type(row) is not list or tuple(map(type, row)) != row_types:
            return None
        url, kind, index, path, line, column, start, end, anchor_text, context, tag, reference, unverified, template = row
        if kind not in kinds or not 0 <= index < len(pages):
            return None
        # (make_link and make_span: Link(...) and Span(...) without the frozen dataclass __init__,
        # 2.5x faster: a warm run decodes every link of a site)
        links.append(make_link(url, kinds[kind], make_span(path, line, column, start, end), pages[index],
                               anchor_text, context, tag, reference, unverified, template))
    silenced = data.get("silenced")
    if type(silenced) is not list or not all(type(row) is list and tuple(map(type, row)) == _SILENCED_ROW for row in silenced):
        return None
    is_nav = data.get("is_nav")
    if type(is_nav) is not bool:
        return None
    return Document(page=pages[0], links=tuple(links), warnings=tuple(warnings), is_nav=is_nav,
                    silenced=tuple(Silenced(first=first, last=last, comment=comment, line=line, start=start, end=end)
                                   for first, last, comment, line, start, end in silenced))


def _page(row: Any) -> Page | None:
    if type(row) is not list or tuple(map(type, row)) != _PAGE_ROW or not set(map(type, row[4])) <= _TEXT \
            or not set(map(type, row[8])) <= _TEXT or row[10] not in _DIALECTS or not set(map(type, row[11])) <= _TEXT:
        return None
    path, url, title, text, ids, base, build_ids, rewritten_by, unsure_ids, unsure_why, dialect, build_ids_below, rewritten_after = row
    return Page(path=path, url=url, title=title, text=text, ids=frozenset(ids), base=base, build_ids=build_ids,
                rewritten_by=rewritten_by, unsure_ids=frozenset(unsure_ids), unsure_why=unsure_why, dialect=_DIALECTS[dialect],
                build_ids_below=frozenset(build_ids_below), rewritten_after=rewritten_after)
