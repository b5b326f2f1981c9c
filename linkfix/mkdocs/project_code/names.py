"""The names a piece of the project's Python reads: what the readers of hooks and scripts ask of
an expression (`reads`), and a call's dotted name (`dotted`)."""

from __future__ import annotations

import ast


def reads(node: ast.AST, name: str) -> bool:
    """Whether `node` reads the variable `name` anywhere inside it."""
    return any(isinstance(child, ast.Name) and child.id == name for child in ast.walk(node))


def dotted(node: ast.expr) -> tuple[str, ...]:
    """`os.path.join` as ("os", "path", "join"); () when not a dotted name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ()
    return (node.id, *reversed(parts))
