"""Conditions on which page a hook's code runs for, read from its source, told per page.

Hooks often act on some pages only: `if page.file.src_uri != "reference/cli.md": return
markdown`. `condition(test, page)` reads such a test (`page` is the name the function gives the
page) into data: comparisons of the page's `file.src_uri`, `file.src_path` or `file.name`, or
of a value of its front matter (`page.meta.get("integration")`, `page.meta["x"]`), with
constants (`==`, `!=`, `in`, `startswith`, `endswith`), joined by `not`, `and`, `or`, through
local names bound once to such a test or value; anything else is UNKNOWN. `holds(cond, facts)` tells it
for one page: True, False, or None when unknown (what depends on it is then taken to run).
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: A condition as data: ("unknown",), ("not", c), ("and", c, ...), ("or", c, ...), or a test of
#: a page field: ("eq", field, value), ("in", field, values), ("contains", field, value),
#: ("startswith", field, values), ("endswith", field, values); a field is "src_uri", "name" or
#: "meta:KEY" (a value of the front matter).
Cond = tuple[Any, ...]
UNKNOWN: Cond = ("unknown",)
_FIELDS = {"src_uri": "src_uri", "src_path": "src_uri", "name": "name"}  # src_path is src_uri with the OS's separators


@dataclass(frozen=True, slots=True)
class PageFacts:
    """What a condition may ask of a page: its docs-relative path, its front matter."""

    src_uri: str
    meta: tuple[tuple[str, object], ...] = ()

    def value(self, field: str) -> object:
        if field.startswith("meta:"):
            return dict(self.meta).get(field[len("meta:"):])
        return getattr(self, field)

    @property
    def name(self) -> str:
        """MkDocs' File.name: the file's stem (README is index)."""
        stem = posixpath.splitext(posixpath.basename(self.src_uri))[0]
        return "index" if stem == "README" else stem


def condition(test: ast.expr, page: str, local: Callable[[str], ast.expr | None] = lambda name: None, depth: int = 0) -> Cond:
    """The test `test` of a function whose page parameter is `page`; `local(name)` gives the one
    expression a local name is bound to (None when not exactly one)."""
    if depth > 16:
        return UNKNOWN
    depth += 1
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ("not", condition(test.operand, page, local, depth))
    if isinstance(test, ast.BoolOp):
        return ("and" if isinstance(test.op, ast.And) else "or", *(condition(value, page, local, depth) for value in test.values))
    if isinstance(test, ast.Name):
        bound = local(test.id)
        return condition(bound, page, local, depth) if bound is not None else UNKNOWN
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _compare(test.left, test.ops[0], test.comparators[0], page, local)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr in ("startswith", "endswith") \
            and len(test.args) == 1 and not test.keywords:
        field, values = _field(test.func.value, page, local), _constants(test.args[0])
        if field and values is not None:
            return (test.func.attr, field, values)
    return UNKNOWN


def _compare(left: ast.expr, operator: ast.cmpop, right: ast.expr, page: str, local: Callable[[str], ast.expr | None]) -> Cond:
    if isinstance(operator, (ast.Eq, ast.NotEq)):
        field, value = _field(left, page, local) or _field(right, page, local), _constants(right) or _constants(left)
        if field and value is not None and len(value) == 1:
            found: Cond = ("eq", field, value[0])
            return found if isinstance(operator, ast.Eq) else ("not", found)
    if isinstance(operator, (ast.In, ast.NotIn)):
        field, values = _field(left, page, local), _constants(right)
        if field and values is not None and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
            found = ("in", field, values)
        else:
            field, value = _field(right, page, local), _constants(left)
            if not (field and value is not None and len(value) == 1):
                return UNKNOWN
            found = ("contains", field, value[0])
        return found if isinstance(operator, ast.In) else ("not", found)
    return UNKNOWN


def _field(node: ast.expr, page: str, local: Callable[[str], ast.expr | None], depth: int = 0) -> str:
    """The page field `node` reads (`page.file.src_uri`, `page.meta.get("k")`: "meta:k"), '' when it is not one."""
    if isinstance(node, ast.Name) and depth < 4:
        bound = local(node.id)
        return _field(bound, page, local, depth + 1) if bound is not None else ""
    if isinstance(node, ast.Attribute) and node.attr in _FIELDS and isinstance(node.value, ast.Attribute) \
            and node.value.attr == "file" and isinstance(node.value.value, ast.Name) and node.value.value.id == page:
        return _FIELDS[node.attr]
    meta = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
        and len(node.args) == 1 and not node.keywords else node.value if isinstance(node, ast.Subscript) else None
    key = node.args[0] if isinstance(node, ast.Call) else node.slice if isinstance(node, ast.Subscript) else None
    if isinstance(meta, ast.Attribute) and meta.attr == "meta" and isinstance(meta.value, ast.Name) and meta.value.id == page \
            and isinstance(key, ast.Constant) and isinstance(key.value, str):
        return f"meta:{key.value}"
    return ""


def _constants(node: ast.expr) -> tuple[str, ...] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts and \
            all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return tuple(e.value for e in node.elts)  # type: ignore[attr-defined]
    return None


def holds(cond: Cond, facts: PageFacts | None) -> bool | None:
    """Whether `cond` holds for the page (None: cannot tell, or no page given)."""
    kind = cond[0]
    if facts is None or kind == "unknown":
        return None
    if kind == "not":
        inner = holds(cond[1], facts)
        return None if inner is None else not inner
    if kind in ("and", "or"):
        values = [holds(c, facts) for c in cond[1:]]
        if kind == "and":
            return False if False in values else None if None in values else True
        return True if True in values else None if None in values else False
    value = facts.value(cond[1])
    if kind == "eq":
        return bool(value == cond[2])
    if kind == "in":
        return value in cond[2]
    if kind == "contains":
        return cond[2] in value if isinstance(value, (str, list, tuple)) else None
    if not isinstance(value, str):
        return None  # `startswith` of what is not text fails in the hook itself
    if kind == "startswith":
        return value.startswith(cond[2])
    return value.endswith(cond[2])
