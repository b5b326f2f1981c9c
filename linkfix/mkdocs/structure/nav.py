"""The `nav` entries of a MkDocs config that name a page, with where each is written.

MkDocs reads every `nav` value that is not a URL as a docs-relative path; one naming no page of
the build gives every page of the site a link to nothing (MkDocs 1.6 warns, and fails only under
`--strict`). A source check treats each as a link written in the config, at the line and column
of its YAML scalar; INHERIT'd configs: the file that wrote the `nav` MkDocs
uses (the nearest one: a list is replaced, not merged).

The nav files of plugins are read here too: awesome-nav's `.nav.yml` (`file_nav_entries`, each
entry relative to the file's directory, `base`); literate-nav's SUMMARY.md is a Markdown page,
whose links are its entries (plugins.literate_nav).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from ...files.read import Unreadable, read_bytes
from ...files.yamlfile import MAX_YAML_BYTES, with_libyaml

_URL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # MkDocs' own test: a scheme makes a link, not a page
_WEB = re.compile(r"^https?://", re.I)
_MAX_NAV_ENTRIES = 20_000  # a bound on the walk, far above any real nav


@dataclass(frozen=True, slots=True)
class NavEntry:
    path: str  # the docs-relative path as MkDocs reads it
    config: Path  # the config file that writes it
    line: int  # 1-based, of the value's first character
    column: int  # 1-based
    start: int  # offsets of the path in the file's text (inside any quotes)
    end: int
    exact: bool  # text[start:end] is the path as written (a plain or simply quoted scalar)
    base: str = ""  # the docs directory the path is relative to (a plugin's nav file's; "": the docs' root)


def is_web_link(entry: str) -> bool:
    """Whether a nav entry is a link to the web (http, https): checked as any external link, no
    page or section of the docs."""
    return _WEB.match(entry) is not None


def nav_entries(config_file: Path) -> tuple[NavEntry, ...]:
    """The entries of the `nav` MkDocs uses for `config_file` (INHERIT followed), in order: its pages
    and its links to the web (http, https); () when there is none or a file cannot be read (reading
    the config has said so already)."""
    from ..config.yaml_file import MAX_INHERIT, _TolerantLoader

    path = config_file
    for _ in range(MAX_INHERIT + 1):
        try:
            text = read_bytes(path, limit=MAX_YAML_BYTES).decode("utf-8")
            root = yaml.compose(text, Loader=with_libyaml(_TolerantLoader))  # composed only: no value is constructed
        except (Unreadable, UnicodeDecodeError, yaml.YAMLError, RecursionError):
            return ()
        if not isinstance(root, yaml.MappingNode):
            return ()
        values = {key.value: value for key, value in root.value if isinstance(key, yaml.ScalarNode)}
        if "nav" in values:
            return tuple(_entries(values["nav"], path, text))
        parent = values.get("INHERIT")
        if not isinstance(parent, yaml.ScalarNode) or not parent.value:
            return ()
        path = (path.parent / parent.value).resolve()
    return ()


def file_nav_entries(path: Path, base: str) -> tuple[NavEntry, ...]:
    """The entries of the `nav` list of a plugin's YAML nav file (awesome-nav's `.nav.yml`),
    relative to the docs directory `base`; () when it cannot be read."""
    from ..config.yaml_file import _TolerantLoader

    try:
        text = read_bytes(path, limit=MAX_YAML_BYTES).decode("utf-8")
        root = yaml.compose(text, Loader=with_libyaml(_TolerantLoader))
    except (Unreadable, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return ()
    if not isinstance(root, yaml.MappingNode):
        return ()
    values = {key.value: value for key, value in root.value if isinstance(key, yaml.ScalarNode)}
    if "nav" not in values:
        return ()
    return tuple(replace(entry, base=base) for entry in _entries(values["nav"], path, text))


def _entries(node: yaml.Node, config: Path, text: str) -> Iterator[NavEntry]:
    stack = [node]
    seen = 0
    while stack and seen < _MAX_NAV_ENTRIES:
        seen += 1
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            entry = _entry(node, config, text)
            if entry is not None:
                yield entry
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
        elif isinstance(node, yaml.MappingNode):
            # `Title: page.md` or `Section: [...]`: the title is no page
            stack.extend(value for _, value in reversed(node.value))


def _entry(node: yaml.ScalarNode, config: Path, text: str) -> NavEntry | None:
    value = node.value
    if not isinstance(value, str) or not value.strip() or node.tag != "tag:yaml.org,2002:str":
        return None  # a number or null, a tagged value
    if _URL.match(value) and not is_web_link(value):
        return None  # mailto:, javascript: and the like: no page, and nothing a reader follows to a page
    if value.startswith(("!include ", "*include ")):
        return None  # mkdocs-monorepo-plugin's: another project's docs (mkdocs.made reads them)
    start, end = node.start_mark.index, node.end_mark.index
    if node.style in ("'", '"'):
        start, end = start + 1, end - 1
    exact = node.style in (None, "'", '"') and text[start:end] == value
    return NavEntry(path=value, config=config, line=node.start_mark.line + 1, column=node.start_mark.column + 1,
                    start=start, end=end, exact=exact)
