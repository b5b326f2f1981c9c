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

Also read (issue 44.7): a pattern bound to a local constant; a nested function (a replacement
function, not followed otherwise); a `for` loop that only substitutes (its substitutions may run
again on what they put in); text put before or after the page (`note + markdown`, `markdown +
footer`: an `insert` at its start or end); what a substitution puts in, where its source says
exactly (`replacements`: then the build's change can be made here); and the page conditions it
runs under (`page_conditions`): `if page.file.src_uri != "x.md": return markdown` before it, or
an `if` around it. A condition that cannot be read is taken to hold, which can only widen what
may change.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from ...config.patterns import PatternError, RunawayPattern, repository_pattern
from .names import reads
from .page_conditions import UNKNOWN, Cond, PageFacts, condition, holds
from .replacements import Replacement, replacement, substitute

MAX_DEPTH = 8  # functions followed from the event, one inside the other

_RE_FLAGS = {name: int(getattr(re, name)) for name in ("A", "ASCII", "I", "IGNORECASE", "M", "MULTILINE", "S", "DOTALL",
                                                        "X", "VERBOSE", "U", "UNICODE", "NOFLAG")}


@dataclass(frozen=True, slots=True)
class Substitution:
    """One change the hook makes to its text: a literal pattern it replaces (a regular
    expression and its `re` flags), or text it puts at the page's `start` or `end` (`insert`);
    what it puts in when known (`known`), and the page conditions it runs under (`when`)."""

    pattern: str
    flags: int = 0
    when: tuple[Cond, ...] = ()
    known: Replacement | None = None
    count: int = 0
    insert: str = ""  # "start" or "end": no pattern

    def first(self, text: str, loose: int = 0) -> int | None:
        """Where its first match in `text` starts (None when it has none), with `loose` flags
        added; 0 when the pattern runs away on it (it may match from the start)."""
        if self.insert:
            return 0 if self.insert == "start" else len(text)
        try:
            match = repository_pattern(self.pattern, self.flags | loose, origin="a pattern of the project's hooks").search(text)
        except (PatternError, RunawayPattern):
            return 0
        return match.start() if match is not None else None

    def runs_for(self, facts: PageFacts | None) -> bool | None:
        """Whether it runs on the page: False when a condition it runs under is false there,
        True when all are true, None when that cannot be told."""
        values = [holds(cond, facts) for cond in self.when]
        return False if False in values else None if None in values else True


def substitutions(tree: ast.Module, event: str) -> tuple[Substitution, ...] | None:
    """The substitutions the module's `event` function makes to its text argument, in the order
    they run; () when the module has no such function; None when it may change the text
    otherwise (see the module docstring)."""
    reader = _Module(tree)
    function = reader.functions.get(event)
    if function is None:
        return None if event in reader.rebound else ()
    return reader.function(function, 0, depth=0)


def first_change(found: tuple[Substitution, ...], text: str, facts: PageFacts | None = None) -> int | None:
    """Where the substitutions `found`, run in order on `text` (the page `facts`), may first
    change it: the first match of the first pattern that matches; from the start when another
    substitution runs after it (it reads the unknown text put in, and may match from anywhere
    before it), unless that one only puts text after the page. None when no pattern matches (each then runs on the text as it is: nothing
    changes). A substitution whose conditions are false for the page does not run."""
    found = tuple(s for s in found if s.runs_for(facts) is not False)
    for index, substitution in enumerate(found):
        start = substitution.first(text)
        if start is not None:
            # text put after the page by a later one changes nothing before; anything else may
            later = found[index + 1:]
            return start if all(s.insert == "end" for s in later) else 0
    return None


@dataclass(frozen=True, slots=True)
class Made:
    """A page's Markdown with the substitutions made here that the build makes (see `make_known`)."""

    text: str
    left: tuple[Substitution, ...]  # the substitutions still to run, unknown here
    # per substitution made, its edits: (start, end) in the text it ran on -> (start, end) in what it made
    steps: tuple[tuple[tuple[int, int, int, int], ...], ...] = ()

    def source_offset(self, offset: int) -> int:
        """The offset in the source of an offset of `text` (an edit's start for one inside what it put in)."""
        for edits in reversed(self.steps):
            for start, end, new_start, new_end in reversed(edits):
                if offset >= new_end:
                    offset = end + (offset - new_end)
                    break
                if offset >= new_start:
                    offset = start
                    break
        return offset


def make_known(found: tuple[Substitution, ...], text: str, facts: PageFacts | None) -> Made:
    """The page `text` after the first substitutions of `found` whose replacement is known and
    which surely run on this page (what the build does to it there, made here); those that do
    not run on it are dropped; from the first other one on, they are `left`."""
    found = tuple(s for s in found if s.runs_for(facts) is not False)
    steps: list[tuple[tuple[int, int, int, int], ...]] = []
    for index, substitution in enumerate(found):
        if substitution.known is None or substitution.insert or substitution.runs_for(facts) is not True:
            return Made(text=text, left=found[index:], steps=tuple(steps))
        made = substitute(substitution.pattern, substitution.flags, substitution.known, text, substitution.count)
        if made is None:
            return Made(text=text, left=found[index:], steps=tuple(steps))
        text, matches = made
        edits, shift = [], 0
        for start, end, length in matches:
            edits.append((start, end, start + shift, start + shift + length))
            shift += length - (end - start)
        steps.append(tuple(edits))
    return Made(text=text, left=(), steps=tuple(steps))


@dataclass(frozen=True, slots=True)
class _Scope:
    """What a function's reading knows: the parameter that is the page, its local names bound
    once (name -> expression), its local string constants and its nested functions."""

    page: str | None
    single: dict[str, ast.expr]
    constants: dict[str, str]
    functions: dict[str, ast.FunctionDef]

    def local(self, name: str) -> ast.expr | None:
        return self.single.get(name)


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

    def function(self, function: ast.FunctionDef, index: int, *, depth: int, page: int | str | None = "page") -> tuple[Substitution, ...] | None:
        """The substitutions `function` makes to its `index`th parameter before returning it;
        `page`: the parameter that is the page (its index, or its name; MkDocs passes `page=`)."""
        if depth > MAX_DEPTH or any(not _is_event_priority(decorator) for decorator in function.decorator_list):
            return None
        parameters = [a.arg for a in function.args.posonlyargs + function.args.args]
        if index >= len(parameters):
            return None
        given = parameters[index]
        page_name = parameters[page] if isinstance(page, int) and page < len(parameters) else page if page in parameters else None
        scope = _scope(function, page_name if page_name != given else None, self.constants, self.functions)
        found: list[Substitution] = []
        guards: tuple[Cond, ...] = ()
        for statement in function.body:
            if _is_guard(statement, given, top=depth == 0):
                assert isinstance(statement, ast.If)
                guards += (("not", self._condition(statement.test, scope)),)
                continue
            made: list[Substitution] = []
            if not self._statement(statement, given, made, depth, scope):
                return None
            found += [_under(substitution, guards) for substitution in made]
        return tuple(found)

    def _condition(self, test: ast.expr, scope: _Scope) -> Cond:
        return condition(test, scope.page, scope.local) if scope.page else UNKNOWN

    def _statement(self, node: ast.stmt, given: str, found: list[Substitution], depth: int, scope: _Scope) -> bool:
        """Whether `node` leaves `given` alone or only substitutes in it (adding to `found`)."""
        if isinstance(node, ast.If):
            if _binds(node.test, given):
                return False
            cond = self._condition(node.test, scope)
            for branch, when in ((node.body, cond), (node.orelse, ("not", cond))):
                made: list[Substitution] = []
                if not all(self._statement(child, given, made, depth, scope) for child in branch):
                    return False
                found += [_under(substitution, (when,)) for substitution in made]
            return True
        if isinstance(node, ast.For) and not node.orelse and not _binds(node.target, given) and not _binds(node.iter, given):
            made = []
            if not all(self._statement(child, given, made, depth, scope) for child in node.body):
                return False
            found += [_under(substitution, (UNKNOWN,)) for substitution in (*made, *made)]  # again, on what it put in
            return True
        if isinstance(node, ast.Return):
            if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
                return True
            return self._expression(node.value, given, found, depth, scope)
        if isinstance(node, ast.Assign) and any(_binds(target, given) for target in node.targets):
            return (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and self._expression(node.value, given, found, depth, scope))
        if isinstance(node, ast.FunctionDef):
            # a function defined here (a replacement function): only its own scope, unless it reaches the text's name
            return node.name != given and not any(isinstance(child, (ast.Global, ast.Nonlocal)) for child in ast.walk(node))
        if isinstance(node, (ast.AsyncFunctionDef, ast.ClassDef, ast.Global, ast.Nonlocal)):
            return False  # a nested scope may rebind the name: not followed
        # Anything else must neither rebind the text nor read it in a way that could change what is
        # returned: a statement that only reads it (a log line, a test) changes nothing.
        return not _binds(node, given) and not any(isinstance(child, ast.Return) for child in ast.walk(node))

    def _expression(self, node: ast.expr, given: str, found: list[Substitution], depth: int, scope: _Scope) -> bool:
        """Whether `node` is `given` with literal substitutions (added to `found`)."""
        if isinstance(node, ast.Name):
            return node.id == given
        if any(_binds(child, given) for child in ast.walk(node)):
            return False
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            # text put after the page (`markdown + footer`) or before it (`note + markdown`)
            for carrying, other, where in ((node.left, node.right, "end"), (node.right, node.left, "start")):
                if not reads(other, given):
                    made: list[Substitution] = []
                    if self._expression(carrying, given, made, depth, scope):
                        return _add(found, *made, Substitution("", insert=where))
            return False
        if not isinstance(node, ast.Call):
            return False
        function, args = node.func, node.args
        if _is_re(node, "sub") and self.stdlib_re and 3 <= len(args) <= 5 and {k.arg for k in node.keywords} <= {"count", "flags"}:
            # re.sub(pattern, repl, string, count, flags): only what the pattern matches is replaced,
            # whatever the replacement is made of
            substitution = self._substitution(args[0], args[4] if len(args) > 4 else _keyword(node, "flags"), scope)
            count_node = args[3] if len(args) > 3 else _keyword(node, "count")
            count = 0 if count_node is None else count_node.value if isinstance(count_node, ast.Constant) and type(count_node.value) is int else None
            if substitution is None or not self._expression(args[2], given, found, depth, scope):
                return False
            known = replacement(args[1], {**self.functions, **scope.functions}, scope.constants) if count is not None else None
            return _add(found, replace(substitution, known=known, count=count or 0))
        if isinstance(function, ast.Attribute) and function.attr == "replace" and len(args) in (2, 3) and not node.keywords:
            old, new = self._text(args[0], scope), self._text(args[1], scope)
            count = args[2].value if len(args) == 3 and isinstance(args[2], ast.Constant) and type(args[2].value) is int else None
            # a constant put for a constant: known (as a template, its backslashes its own)
            known = ("template", new.replace("\\", "\\\\")) if new is not None and (len(args) == 2 or (count or 0) > 0) else None
            return old is not None and old != "" and self._expression(function.value, given, found, depth, scope) \
                and _add(found, Substitution(re.escape(old), known=known, count=count or 0))
        if isinstance(function, ast.Attribute) and function.attr == "sub" and isinstance(function.value, ast.Name) \
                and function.value.id in self.compiled and len(args) in (2, 3) and not node.keywords:
            return self._expression(args[1], given, found, depth, scope) and _add(found, self.compiled[function.value.id])
        if isinstance(function, ast.Name) and function.id in self.functions:
            return self._call(self.functions[function.id], node, given, found, depth, scope)
        return False

    def _call(self, callee: ast.FunctionDef, node: ast.Call, given: str, found: list[Substitution], depth: int, scope: _Scope) -> bool:
        """A function of this module handed the text: followed through the one argument that
        carries it (the page handed on by position or by name)."""
        if any(keyword.arg is None or reads(keyword.value, given) for keyword in node.keywords):
            return False
        carrying: list[tuple[int, list[Substitution]]] = []
        for index, arg in enumerate(node.args):
            chain: list[Substitution] = []
            if self._expression(arg, given, chain, depth, scope):
                carrying.append((index, chain))
            elif reads(arg, given):
                return False
        if len(carrying) != 1:
            return False
        index, chain = carrying[0]
        page: int | str | None = None
        if scope.page:
            page = next((i for i, arg in enumerate(node.args) if isinstance(arg, ast.Name) and arg.id == scope.page), None)
            if page is None:
                page = next((k.arg for k in node.keywords if isinstance(k.value, ast.Name) and k.value.id == scope.page), None)
        inner = self.function(callee, index, depth=depth + 1, page=page)
        return inner is not None and _add(found, *chain, *inner)

    def _text(self, node: ast.expr, scope: _Scope | None = None) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and scope is not None and node.id in scope.constants:
            return scope.constants[node.id]
        if isinstance(node, ast.Name) and node.id in self.constants and (scope is None or node.id not in scope.single):
            return self.constants[node.id]
        return None

    def _substitution(self, pattern: ast.expr, flags: ast.expr | None, scope: _Scope | None = None) -> Substitution | None:
        text = self._text(pattern, scope)
        value = _flags(flags)
        if text is None or text == "" or value is None:
            return None
        try:
            re.compile(text, value)
        except re.error:
            return None
        return Substitution(text, value)


def _scope(function: ast.FunctionDef, page: str | None, module_constants: dict[str, str],
           module_functions: dict[str, ast.FunctionDef]) -> _Scope:
    """The function's names bound once (by a plain assignment, and nothing else), its string
    constants among them (module constants it does not rebind too), its nested functions."""
    counts: dict[str, int] = {}
    single: dict[str, ast.expr] = {}
    functions: dict[str, ast.FunctionDef] = {}
    for node in ast.walk(ast.Module(body=function.body, type_ignores=[])):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[node.name] = counts.get(node.name, 0) + 1
            if isinstance(node, ast.FunctionDef):
                functions[node.name] = node
        elif isinstance(node, ast.arg):
            counts[node.arg] = counts.get(node.arg, 0) + 2
    for statement in function.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            single.setdefault(statement.targets[0].id, statement.value)
    single = {name: value for name, value in single.items() if counts.get(name) == 1}
    functions = {name: node for name, node in functions.items() if counts.get(name) == 1 and name not in module_functions}
    constants = {name: value.value for name, value in single.items() if isinstance(value, ast.Constant) and isinstance(value.value, str)}
    constants |= {name: value for name, value in module_constants.items() if name not in counts}
    return _Scope(page=page, single=single, constants=constants, functions=functions)


def _is_guard(node: ast.stmt, given: str, *, top: bool) -> bool:
    """`if <test>: return <the text>` with nothing else: what follows runs only where the test is false."""
    if not isinstance(node, ast.If) or node.orelse or len(node.body) != 1 or not isinstance(node.body[0], ast.Return) \
            or _binds(node.test, given):
        return False
    value = node.body[0].value
    return (isinstance(value, ast.Name) and value.id == given) or (top and (value is None or (isinstance(value, ast.Constant) and value.value is None)))


def _under(substitution: Substitution, conditions: tuple[Cond, ...]) -> Substitution:
    return replace(substitution, when=(*conditions, *substitution.when)) if conditions else substitution


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
