"""Docs sources as their generators read them, for mining moves: the public URL of a source
file, its title, its labels, and the links in one source that lead to a given page.

Markdown (MkDocs, and MyST in Sphinx projects) and reStructuredText; what a link leads to is
worked out as the generator would: a relative `.md` path or URL from the linking page, a Sphinx
docname (`:doc:`, toctree entries, relative to the linking page unless it starts with `/`), a
label (`:ref:`, defined in the target page).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

MARKDOWN = (".md", ".markdown")
RST = (".rst", ".txt")


def page_source(text: str, path: str) -> str:
    """A source as its page's Markdown: a notebook's markdown cells, and its code cells fenced
    (what mkdocs-jupyter and nbsphinx show); other sources unchanged."""
    if not path.endswith(".ipynb"):
        return text
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return ""
    parts = []
    for cell in cells:
        body = "".join(cell.get("source", [])) if isinstance(cell.get("source"), list) else str(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            parts.append(body)
        elif cell.get("cell_type") == "code" and body.strip():
            parts.append(f"```python\n{body}\n```")
    return "\n\n".join(parts) + "\n"


def syntax_of(path: str) -> str:
    return "rst" if path.lower().endswith(RST) else "md"


def docname(path: str) -> str:
    return posixpath.splitext(path)[0]


def page_url(base_url: str, path: str, style: str) -> str:
    """The public URL of the source at `path` (relative to the docs root). `style`: `directory`
    (MkDocs' default, Sphinx dirhtml: `a/b/`) or `html` (`a/b.html`); an index page is its
    directory either way."""
    name = docname(path)
    head, tail = posixpath.split(name)
    if tail.lower() in ("index", "readme"):
        rel = head + "/" if head else ""
    elif style == "html":
        rel = name + ".html"
    else:
        rel = name + "/"
    return base_url + rel


_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.S)
_ATX = re.compile(r"^ {0,3}#\s+(.+?)\s*#*\s*$", re.M)
_SETEXT = re.compile(r"^(\S.*)\n=+\s*$", re.M)
_MD_DECOR = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|`([^`]*)`|\*\*?|__|\{[^}]*\}\s*$")
_ADORN = re.compile(r"^([=\-~^\"'`#*+.:_])\1+\s*$")


def _plain_title(text: str) -> str:
    text = re.sub(r"\{[#.][^}]*\}\s*$", "", text)  # attr_list ids
    text = _MD_DECOR.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = re.sub(r":\w+:`([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", text)  # rst/MyST roles keep their text
    return " ".join(text.split()).strip()


def title_of(source: str, path: str) -> str:
    """The page title as its generator shows it (first heading; front matter `title:` first)."""
    if syntax_of(path) == "rst":
        lines = source.splitlines()
        for n in range(len(lines) - 1):
            text, under = lines[n].rstrip(), lines[n + 1].rstrip()
            if (text.strip() and not _ADORN.match(text) and _ADORN.match(under) and len(under) >= len(text.strip())
                    and not text.startswith((" ", "\t", ".."))):
                return _plain_title(text)
        return ""
    front = _FRONT.match(source)
    if front:
        found = re.search(r"^title:\s*[\"']?(.+?)[\"']?\s*$", front.group(1), re.M)
        if found:
            return _plain_title(found.group(1))
        source = source[front.end():]
    body = re.sub(r"^(`{3,}|~{3,}).*?^\1\s*$", "", source, flags=re.S | re.M)  # no headings in code
    atx, setext = _ATX.search(body), _SETEXT.search(body)
    first = min((m for m in (atx, setext) if m), key=lambda m: m.start(), default=None)
    return _plain_title(first.group(1)) if first else ""


_LABEL_RST = re.compile(r"^\.\. _([^:`]+):\s*$", re.M)
_LABEL_MYST = re.compile(r"^\(([^)\s]+)\)=\s*$", re.M)


def labels_of(source: str, path: str) -> dict[str, str]:
    """Labels a page defines -> the heading that follows each (its implicit link text)."""
    pattern = _LABEL_RST if syntax_of(path) == "rst" else _LABEL_MYST
    out = {}
    for match in pattern.finditer(source):
        rest = source[match.end():]
        out[match.group(1).strip().lower()] = title_of(rest, path) if rest.strip() else ""
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """The page links are sought to: its source path, public URL, title and labels."""

    path: str
    url: str
    title: str
    labels: dict[str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class FoundLink:
    anchor_text: str  # the text a reader sees
    anchor_markdown: str  # the text as written
    link_target: str  # the link as written
    link_kind: str  # inline, reference, html, role:doc, role:ref, hyperlink, toctree (+ ":implicit")


_MD_INLINE = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+[\"'(][^)]*[\"')])?\s*\)")
_MD_REF_DEF = re.compile(r"^\s{0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)
_MD_REF_USE = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\](?:\[([^\]]*)\])?")
_HTML_A = re.compile(r"<a\s[^>]*href=[\"']([^\"']*)[\"'][^>]*>(.*?)</a>", re.S | re.I)
_ROLE = re.compile(r"(?:\{(doc|ref)\}|:(?:std:)?(doc|ref):)`([^`]+)`")
_RST_LINK = re.compile(r"`([^`<]*?)\s*<([^>`]+)>`__?")
_TOCTREE_RST = re.compile(r"^\.\. toctree::[^\n]*\n((?:[ \t]+[^\n]*\n|[ \t]*\n)*)", re.M)
_TOCTREE_MYST = re.compile(r"^(`{3,}|:{3,})\{toctree\}[^\n]*\n(.*?)^\1\s*$", re.M | re.S)


def _text(markup: str) -> str:
    return _plain_title(re.sub(r"<[^>]+>", "", markup))


def links_to(source: str, parent_path: str, parent_url: str, target: Target, generator: str) -> list[FoundLink]:
    """Every link in the source at `parent_path` that leads to `target` (in order of writing)."""
    parent_dir = posixpath.dirname(parent_path)
    found: list[tuple[int, FoundLink]] = []

    def leads_there(href: str, *, docname_like: bool = False) -> bool:
        href = unquote(urldefrag(href.strip())[0])
        if not href:
            return False
        if "://" in href:
            return _same_url(href, target.url)
        if href.startswith("/") and generator == "sphinx":
            rel = href.lstrip("/")
        else:
            rel = posixpath.normpath(posixpath.join(parent_dir, href))
        if rel == target.path or (docname_like and rel == docname(target.path)):
            return True
        if href.endswith(MARKDOWN + RST):
            return False
        return _same_url(urljoin(parent_url, href), target.url)

    if syntax_of(parent_path) == "md":
        defs = {m.group(1).lower(): m.group(2) for m in _MD_REF_DEF.finditer(source)}
        _plain_links(source, _MD_INLINE, "inline", leads_there, found)
        for m in _MD_REF_USE.finditer(source):
            label = (m.group(2) or m.group(1)).lower()
            if m.group(2) is None and source[m.end():m.end() + 1] in ("(", ":"):
                continue
            if label in defs and leads_there(defs[label]):
                found.append((m.start(), FoundLink(anchor_text=_text(m.group(1)), anchor_markdown=m.group(1), link_target=defs[label],
                                                   link_kind="reference")))
        _plain_links(source, _HTML_A, "html", leads_there, found)
        for m in _TOCTREE_MYST.finditer(source):
            for line in m.group(2).splitlines():
                _toctree_entry(line, m.start(), leads_there, target, found)
    else:
        _plain_links(source, _RST_LINK, "hyperlink", leads_there, found)
        for m in _TOCTREE_RST.finditer(source):
            for line in m.group(1).splitlines():
                _toctree_entry(line, m.start(), leads_there, target, found)
    for m in _ROLE.finditer(source):
        kind = m.group(1) or m.group(2)
        content = m.group(3)
        explicit = re.match(r"^(.*?)\s*<([^>]+)>\s*$", content, re.S)
        text, ref = (explicit.group(1), explicit.group(2)) if explicit else ("", content)
        ref = ref.strip().lstrip("~!")
        if kind == "doc":
            if leads_there(ref, docname_like=True):
                found.append((m.start(), FoundLink(anchor_text=_text(text) or target.title, anchor_markdown=text, link_target=m.group(0),
                                                   link_kind="role:doc" if text else "role:doc:implicit")))
        elif ref.lower() in target.labels:
            found.append((m.start(), FoundLink(anchor_text=_text(text) or target.labels[ref.lower()] or target.title, anchor_markdown=text,
                                               link_target=m.group(0), link_kind="role:ref" if text else "role:ref:implicit")))
    return [link for _, link in sorted(found, key=lambda pair: pair[0])]


# Where each plain link pattern keeps its text and its target; an RST hyperlink is written back
# whole (`text <url>`__), the others by their target alone.
_PLAIN_GROUPS = {"inline": (1, 2, 2), "html": (2, 1, 1), "hyperlink": (1, 2, 0)}  # kind -> (text, href, written)


def _plain_links(source: str, pattern: re.Pattern[str], kind: str, leads_there: Callable[[str], bool],
                 found: list[tuple[int, FoundLink]]) -> None:
    """The links `pattern` finds in `source` that lead to the target, text and target in one match."""
    text, href, written = _PLAIN_GROUPS[kind]
    for m in pattern.finditer(source):
        if leads_there(m.group(href)):
            found.append((m.start(), FoundLink(anchor_text=_text(m.group(text)), anchor_markdown=m.group(text),
                                               link_target=m.group(written), link_kind=kind)))


def _toctree_entry(line: str, at: int, leads_there, target: Target, found: list) -> None:  # type: ignore[no-untyped-def]
    entry = line.strip()
    if not entry or entry.startswith(":"):
        return
    explicit = re.match(r"^(.*?)\s*<([^>]+)>$", entry)
    text, ref = (explicit.group(1), explicit.group(2)) if explicit else ("", entry)
    if leads_there(ref, docname_like=True):
        found.append((at, FoundLink(anchor_text=text or target.title, anchor_markdown=text, link_target=entry,
                                    link_kind="toctree" if text else "toctree:implicit")))


def _same_url(a: str, b: str) -> bool:
    def key(url: str) -> str:
        parts = urlsplit(url)
        path = parts.path
        for suffix in ("index.html", "index.htm"):
            if path.endswith("/" + suffix):
                path = path[: -len(suffix)]
        return f"{(parts.hostname or '').lower()}{path.rstrip('/')}"

    return key(a) == key(b)
