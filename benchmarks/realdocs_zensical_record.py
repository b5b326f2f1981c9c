"""Zensical build with a record, for benchmarks/realdocs.py (runs in a project's Zensical venv).

    python realdocs_zensical_record.py CONFIG        # REALDOCS_RECORD=record.json

Zensical has no hooks, so the record MkDocs' realdocs_hook.py makes is made here around
Zensical's own Python: every page goes through `zensical.markdown.render.render`, which this
wraps to learn the page's source path and URL and to mark each link element of the rendered
HTML with a numbered `data-realdocs` attribute. Zensical's Rust core then rewrites the links
(keeping the attribute), so after the build each mark pairs the href as written with the href
Zensical published. The marks are taken out of the site afterwards; nothing else changes.
Releases before the Rust rewriting (0.0.44, 0.0.54: `zensical.extensions.links`) rewrite in
Python, inside the rendering: there the rewriting is held back and applied here, by the same
function, as each written href is marked.

Plugins named in REALDOCS_DROP_PLUGINS (comma-separated) are removed from the config before
Zensical reads its plugins, and the dotted option keys of REALDOCS_PLUGIN_EDITS (JSON: plugin ->
keys) from theirs: what the oracle leaves out, as the manifest's drop_plugins and plugin_edits say why."""

from __future__ import annotations

import html
import json
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

MARK = "data-realdocs"
_LINK_ATTRS = {
    "a": ("href",), "area": ("href",), "img": ("src",), "source": ("src",), "iframe": ("src",),
    "video": ("src", "poster"), "audio": ("src",), "embed": ("src",), "script": ("src",),
    "link": ("href",), "object": ("data",),
}
_GENERATED_CLASSES = {"headerlink", "footnote-ref", "footnote-backref", "autorefs", "autorefs-internal", "autorefs-external"}
_TAG = re.compile(r"<(" + "|".join(_LINK_ATTRS) + r")\b[^<>]*>", re.I)
_MARKED = re.compile(r"\s" + MARK + r"=[\"']?(\d+)[\"']?")
_state: dict = {"next": 0, "marks": {}, "pages": {}}


class _Attrs(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tag, self.attrs = "", {}

    def handle_starttag(self, tag, attrs):
        self.tag, self.attrs = tag, {k: v for k, v in attrs if v is not None}

    handle_startendtag = handle_starttag


def _attrs(tag_text: str) -> tuple[str, dict]:
    parser = _Attrs()
    parser.feed(tag_text)
    parser.close()
    return parser.tag, parser.attrs


def _mark(content: str, path: str, rewrite=None) -> str:
    """Number every link element of a rendered page (the href as written is kept by number),
    and rewrite it with `rewrite` where Zensical's Python would have (older releases)."""

    def one(match: re.Match) -> str:
        text = match.group(0)
        tag, attrs = _attrs(text)
        names = [name for name in _LINK_ATTRS.get(tag, ()) if name in attrs]
        if not names:
            return text
        number = _state["next"] = _state["next"] + 1
        generated = bool(set(attrs.get("class", "").split()) & _GENERATED_CLASSES)
        _state["marks"][number] = [path, tag, names[0], attrs[names[0]], generated]
        if rewrite is not None and (new := rewrite(attrs[names[0]])) is not None:
            value = re.compile(r"(\s" + names[0] + r"\s*=\s*)([\"'])(.*?)\2", re.I | re.S)
            text = value.sub(lambda m: f"{m.group(1)}{m.group(2)}{html.escape(new)}{m.group(2)}", text, count=1)
        end = -2 if text.endswith("/>") else -1
        return f'{text[:end]} {MARK}="{number}"{text[end:]}'

    return _TAG.sub(one, content)


def _python_rewriter():
    """Zensical's own Python link rewriting (releases before 0.0.7x), held back: None if there is none."""
    try:
        import zensical.extensions.links as links
    except ImportError:
        return None
    original = links._rewrite_url
    links._rewrite_url = lambda value, path, use_directory_urls: None
    return original


def _wrap_render() -> None:
    import zensical.config as config_module
    import zensical.markdown.render as render_module

    original = render_module.render
    rewrite_url = _python_rewriter()

    def render(content, path, url, *args, **kwargs):
        result = original(content, path, url, *args, **kwargs)
        _state["pages"].setdefault(path, {"url": url})
        rewrite = None
        if rewrite_url is not None:
            directory_urls = config_module.get_config().get("use_directory_urls", True)
            rewrite = lambda value: rewrite_url(value, path, directory_urls)  # noqa: E731
        result["content"] = _mark(result["content"], path, rewrite)
        return result

    render_module.render = render


def _drop_key(options, dotted: str) -> None:
    head, _, rest = dotted.partition(".")
    if isinstance(options, dict) and head in options:
        if rest:
            _drop_key(options[head], rest)
        else:
            del options[head]


def _wrap_plugins(dropped: set[str], edits: dict[str, list[str]]) -> None:
    import zensical.config as config_module

    original = config_module._convert_plugins

    def convert(value, config):
        entries = list(value.items()) if isinstance(value, dict) else \
            [(e, None) if isinstance(e, str) else next(iter(e.items())) for e in value or []]
        kept = {}
        for name, options in entries:
            if name in dropped:
                continue
            for dotted in edits.get(name, []):
                _drop_key(options, dotted)
            kept[name] = options
        return original(kept, config)

    config_module._convert_plugins = convert


def _not_strict() -> None:
    """The config's own `strict: true` would make Zensical raise after the build on any warning:
    the oracle must finish and report, as the MkDocs wrapper's `strict: false` does."""
    import zensical.config as config_module

    original = config_module.parse_config

    def parse(path):
        config = original(path)
        config["strict"] = False
        return config

    config_module.parse_config = parse


def _dest(url: str) -> str:
    path = unquote(url)
    return path + "index.html" if path == "" or path.endswith("/") else path


def _collect(site: Path) -> dict[int, str]:
    """The published href of every mark, taken out of the site's HTML as it is read."""
    dest_of = {path: _dest(info["url"]) for path, info in _state["pages"].items()}
    rendered: dict[int, str] = {}
    for file in sorted(site.rglob("*.html")):
        text = file.read_text(encoding="utf-8", errors="surrogateescape")
        if MARK not in text:
            continue
        here = file.relative_to(site).as_posix()
        for match in _TAG.finditer(text):
            mark = _MARKED.search(match.group(0))
            if mark is None:
                continue
            number = int(mark.group(1))
            info = _state["marks"].get(number)
            if info is None:
                continue
            _, attrs = _attrs(match.group(0))
            if dest_of.get(info[0]) == here or number not in rendered:
                rendered[number] = attrs.get(info[2], "")
        file.write_text(_MARKED.sub("", text), encoding="utf-8", errors="surrogateescape")
    return rendered


def _files(docs: Path, site: Path) -> dict[str, dict]:
    files = {}
    for path in sorted(docs.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(docs).as_posix()
        if rel.endswith(".md"):
            info = _state["pages"].get(rel)
            if info is not None:
                files[rel] = {"dest": _dest(info["url"]), "url": info["url"], "excluded": False, "page": True}
            else:  # not built (exclude_docs, draft_docs, a dot or templates/ path): where it would have gone
                parent, _, name = rel[:-3].rpartition("/")
                where = parent if name in ("index", "README") else rel[:-3]
                files[rel] = {"dest": f"{where}/index.html".lstrip("/"), "url": "", "excluded": True, "page": True}
        else:
            files[rel] = {"dest": rel, "url": rel, "excluded": not (site / rel).exists(), "page": False}
    return files


def main(config_file: str) -> int:
    _wrap_render()
    _not_strict()
    dropped = set(filter(None, os.environ.get("REALDOCS_DROP_PLUGINS", "").split(",")))
    edits = json.loads(os.environ.get("REALDOCS_PLUGIN_EDITS") or "{}")
    if dropped or edits:
        _wrap_plugins(dropped, edits)
    import zensical
    import zensical.config as config_module

    code = 0
    try:
        zensical.build(os.path.abspath(config_file), {"strict": False, "clean": True})
    except BaseException as error:  # a failed build still leaves what it made, and says why
        print(f"realdocs: the build raised {type(error).__name__}: {error}", file=sys.stderr)
        code = 1
    config = config_module.get_config() or {}
    root = Path(config.get("root_dir") or Path(config_file).parent).resolve()
    docs = (root / config.get("docs_dir", "docs")).resolve()
    site = (root / config.get("site_dir", "site")).resolve()
    rendered = _collect(site) if site.is_dir() else {}
    pages: dict[str, dict] = {path: {"links": [], "raw": [], "ids": []} for path in _state["pages"]}
    for number, (path, tag, attr, written, generated) in sorted(_state["marks"].items()):
        # a mark the site does not hold is a link Zensical did not publish: it renders nothing (None)
        pages.setdefault(path, {"links": [], "raw": [], "ids": []})["links"].append(
            [tag, attr, html.unescape(written), rendered.get(number), generated])
    theme = config.get("theme") or {}
    record = {
        "generator": "zensical",
        "site_url": config.get("site_url") or "",
        "use_directory_urls": config.get("use_directory_urls", True),
        "docs_dir": str(docs),
        "site_dir": str(site),
        "plugins": sorted(config.get("plugins") or {}),
        "custom_dir": str((root / theme["custom_dir"]).resolve()) if theme.get("custom_dir") else "",
        "files": _files(docs, site) if docs.is_dir() else {},
        "pages": pages,
        "unpublished_marks": len(_state["marks"]) - len(rendered),
        "log": [],
    }
    target = os.environ.get("REALDOCS_RECORD")
    if target:
        Path(target).write_text(json.dumps(record), encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
