"""What a hook's `re.sub` puts in place of each match, when its source says exactly.

`re.sub(pattern, repl, text)` with a constant `repl` string is known (Python's template, `\\1`
and all). With a function `repl(match)` it is known when that function is a straight line of
string steps on the match: local names bound to `match.group(n)` or `match[n]`, constants,
`re.sub` of a constant pattern and a constant string, `strip`/`rstrip`/`lstrip`, `replace`,
`lower`/`upper`, `+`; then `return` of one of them. logfire's hook strips `skip-run="..."`
attributes from fence lines so. Such a substitution is made here, as the build makes it, under
the same time bound as every pattern of the project (`config.patterns`).

A replacement as data (`Replacement`): ("template", text), or ("function", steps, result) with
steps ((name, expression), ...) and expressions ("group", n), ("const", text), ("var", name),
("sub", pattern, flags, text, count, expression), ("strip", method, chars, expression),
("replace", old, new, expression), ("case", method, expression), ("add", left, right).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ...config.patterns import PatternError, repository_pattern

Replacement = tuple[Any, ...]
MAX_GROWTH = 4  # what substitutions made here may grow a page to, times its size ...
MAX_EXTRA = 200_000  # ... plus this many characters (beyond: not made here, the page stays unverified)
_STRIPS = frozenset({"strip", "rstrip", "lstrip"})
_CASES = frozenset({"lower", "upper"})
MAX_STEPS = 40


class _NotKnown(Exception):
    """The replacement cannot be made here."""


def replacement(node: ast.expr, functions: dict[str, ast.FunctionDef], constants: dict[str, str]) -> Replacement | None:
    """The replacement `node` (re.sub's second argument) as data, None when not known."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ("template", node.value)
    if isinstance(node, ast.Name) and node.id in constants:
        return ("template", constants[node.id])
    if isinstance(node, ast.Name) and node.id in functions:
        try:
            return _function(functions[node.id], constants)
        except _NotKnown:
            return None
    return None


def _function(function: ast.FunctionDef, constants: dict[str, str]) -> Replacement:
    args = function.args
    if len(args.args) != 1 or args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or function.decorator_list:
        raise _NotKnown
    match, steps, names = args.args[0].arg, [], {args.args[0].arg}
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]  # docstrings
    if not body or len(body) > MAX_STEPS or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        raise _NotKnown
    for statement in body[:-1]:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
            raise _NotKnown
        name = statement.targets[0].id
        if name == match:
            raise _NotKnown
        steps.append((name, _expression(statement.value, match, names, constants)))
        names.add(name)
    return ("function", tuple(steps), _expression(body[-1].value, match, names, constants))


def _expression(node: ast.expr, match: str, names: set[str], constants: dict[str, str]) -> tuple[Any, ...]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ("const", node.value)
    if isinstance(node, ast.Name):
        if node.id in names and node.id != match:
            return ("var", node.id)
        if node.id in constants and node.id not in names:
            return ("const", constants[node.id])
        raise _NotKnown
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return ("add", _expression(node.left, match, names, constants), _expression(node.right, match, names, constants))
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == match:
        return ("group", _group(node.slice))
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        raise _NotKnown
    function, args = node.func, node.args
    owner = function.value
    if isinstance(owner, ast.Name) and owner.id == match and function.attr == "group" and len(args) <= 1 and not node.keywords:
        return ("group", _group(args[0]) if args else 0)
    if isinstance(owner, ast.Name) and owner.id == "re" and function.attr == "sub" and len(args) == 3 \
            and {k.arg for k in node.keywords} <= {"count", "flags"}:
        pattern, text = _constant(args[0], constants), _constant(args[1], constants)
        count, flags = _keyword_int(node, "count"), _keyword_int(node, "flags")
        return ("sub", pattern, flags, text, count, _expression(args[2], match, names, constants))
    if node.keywords:
        raise _NotKnown
    if function.attr in _STRIPS and len(args) <= 1:
        return ("strip", function.attr, _constant(args[0], constants) if args else None, _expression(owner, match, names, constants))
    if function.attr == "replace" and len(args) == 2:
        old = _constant(args[0], constants)
        if not old:  # "" is put between every two characters: not made here
            raise _NotKnown
        return ("replace", old, _constant(args[1], constants), _expression(owner, match, names, constants))
    if function.attr in _CASES and not args:
        return ("case", function.attr, _expression(owner, match, names, constants))
    raise _NotKnown


def _group(node: ast.expr) -> int | str:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, str)) and not isinstance(node.value, bool):
        return node.value
    raise _NotKnown


def _constant(node: ast.expr, constants: dict[str, str]) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    raise _NotKnown


def _keyword_int(node: ast.Call, name: str) -> int:
    value = next((k.value for k in node.keywords if k.arg == name), None)
    if value is None:
        return 0
    if isinstance(value, ast.Constant) and type(value.value) is int:
        return value.value
    raise _NotKnown


def substitute(pattern: str, flags: int, known: Replacement, text: str, count: int = 0) -> tuple[str, list[tuple[int, int, int]]] | None:
    """`re.sub(pattern, known, text)` as the build runs it, and each match's (start, end, length
    put in); None when a pattern runs away, the replacement fails on a match, or what it
    puts in grows the page past MAX_GROWTH times its size (plus MAX_EXTRA characters)."""
    edits: list[tuple[int, int, int]] = []
    compiled = _compiled(pattern, flags)
    budget = [len(text) * MAX_GROWTH + MAX_EXTRA]

    def one(match: Any) -> str:
        put = _expanded(match, known[1], budget) if known[0] == "template" else _function_value(known, match, budget)
        budget[0] -= len(put)
        if budget[0] < 0:
            raise _NotKnown("the replacement grows the page without bound")
        edits.append((match.start(), match.end(), len(put)))
        return put

    try:
        return compiled.sub(one, text, count), edits
    except Exception:  # a runaway pattern, a bad template or group, the growth bound: not made here
        return None


def _function_value(known: Replacement, match: Any, budget: list[int]) -> str:
    _, steps, result = known
    values: dict[str, str] = {}
    for name, expression in steps:
        values[name] = _value(expression, match, values, budget)
    return _value(result, match, values, budget)


def _value(expression: tuple[Any, ...], match: Any, values: dict[str, str], budget: list[int]) -> str:
    """One step's value; _NotKnown before it would grow past what the page may grow by (`budget`)."""
    kind = expression[0]
    if kind == "const":
        return str(expression[1])
    if kind == "var":
        return values[expression[1]]
    if kind == "group":
        return match.group(expression[1]) or ""
    if kind == "add":
        left, right = _value(expression[1], match, values, budget), _value(expression[2], match, values, budget)
        _within(len(left) + len(right), budget)
        return left + right
    if kind == "sub":
        _, pattern, flags, template, count, inner = expression
        room = [budget[0]]

        def one(found: Any) -> str:
            put = _expanded(found, template, room)
            room[0] -= len(put)
            if room[0] < 0:
                raise _NotKnown("a step grows the text without bound")
            return put

        return str(_compiled(pattern, flags).sub(one, _value(inner, match, values, budget), count))
    if kind == "strip":
        _, method, chars, inner = expression
        return str(getattr(_value(inner, match, values, budget), method)(chars))
    if kind == "replace":
        _, old, new, inner = expression
        text = _value(inner, match, values, budget)
        _within(len(text) + text.count(old) * (len(new) - len(old)), budget)
        return text.replace(old, new)
    return str(getattr(_value(expression[2], match, values, budget), expression[1])())


def _within(size: int, budget: list[int]) -> None:
    if size > budget[0]:
        raise _NotKnown("a step grows the text without bound")


_GROUP_REFERENCE = re.compile(r"\\g<[^>]*>|\\\d")


def _expanded(found: Any, template: str, budget: list[int]) -> str:
    """`found.expand(template)`, after making sure it cannot grow past `budget` (each group is
    at most the whole match)."""
    _within(len(template) + len(_GROUP_REFERENCE.findall(template)) * (found.end() - found.start()), budget)
    return str(found.expand(template))


def _compiled(pattern: str, flags: int) -> Any:
    try:
        return repository_pattern(pattern, flags, origin="a pattern of the project's hooks")
    except PatternError as exc:
        raise _NotKnown from exc
