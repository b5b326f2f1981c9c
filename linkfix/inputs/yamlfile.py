"""YAML from an untrusted file, with bounds: mkdocs.yml and linkfix.yml come with pull requests.

A safe loader stops code execution but not the other two attacks a YAML file can carry:
- aliases that expand exponentially ("billion laughs": nine levels of ten references each make
  10^9 values out of a 1 kB file); PyYAML builds them as shared objects, so the load is quick,
  and whatever walks the result afterwards (the nav) hangs;
- aliases that contain themselves (`nav: &n [*n]`) or nesting thousands deep, which end any
  recursive walk in RecursionError.
The document is therefore composed into nodes first and measured as if every alias were
expanded; only a document inside the bounds is constructed. Real configs stay far below them
(the largest mkdocs.yml among the real projects we test has a few thousand values).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .read import Unreadable, read_bytes

MAX_YAML_BYTES = 4 * 1024 * 1024
MAX_VALUES = 200_000  # values in the document with every alias expanded
MAX_DEPTH = 100  # nesting of sequences and mappings
# What YAML 1.1 does not allow in a stream (PyYAML's Reader.NON_PRINTABLE): NUL, ESC and the other
# control characters but tab and line breaks, surrogates, U+FFFE/U+FFFF. Found here, so that the
# error names the line and shows the character escaped (PyYAML's own error is raised while the
# loader is built, and its message carries the character as it is).
_NOT_YAML = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class YamlRefused(Exception):
    """The file is not YAML a config may be, or is beyond the bounds; the message says why."""


def read_yaml(path: Path, loader: type | None = None) -> Any:
    """The YAML document of `path` (None when empty), loaded with `loader` (default: the safe
    loader). Raises YamlRefused with a short reason."""
    import yaml

    try:
        text = read_bytes(path, limit=MAX_YAML_BYTES).decode("utf-8")
    except Unreadable as exc:
        raise YamlRefused(str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise YamlRefused("not UTF-8 text") from exc
    _refuse_control_characters(text)
    parser = (loader or yaml.SafeLoader)(text)
    try:
        try:
            node = parser.get_single_node()
        except RecursionError:  # the composer recurses per level, before any bound can apply
            raise YamlRefused("nested too deeply") from None
        if node is None:
            return None
        _measure(node)
        return parser.construct_document(node)
    except yaml.YAMLError as exc:
        raise YamlRefused(f"not valid YAML: {exc}") from exc
    finally:
        parser.dispose()


def _refuse_control_characters(text: str) -> None:
    """Raise YamlRefused naming the first character YAML does not allow, escaped (`\\x1b`),
    with its line and column: the file's own bytes never reach a terminal or a report as they are."""
    found = _NOT_YAML.search(text)
    if found is None:
        return
    line = text.count("\n", 0, found.start()) + 1
    column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    code = ord(found.group())
    shown = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    raise YamlRefused(f"line {line}, column {column}: character {shown} is not allowed in YAML")


def _measure(root: Any) -> None:
    """Raise YamlRefused when `root`, aliases expanded, holds too many values or nests too
    deeply, or when an alias refers to a node that contains it."""
    sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (values, height) once measured
    open_nodes: set[int] = set()

    def measure(node: Any, depth: int) -> tuple[int, int]:
        known = sizes.get(id(node))
        if known is not None:
            if depth + known[1] > MAX_DEPTH:
                raise YamlRefused(f"nested too deeply (more than {MAX_DEPTH} levels, counting aliases)")
            return known
        if id(node) in open_nodes:
            raise YamlRefused(f"an alias refers to a node that contains it (line {node.start_mark.line + 1})")
        if depth > MAX_DEPTH:
            raise YamlRefused(f"nested too deeply (more than {MAX_DEPTH} levels)")
        open_nodes.add(id(node))
        values, height = 1, 0
        children = node.value if isinstance(node.value, list) else ()
        for child in children:
            for part in child if isinstance(child, tuple) else (child,):  # mapping: (key, value)
                part_values, part_height = measure(part, depth + 1)
                values += part_values
                height = max(height, part_height + 1)
                if values > MAX_VALUES:
                    raise YamlRefused(f"too many values (more than {MAX_VALUES:,} with aliases expanded)")
        open_nodes.discard(id(node))
        sizes[id(node)] = (values, height)
        return values, height

    measure(root, 0)
