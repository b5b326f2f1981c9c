"""Which spans of a page a hook's text event can change, read from its source without running it.

A hook whose page event (`on_page_markdown`, ...), through the functions of its own module it
hands the text to, does nothing to the text but substitute what literal patterns match
(`re.sub` with a constant pattern, `str.replace` with a constant, a module-level
`re.compile` of a constant) changes the page only where those patterns match: whatever it puts
there (the output of a command, say) is unknown, but the text before the first match is the
page's own. `substitutions` gives those patterns in the order the code runs them, or None when
the code does anything else to the text (a loop, `+=`, a call of another module's function,
a pattern made at run time, a decorator other than MkDocs' `event_priority`): then nothing is
proven and any part of the page may change.

Conditions (`if page.file.name == ...`) are not read: a substitution that may be skipped is
counted as run, which can only widen what may change.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ...config.patterns import PatternError, RunawayPattern, repository_pattern

MAX_DEPTH = 8  # functions followed from the event, one inside the other

_RE_FLAGS = {name: int(getattr(re, name)) for name in ("A", "ASCII", "I", "IGNORECASE", "M", "MULTILINE", "S", "DOTALL",
                                                        "X", "VERBOSE", "U", "UNICODE", "NOFLAG")}


@dataclass(frozen=True, slots=True)
class Substitution:
    """One literal pattern the hook replaces: a regular expression and its `re` flags."""

    pattern: str
    flags: int = 0

    def first(self, text: str, loose: int = 0) -> int | None:
        """Where its first match in `text` starts (None when it has none), with `loose` flags
        added; 0 when the pattern runs away on it (it may match from the start)."""
        try:
            match = repository_pattern(self.pattern, self.flags | loose, origin="a pattern of the project's hooks").search(text)
        except (PatternError, RunawayPattern):
            return 0
        return match.start() if match is not None else None


def substitutions(tree: ast.Module, event: str) -> tuple[Substitution, ...] | None:
    """The substitutions the module's `event` function makes to its text argument, in the order
    they run; () when the module has no such function; None when it may change the text
    otherwise (see the module docstring)."""
    reader = _Module(tree)
    function = reader.functions.get(event)
    if function is None:
        return None if event in reader.rebound else ()
    return reader.function(function, 0, depth=0)


def first_change(found: tuple[Substitution, ...], text: str) -> int | None:
    """Where the substitutions `found`, run in order on `text`, may first change it: the first
    match of the first pattern that matches; from the start when another substitution runs
    after it (it reads the unknown text put in, and may match from anywhere before it). None
    when no pattern matches (each then runs on the text as it is: nothing changes)."""
    for index, substitution in enumerate(found):
        start = substitution.first(text)
        if start is not None:
            return start if index == len(found) - 1 else 0
    return None


class _Module:
    def __init__(self, tree: ast.Module) -> None:
        bound: dict[str, int] = {}
        in_blocks: set[str] = set()
        # `re` is the standard library's (`import regex as re` matches otherwise), bound once
        self.stdlib_re = any(isinstance(node, ast.Import) and any(a.name == "re" and a.asname is None for a in node.names)
                             for node in tree.body)
        self.functions: dict[str, ast.FunctionDef] = {}
        self.compiled: dict[str, Substitution] = {}  # a module-level name bound to re.compile(constant)
        self.constants: dict[str, str] = {}
        for node in tree.body:
            names: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
                if isinstance(node, ast.FunctionDef):
                    self.functions[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)]
                if len(targets) == 1 and isinstance(targets[0], ast.Name):
                    self._constant(targets[0].id, node.value)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [(alias.asname or alias.name).split(".")[0] for alias in node.names]
            elif not isinstance(node, ast.Expr):
                in_blocks.update(_bound_in(node))  # `if`, `try`, ...: may bind, or not
            for name in names:
                bound[name] = bound.get(name, 0) + 1
        # A name bound twice at module level (or in a block, or by a function's `global`) is not
        # read as either binding.
        self.rebound = {name for name, count in bound.items() if count > 1} | in_blocks
        self.rebound |= {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}
        self.stdlib_re = self.stdlib_re and "re" not in self.rebound
        for name in self.rebound:
            self.functions.pop(name, None)
            self.compiled.pop(name, None)
            self.constants.pop(name, None)

    def _constant(self, name: str, value: ast.expr) -> None:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            self.constants[name] = value.value
        elif _is_re(value, "compile") and isinstance(value, ast.Call) and value.args and self.stdlib_re:
            found = self._substitution(value.args[0], value.args[1] if len(value.args) > 1 else _keyword(value, "flags"))
            if found is not None and len(value.args) <= 2:
                self.compiled[name] = found

    def function(self, function: ast.FunctionDef, index: int, *, depth: int) -> tuple[Substitution, ...] | None:
        """The substitutions `function` makes to its `index`th parameter before returning it."""
        if depth > MAX_DEPTH or any(not _is_event_priority(decorator) for decorator in function.decorator_list):
            return None
        parameters = function.args.posonlyargs + function.args.args
        if index >= len(parameters):
            return None
        given = parameters[index].arg
        found: list[Substitution] = []
        for statement in function.body:
            if not self._statement(statement, given, found, depth):
                return None
        return tuple(found)

    def _statement(self, node: ast.stmt, given: str, found: list[Substitution], depth: int) -> bool:
        """Whether `node` leaves `given` alone or only substitutes in it (adding to `found`)."""
        if isinstance(node, ast.If):
            return all(self._statement(child, given, found, depth) for child in (*node.body, *node.orelse)) and not _binds(node.test, given)
        if isinstance(node, ast.Return):
            if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
                return True
            return self._expression(node.value, given, found, depth)
        if isinstance(node, ast.Assign) and any(_binds(target, given) for target in node.targets):
            return (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and self._expression(node.value, given, found, depth))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Global, ast.Nonlocal)):
            return False  # a nested scope may rebind the name: not followed
        # Anything else must neither rebind the text nor read it in a way that could change what is
        # returned: a statement that only reads it (a log line, a test) changes nothing.
        return not _binds(node, given) and not any(isinstance(child, ast.Return) for child in ast.walk(node))

    def _expression(self, node: ast.expr, given: str, found: list[Substitution], depth: int) -> bool:
        """Whether `node` is `given` with literal substitutions (added to `found`)."""
        if isinstance(node, ast.Name):
            return node.id == given
        if not isinstance(node, ast.Call) or any(_binds(child, given) for child in ast.walk(node)):
            return False
        function, args = node.func, node.args
        if _is_re(node, "sub") and self.stdlib_re and 3 <= len(args) <= 5 and {k.arg for k in node.keywords} <= {"count", "flags"}:
            # re.sub(pattern, repl, string, count, flags): only what the pattern matches is replaced,
            # whatever the replacement is made of
            substitution = self._substitution(args[0], args[4] if len(args) > 4 else _keyword(node, "flags"))
            return substitution is not None and self._expression(args[2], given, found, depth) and _add(found, substitution)
        if isinstance(function, ast.Attribute) and function.attr == "replace" and len(args) in (2, 3) and not node.keywords:
            old = self._text(args[0])
            return old is not None and old != "" and self._expression(function.value, given, found, depth) \
                and _add(found, Substitution(re.escape(old)))
        if isinstance(function, ast.Attribute) and function.attr == "sub" and isinstance(function.value, ast.Name) \
                and function.value.id in self.compiled and len(args) in (2, 3) and not node.keywords:
            return self._expression(args[1], given, found, depth) and _add(found, self.compiled[function.value.id])
        if isinstance(function, ast.Name) and function.id in self.functions and not node.keywords:
            # a function of this module handed the text: followed through the one argument that carries it
            carrying: list[tuple[int, list[Substitution]]] = []
            for index, arg in enumerate(args):
                chain: list[Substitution] = []
                if self._expression(arg, given, chain, depth):
                    carrying.append((index, chain))
            if len(carrying) != 1:
                return False
            index, chain = carrying[0]
            inner = self.function(self.functions[function.id], index, depth=depth + 1)
            return inner is not None and _add(found, *chain, *inner)
        return False

    def _text(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        return None

    def _substitution(self, pattern: ast.expr, flags: ast.expr | None) -> Substitution | None:
        text = self._text(pattern)
        value = _flags(flags)
        if text is None or text == "" or value is None:
            return None
        try:
            re.compile(text, value)
        except re.error:
            return None
        return Substitution(text, value)


def _bound_in(node: ast.AST) -> list[str]:
    """The names a module-level block binds: defs, classes, imports, assignments (a function's
    locals too: more names than bound, never fewer)."""
    names = []
    for child in ast.walk(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            names += [(alias.asname or alias.name).split(".")[0] for alias in child.names]
        elif isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            names.append(child.id)
    return names


def _add(found: list[Substitution], *more: Substitution) -> bool:
    found.extend(more)
    return True


def _is_re(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"


def _is_event_priority(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
    return name == "event_priority"


def _keyword(node: ast.Call, name: str) -> ast.expr | None:
    return next((keyword.value for keyword in node.keywords if keyword.arg == name), None)


def _flags(node: ast.expr | None) -> int | None:
    """The value of `re.I | re.M`-style flags (0 when none are given), None when not constant."""
    if node is None:
        return 0
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re":
        return _RE_FLAGS.get(node.attr)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _flags(node.left), _flags(node.right)
        return left | right if left is not None and right is not None else None
    return None


def _binds(node: ast.AST, name: str) -> bool:
    """Whether `node` assigns or deletes `name` anywhere (a walrus included)."""
    return any(isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, (ast.Store, ast.Del))
               for child in ast.walk(node))
