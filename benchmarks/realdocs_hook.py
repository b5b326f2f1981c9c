"""MkDocs hook used by benchmarks/realdocs.py inside the oracle build (runs in the plugin venv).

It records, per page, every link MkDocs renders (as written in the markdown and as MkDocs
rewrote it), the ids MkDocs collected for its own anchor validation, and where each source
file went, into the JSON file named by REALDOCS_RECORD. It changes nothing in the output,
except that superfences custom fences named in REALDOCS_STUB_FENCES are rendered as plain
code (textual's fences run a terminal app per screenshot: minutes of work for an SVG that
holds no link).
"""

from __future__ import annotations

import contextlib
import html
import json
import logging
import os
from html.parser import HTMLParser

from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

_LINK_ATTRS = {"a": "href", "img": "src"}
# Links MkDocs or an extension makes by itself, never written by the author.
_GENERATED_CLASSES = {"headerlink", "footnote-ref", "footnote-backref", "autorefs", "autorefs-internal", "autorefs-external"}
_RAW_LINK_ATTRS = {
    "a": ("href",), "area": ("href",), "img": ("src",), "source": ("src",), "iframe": ("src",),
    "video": ("src", "poster"), "audio": ("src",), "embed": ("src",), "script": ("src",),
    "link": ("href",), "object": ("data",),
}

_state: dict = {"page": None, "pages": {}, "log": []}
# MkDocs' link and anchor warnings (pages) and its warnings about nav entries naming no file (nav).
_LOGGERS = (logging.getLogger("mkdocs.structure.pages"), logging.getLogger("mkdocs.structure.nav"))


class _Capture(logging.Handler):
    """MkDocs' link and anchor messages, kept even when a plugin's import reconfigures logging
    (kedro's does, with disable_existing_loggers, and MkDocs' warnings vanish from the log)."""

    def emit(self, record):
        _state["log"].append([record.levelname, record.getMessage()])


def _listen():
    for logger in _LOGGERS:
        logger.disabled = False
        if logger.level > logging.INFO or logger.level == logging.NOTSET:
            logger.setLevel(logging.INFO)
        if not any(isinstance(h, _Capture) for h in logger.handlers):
            logger.addHandler(_Capture(logging.INFO))


class _RawLinks(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        for name in _RAW_LINK_ATTRS.get(tag, ()):
            for key, value in attrs:
                if key == name and value is not None:
                    self.links.append((tag, name, value))


def _generated(element) -> bool:
    classes = set((element.get("class") or "").split())
    return bool(classes & _GENERATED_CLASSES)


class _Before(Treeprocessor):
    """Runs just before MkDocs' relpath rewriter (priority 0): the hrefs as written."""

    def run(self, root):
        page = _state["page"]
        _listen()
        if page is None:
            return None
        seen = _state.setdefault("elements", {})
        seen.clear()
        for element in root.iter():
            attr = _LINK_ATTRS.get(element.tag)
            if attr and element.get(attr) is not None:
                seen[id(element)] = (element, element.tag, attr, element.get(attr), _generated(element))
        raw = _RawLinks()
        for block in self.md.htmlStash.rawHtmlBlocks:
            text = block if isinstance(block, str) else ""
            with contextlib.suppress(Exception):  # a stray fragment of HTML: the links before it still count
                raw.feed(text)
        record = _state["pages"].setdefault(page, {"links": [], "ids": []})
        record["raw"] = [[tag, attr, url] for tag, attr, url in raw.links]
        return None


class _After(Treeprocessor):
    """Runs after the relpath rewriter: pairs each link with the href MkDocs wrote."""

    def run(self, root):
        page = _state["page"]
        if page is None:
            return None
        record = _state["pages"].setdefault(page, {"links": [], "ids": []})
        for element, tag, attr, written, generated in _state.get("elements", {}).values():
            record["links"].append([tag, attr, written, element.get(attr), generated])
        _state.get("elements", {}).clear()
        return None


class _Recorder(Extension):
    def extendMarkdown(self, md):
        md.treeprocessors.register(_Before(md), "realdocs_before_relpath", 0.5)
        md.treeprocessors.register(_After(md), "realdocs_after_relpath", -1)
        _zensical_context(md)


def _zensical_context(md):
    """zensical.extensions.macros is written for Zensical builds, which hand it the page being
    rendered; under MkDocs it gets none and page-level `include_yaml` fails (fastapi's index
    renders a "Macro Rendering Error" page). Give it the page, as Zensical would."""
    page, config = _state.get("page_object"), _state.get("config")
    if page is None or not _state.get("zensical_macros"):
        return
    from zensical.extensions.context import ContextPreprocessor, Page

    context_page = Page(url=page.url, path=page.file.src_uri, meta=page.meta, fallback_title=page.title)
    md.preprocessors.register(ContextPreprocessor(md, page=context_page, config=dict(config)), "rendering_context", 0)


def _plain_fence(source, language, css_class, options, md, **kwargs):
    return f'<pre class="{css_class}"><code>{html.escape(source)}</code></pre>'


def on_config(config, **kwargs):
    _listen()
    _state["config"] = config
    _state["zensical_macros"] = "zensical.extensions.macros" in config.markdown_extensions
    config.markdown_extensions.append(_Recorder())
    stubbed = set(filter(None, os.environ.get("REALDOCS_STUB_FENCES", "").split(",")))
    fences = config.mdx_configs.get("pymdownx.superfences", {}).get("custom_fences", [])
    for fence in fences:
        if fence.get("name") in stubbed:
            fence["format"] = _plain_fence
    return config


def on_page_markdown(markdown, page, **kwargs):
    _state["page"] = page.file.src_uri
    _state["page_object"] = page
    return markdown


def on_page_content(html_text, page, **kwargs):
    record = _state["pages"].setdefault(page.file.src_uri, {"links": [], "ids": []})
    record["ids"] = sorted(i for i in page.present_anchor_ids or () if i is not None)  # an anchor without a name is no id
    _state["page"] = None
    _listen()  # anchor validation runs after the last page's content is done
    return html_text


def on_post_build(config, **kwargs):
    path = os.environ.get("REALDOCS_RECORD")
    if not path:
        return
    files = {}
    for file in _state.get("files", []):
        files[file.src_uri] = {
            "dest": file.dest_uri,
            "url": file.url,
            "excluded": bool(file.inclusion.is_excluded()),
            "page": file.is_documentation_page(),
        }
    data = {
        "site_url": config.site_url or "",
        "use_directory_urls": config.use_directory_urls,
        "docs_dir": config.docs_dir,
        "site_dir": config.site_dir,
        "plugins": list(config.plugins.keys()),
        "custom_dir": config.theme.custom_dir or "",
        "files": files,
        "pages": _state["pages"],
        "log": _state["log"],
    }
    with open(path, "w", encoding="utf-8") as out:
        json.dump(data, out)


def on_files(files, config, **kwargs):
    _state["files"] = list(files)
    return files
