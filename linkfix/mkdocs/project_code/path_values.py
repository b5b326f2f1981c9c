"""The strings a path expression of a project's script can be, read from its source without running it.

`PathValues(tree).of(node)` gives the shapes the expression `node` may take: each a sequence of
literal text and `ANY` (any text at all), alternatives side by side. A constant is itself; an
f-string over a name bound only by a `for` over a constant `range(...)` or a constant list is
each of its values (`f"sample/{n}-bottles.md"` for `n in range(19, 100, 20)`: five names); a
name is every value it is bound to anywhere in the file (scopes are not told apart: more values,
never fewer); `Path(a, b)`, `a / b`, `os.path.join(a, b)`, `+`, `str(x)`, `.as_posix()`,
`.with_suffix(s)`, `.with_name(n)` are followed; anything else is `ANY`. A part joined after the
first is taken as relative (an absolute one would write outside the docs).

Bounded: at most MAX_SHAPES alternatives per expression (beyond, the expression is `ANY`), and a
name reached again while reading its own value is `ANY`.
"""

from __future__ import annotations

import ast
import itertools
import re

from .names import dotted, reads

MAX_SHAPES = 256  # alternatives of one expression; beyond that it is read as any text
MAX_DEPTH = 24  # expressions followed one inside the other
MAX_ROUNDS = 4  # readings of a name bound from its own value (`x = x.with_name(...)`)

ANY = None  # a part of a shape that may be any text
Part = str | None
Shape = tuple[Part, ...]

_JOINS = {("os", "path", "join"), ("posixpath", "join"), ("path", "join")}
_PATH_CLASSES = {"Path", "PurePath", "PurePosixPath", "PosixPath"}


def regex(shape: Shape) -> str:
    """The shape as a regular expression of the whole path (`ANY` as `.*`)."""
    return "".join(".*" if part is ANY else re.escape(part) for part in _merged(shape))


def literal(shape: Shape) -> str | None:
    """The shape's one value when it has no `ANY` part, else None."""
    return None if any(part is ANY for part in shape) else "".join(part for part in shape if part is not None)


def _merged(shape: Shape) -> Shape:
    """Adjacent literals joined, adjacent ANYs one."""
    out: list[Part] = []
    for part in shape:
        if part == "":
            continue
        if out and part is ANY and out[-1] is ANY:
            continue
        if out and part is not ANY and out[-1] is not ANY:
            out[-1] = out[-1] + part
            continue
        out.append(part)
    return tuple(out)


_ANYTHING: list[Shape] = [(ANY,)]


class PathValues:
    """The values of the path expressions of one module (see the module docstring)."""

    def __init__(self, tree: ast.Module) -> None:
        self.bindings: dict[str, list[ast.expr | None]] = {}  # a name -> each value bound to it (None: unknown)
        self.loops: dict[str, list[ast.expr]] = {}  # a name -> the iterables `for` loops bind it over
        for node in ast.walk(tree):
            self._bind(node)
        self._reading: set[str] = set()
        self._partial: dict[str, list[Shape]] = {}  # a name being read -> its values known so far

    def _bind(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._target(target, node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            self.bindings.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            if isinstance(node.target, ast.Name):
                self.loops.setdefault(node.target.id, []).append(node.iter)
            else:
                self._target(node.target, None)
        elif isinstance(node, (ast.AugAssign, ast.NamedExpr)) or (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del)):
            target = node.target if isinstance(node, (ast.AugAssign, ast.NamedExpr)) else node
            self._target(target, None)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._target(node.optional_vars, None)
        elif isinstance(node, ast.arg):
            self.bindings.setdefault(node.arg, []).append(None)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                self.bindings.setdefault((alias.asname or alias.name).split(".")[0], []).append(None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)):
            self.bindings.setdefault(node.name or "", []).append(None)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                self.bindings.setdefault(name, []).append(None)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            self.bindings.setdefault(node.name, []).append(None)

    def _target(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.bindings.setdefault(target.id, []).append(value)
            return
        for child in ast.walk(target):  # a, b = ...; x[i] = ...: the names in it are bound to what is not read
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                self.bindings.setdefault(child.id, []).append(None)

    def of(self, node: ast.expr) -> list[Shape]:
        """The shapes `node` may take (at most MAX_SHAPES; `[(ANY,)]` when unknown)."""
        return self._of(node, 0)

    def _of(self, node: ast.expr, depth: int) -> list[Shape]:
        if depth > MAX_DEPTH:
            return _ANYTHING
        depth += 1
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)) and not isinstance(node.value, bool):
            return [(str(node.value),)]
        if isinstance(node, ast.JoinedStr):
            return _product([self._formatted(value, depth) for value in node.values])
        if isinstance(node, ast.Name):
            return self._name(node.id, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return _product([self._of(node.left, depth), self._of(node.right, depth)])
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return _joined([self._of(node.left, depth), self._of(node.right, depth)])
        if isinstance(node, ast.Call) and not node.keywords:
            return self._call(node, depth)
        return _ANYTHING

    def _formatted(self, node: ast.expr, depth: int) -> list[Shape]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [(node.value,)]
        if isinstance(node, ast.FormattedValue) and node.format_spec is None and node.conversion in (-1, ord("s")):
            return self._of(node.value, depth)
        return _ANYTHING

    def _call(self, node: ast.Call, depth: int) -> list[Shape]:
        function, args = node.func, node.args
        name = dotted(function)
        if name and (name[-1] in _PATH_CLASSES or name in _JOINS) and args:
            return _joined([self._of(arg, depth) for arg in args])
        if name in (("str",), ("os", "fspath")) and len(args) == 1:
            return self._of(args[0], depth)
        if isinstance(function, ast.Attribute):
            if function.attr == "as_posix" and not args:
                return self._of(function.value, depth)
            if function.attr == "with_suffix" and len(args) == 1:
                return _product([[stem for shape in self._of(function.value, depth) for stem in _stems(shape)], self._of(args[0], depth)])
            if function.attr == "with_name" and len(args) == 1:
                return _product([[_parent(shape) for shape in self._of(function.value, depth)], self._of(args[0], depth)])
        return _ANYTHING

    def _name(self, name: str, depth: int) -> list[Shape]:
        """Every value `name` is bound to. A binding that reads the name itself
        (`path = path.with_name("index.md")`) is read from the others' values, again until no
        value is new (MAX_ROUNDS; else any text); a name reached again through other names, or
        before its own values are known, is any text."""
        if name in self._reading:
            return self._partial.get(name, _ANYTHING)
        self._reading.add(name)
        try:
            values = self.bindings.get(name, []) if name in self.bindings or name in self.loops else [None]
            own = [value for value in values if value is not None and reads(value, name)]
            shapes: list[Shape] = []
            for value in values:
                if value is None:
                    shapes += _ANYTHING
                elif value not in own:
                    shapes += self._of(value, depth)
            for iterable in self.loops.get(name, []):
                shapes += self._items(iterable, depth)
            found = _capped(shapes)
            for _ in range(MAX_ROUNDS if own else 0):
                self._partial[name] = found
                more = _capped(found + [shape for value in own for shape in self._of(value, depth)])
                if set(more) == set(found):
                    break
                found = more
            else:
                if own:
                    found = _ANYTHING
            return found
        finally:
            self._reading.discard(name)
            self._partial.pop(name, None)

    def _items(self, node: ast.expr, depth: int) -> list[Shape]:
        """The shapes of the items a `for` takes from `node`: a constant `range(...)`, or a
        list, tuple or set written out; else `ANY`."""
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return _capped([shape for item in node.elts for shape in self._of(item, depth)])
        if isinstance(node, ast.Call) and dotted(node.func) == ("range",) and not node.keywords and 1 <= len(node.args) <= 3:
            bounds = [arg.value if isinstance(arg, ast.Constant) and type(arg.value) is int else None for arg in node.args]
            if None in bounds or (len(bounds) == 3 and bounds[2] == 0):
                return _ANYTHING
            numbers = range(*bounds)  # type: ignore[arg-type]
            return _ANYTHING if len(numbers) > MAX_SHAPES else [(str(number),) for number in numbers]
        return _ANYTHING


def _capped(shapes: list[Shape]) -> list[Shape]:
    shapes = list(dict.fromkeys(_merged(shape) for shape in shapes))
    return _ANYTHING if len(shapes) > MAX_SHAPES or not shapes else shapes


def _product(choices: list[list[Shape]]) -> list[Shape]:
    """Each way of putting one shape of each choice after the other."""
    total = 1
    for choice in choices:
        total *= len(choice)
        if total > MAX_SHAPES:
            return _ANYTHING
    return _capped([tuple(itertools.chain.from_iterable(combination)) for combination in itertools.product(*choices)])


def _joined(choices: list[list[Shape]]) -> list[Shape]:
    """Path parts joined with `/` (an empty part adds nothing, as `Path("a", "")` is `a`)."""
    separated: list[list[Shape]] = []
    for index, choice in enumerate(choices):
        separated.append(choice if index == 0 else [shape if shape == ("",) else ("/", *shape) for shape in choice])
    return [_normalised(shape) for shape in _product(separated)]


def _normalised(shape: Shape) -> Shape:
    """`./a` as `a`, `a//b` as `a/b` in its literal parts (Path does the same)."""
    parts = list(_merged(shape))
    for index, part in enumerate(parts):
        if part is not ANY:
            text = re.sub(r"/{2,}", "/", part)
            parts[index] = text.removeprefix("./") if index == 0 else text.replace("/./", "/")
    if parts and parts[0] == "/" and len(parts) > 1:  # Path("", x) or "" / x: x
        parts = parts[1:]
    return tuple(parts)


def _stems(shape: Shape) -> list[Shape]:
    """The shape without its suffix (`with_suffix`, as PurePath.suffix: from the last `.` of
    the final name, not a leading one): exact where the final name's last dot is known, else
    its directory followed by any text."""
    last = shape[-1] if shape else ""
    if last is not ANY:
        head, slash, name = last.rpartition("/")
        dot = name.rfind(".")
        whole = bool(slash) or len(shape) == 1  # the final name is all in this literal
        if 0 < dot < len(name) - 1:
            return [(*shape[:-1], head + slash + name[:dot])]
        if whole or (dot == len(name) - 1 and dot > 0):
            return [shape]
        if dot == 0 and len(name) > 1:  # `x` + ".md": the suffix, unless the name is only ".md"
            return [shape[:-1], shape]
    return [(*_parent(shape), ANY)]


def _parent(shape: Shape) -> Shape:
    """The directory part of the shape with its `/` (`with_name`): exact when the last `/` is
    in a literal after every `ANY`; else the literal text up to the last `/` known, then any
    text; "" when it has none."""
    after_any = False
    for index in range(len(shape) - 1, -1, -1):
        part = shape[index]
        if part is ANY:
            after_any = True
            continue
        if "/" in part:
            head = (*shape[:index], part[: part.rfind("/") + 1])
            return (*head, ANY) if after_any else head
    return (ANY,) if after_any else ("",)
