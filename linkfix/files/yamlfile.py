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

import functools
import re
from pathlib import Path
from typing import Any

from ..errors import InputError
from .read import Unreadable, read_bytes

MAX_YAML_BYTES = 4 * 1024 * 1024
MAX_VALUES = 200_000  # values in the document with every alias expanded
MAX_DEPTH = 100  # nesting of sequences and mappings


class YamlRefused(InputError):
    """The file is not YAML a config may be, or is beyond the bounds; the message says why.
    `position`: (line, column), 1-based, of a syntax error; its message then ends with the
    source line and a caret under the column, on lines of their own."""

    def __init__(self, message: str, position: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.position = position

    def at(self, where: str, note: str = "") -> str:
        """The message after `where` (a file name) and its position, then `note`:
        `linkfix.yml:4:3: not valid YAML: ...`."""
        line_col = f":{self.position[0]}:{self.position[1]}" if self.position else ""
        return f"{where}{line_col}{note}: {self}"


class _NotYaml(YamlRefused):
    """Text that does not load as YAML (syntax, a character, a tag no constructor takes), as
    against a document beyond the bounds."""


_YAML_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
SNIPPET_WIDTH = 160  # characters of the offending line shown around the error's column


def load_safely(text: str, loader: type | None = None) -> Any:
    """The YAML document in `text` (None when empty), loaded with `loader` (a SafeLoader or a
    subclass that adds constructors; default SafeLoader) within the bounds. Raises YamlRefused
    with a short reason: not YAML, or beyond the bounds.

    libyaml scans and parses where PyYAML has it (typer's mkdocs.yml in 5 ms instead of 24, and a
    one-page hook check reads a project's config twice), composing in Python: libyaml's own composer (CSafeLoader's)
    recurses in C per level, and a page whose front matter nests a few hundred thousand `[`
    deep crashed the process (SIGSEGV) where Python's raises RecursionError. YAML libyaml
    refuses is read again by PyYAML alone, whose message, line and column are the ones said."""
    import yaml

    loader = loader or yaml.SafeLoader
    quick = with_libyaml(loader)
    if quick is not loader:
        try:
            return _load_bounded(text, quick)
        except _NotYaml:  # said as PyYAML (and MkDocs' config reader) says it, below
            pass  # (a document beyond the bounds is refused alike by both: not read twice)
    return _load_bounded(text, loader)


@functools.cache
def with_libyaml(loader: type) -> type:
    """`loader` reading its events from libyaml (yaml._yaml.CParser), composing and constructing
    as `loader` does; `loader` itself where PyYAML was built without libyaml."""
    try:
        from yaml._yaml import CParser
    except ImportError:
        return loader
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    class WithLibyaml(Composer, CParser, SafeConstructor, Resolver):
        # What `loader` added to SafeLoader's (a tag's constructor) is in these class attributes.
        yaml_constructors = loader.yaml_constructors  # type: ignore[attr-defined]
        yaml_multi_constructors = loader.yaml_multi_constructors  # type: ignore[attr-defined]
        yaml_implicit_resolvers = loader.yaml_implicit_resolvers  # type: ignore[attr-defined]
        yaml_path_resolvers = loader.yaml_path_resolvers  # type: ignore[attr-defined]

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    return WithLibyaml


def read_yaml(path: Path, loader: type | None = None) -> Any:
    """The YAML document of `path` (None when empty), loaded with `loader` (default: the safe
    loader). Raises YamlRefused with a short reason."""
    try:
        text = read_bytes(path, limit=MAX_YAML_BYTES).decode("utf-8")
    except Unreadable as exc:
        raise YamlRefused(str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise YamlRefused("not UTF-8 text") from exc
    return load_safely(text, loader)


def _load_bounded(text: str, loader: type) -> Any:
    """Compose, measure against the bounds, construct; YamlRefused for anything that fails."""
    import yaml

    try:
        parser = loader(text)  # PyYAML's refuses unprintable characters already
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        raise _NotYaml(f"not valid YAML: character #x{exc.character:04x} is not allowed", (line, column)) from exc
    try:
        try:
            node = parser.get_single_node()
        except RecursionError:  # the composer recurses per level, before any bound can apply
            raise YamlRefused("nested too deeply") from None
        if node is None:
            return None
        _measure(node)
        return parser.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, text) from exc
    except yaml.YAMLError as exc:
        raise _NotYaml(f"not valid YAML: {exc}") from exc
    finally:
        parser.dispose()


def _syntax_error(exc: Any, text: str) -> _NotYaml:
    """PyYAML's error as a person reads a compiler's: what is wrong at which line and column,
    what was being read (and from where), the line itself with a caret under the column."""
    mark = exc.problem_mark or exc.context_mark
    if mark is None:
        return _NotYaml(f"not valid YAML: {exc}")
    lines = [f"not valid YAML: {exc.problem or exc.context}"]
    if exc.context and exc.problem:
        start = exc.context_mark
        lines.append(f"({exc.context}{f' that starts at line {start.line + 1}, column {start.column + 1}' if start else ''})")
    lines_of_text = _YAML_LINE_BREAK.split(text)  # as PyYAML counts lines (U+2028 ends one too)
    source = lines_of_text[mark.line] if mark.line < len(lines_of_text) else ""
    first = max(0, mark.column - SNIPPET_WIDTH // 2)
    shown = source[first:first + SNIPPET_WIDTH].replace("\t", " ")  # one column per character, for the caret
    number = str(mark.line + 1)
    lines += [f"{number} | {shown}", f"{' ' * len(number)} | {' ' * (mark.column - first)}^"]
    return _NotYaml("\n".join(lines), (mark.line + 1, mark.column + 1))


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
