"""What a project's own Python file can do to its site, read without running it.

A MkDocs hook (`hooks:`) or a mkdocs-gen-files script is the project's code: a source check never
runs it (only `--trust-project-code` does). Reading it tells which findings it could change, so
that only those are `unverified` and everything else stays exact:
- `events`: the MkDocs events it handles (`on_page_markdown`, `on_files`, ...);
- `makes_files`: those of its file events (`on_files`, `on_post_build`, ...) not proven to make
  no file: one that only reads what it is given (loops, tests, raising, logging, string
  methods) and returns it or nothing makes none (logfire's `on_files` refuses names with an
  underscore);
- `configures_markdown`: whether its `on_config` may change the Markdown settings (it names
  `markdown_extensions` or `mdx_configs`, reads the config by a key made at run time, or hands
  the config to a call): an extension it adds is unknown here;
- `rewrites`: the page events whose result may differ from the text they are given (an event
  that returns its argument unchanged on every path changes nothing: strings do not change);
- `patterns`: what it looks for in a page's text, as regular expressions (its `re` patterns,
  and the constant strings it replaces or tests for); None when one of its `re` patterns is not
  a constant, or when it rewrites pages and looks for nothing (then any page may be touched);
- `substitutions`: per page event it rewrites with, the literal patterns it only substitutes
  (`substitutions.substitutions`), or None when it may change the text otherwise;
- `names`: the file names and paths it spells (string constants, and f-strings as patterns:
  `f"sample/{n}-bottles.md"` is `sample/.+-bottles\\.md`), which is what it can write.

Modules the file imports from its own directory (as MkDocs puts it on `sys.path`) are read too.
Each file is read as every config file is (`files.read`: a regular file, size-capped, opened
without blocking) and only inside the project: a `hooks: [/dev/zero]`, a FIFO, or a hook that
leads out of the repository (`/etc/passwd`, `../../.bashrc`) is not read, and everything it
could touch is unverified.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from ...config.patterns import PatternError, RepositoryPattern, repository_pattern
from ...files.containment import outside_project
from ...files.read import Unreadable, read_bytes
from .substitutions import Substitution, substitutions

MAX_BYTES = 1_000_000  # a hook or script larger than this is not read (every finding it could touch is unverified)
MAX_MODULES = 12  # the file and the local modules it imports, followed to this many files

#: Events whose first argument is the page's text (Markdown or HTML) and whose result replaces it.
TEXT_EVENTS = ("on_page_read_source", "on_page_markdown", "on_page_content", "on_post_page")
#: Events in which files are added to the build, the docs or the site.
FILE_EVENTS = ("on_startup", "on_config", "on_pre_build", "on_files", "on_post_build", "on_post_template")

_RE_FUNCTIONS = frozenset({"sub", "subn", "compile", "match", "search", "fullmatch", "finditer", "findall", "split"})
# String methods whose argument is what a rewrite looks for (`split`, `find` and the like parse
# rather than decide what changes: reading them would make every page touched).
_STR_SEARCHES = frozenset({"replace", "startswith", "endswith", "removeprefix", "removesuffix"})
_PATH_LIKE = re.compile(r"[\w][\w.\-/]*")


@dataclass(frozen=True, slots=True)
class PythonReading:
    path: Path
    events: frozenset[str] = frozenset()
    makes_files: frozenset[str] = frozenset()
    configures_markdown: bool = False
    rewrites: frozenset[str] = frozenset()
    patterns: tuple[str, ...] | None = ()
    names: tuple[str, ...] = ()  # regular expressions for the paths it names
    error: str = ""  # why it could not be read ('' when it was)
    # event -> the literal patterns it only substitutes in its text, in order (None: it may change it otherwise)
    substitutions: tuple[tuple[str, tuple[Substitution, ...] | None], ...] = ()

    def substituted(self, event: str) -> tuple[Substitution, ...] | None:
        """The literal substitutions `event` makes to its text, None when not proven to be only those."""
        return dict(self.substitutions).get(event) if not self.error else None

    def touches(self, text: str) -> bool:
        """Whether a page event could change a page whose text is `text`."""
        if not self.rewrites and not self.error:
            return False
        if self.error or self.patterns is None:
            return True
        return any(_pattern(pattern, _OVER).matches(text, otherwise=True) for pattern in self.patterns)


def names_match(names: tuple[str, ...], path: str) -> bool:
    """Whether `path` (site- or docs-relative, no leading slash) is one of `names` (regular
    expressions of paths): a name itself, a file so named in any directory, a file under a
    directory so named or under the directory of a named file (`reference/SUMMARY.md`: the
    code writes into `reference/`), or a shape of an f-string."""
    path = path.strip("/")
    if not path:
        return False
    base = path.rsplit("/", 1)[-1]
    for name in names:
        if _pattern(name).matches(path, "fullmatch", otherwise=True) or _pattern(name).matches(base, "fullmatch", otherwise=True) \
                or _pattern(name + "/").matches(path, "match", otherwise=True):
            return True
        directory = name.rpartition("/")[0]  # a file the code writes there: it writes others beside it
        if directory and _pattern(directory + "/").matches(path, "match", otherwise=True):
            return True
    return False


def paths_match(patterns: tuple[str, ...], path: str) -> bool:
    """Whether `path` (site- or docs-relative, no leading slash) is the whole of one of
    `patterns` (regular expressions of paths, as `gen_files_writes` reads them)."""
    path = path.strip("/")
    return bool(path) and any(_pattern(pattern).matches(path, "fullmatch", otherwise=True) for pattern in patterns)


def _pattern(pattern: str, flags: int = 0) -> RepositoryPattern:
    """A pattern read from the project's code (or the shape of one of its f-strings: `x.+.+...\\.md`),
    bounded in time: one that runs away may match anything (what it touches is unverified)."""
    try:
        return repository_pattern(pattern, flags, origin="a pattern of the project's hooks or scripts")
    except PatternError:
        return repository_pattern(".", flags, origin="a pattern of the project's hooks or scripts")  # any text: as unknown


# Patterns are matched more widely than the hook matches them (case, lines and dots as loose as
# they go): a page the hook could touch must never be missed.
_OVER = re.IGNORECASE | re.MULTILINE | re.DOTALL


def read_python(path: Path, project: Path, runs_as: tuple[tuple[str, str], ...] = ()) -> PythonReading:
    """The reading of the Python file `path` of the project `project` (a real path; see the
    module docstring); `error` says why it could not be read (then everything it could touch is
    touched). `runs_as`: (function, event) for functions a plugin runs on an event they are not
    named as (mkdocs-simple-hooks' `on_post_build: "docs.hooks:copy_get"`), read as if so named."""
    files = [path]
    trees: list[ast.Module] = []
    for current in files:
        try:
            tree = parse_python(current, project)
        except Unreadable as exc:
            if current == path:
                return PythonReading(path=path, error=f"cannot be read ({exc})")
            continue
        trees.append(tree)
        for local in _local_imports(tree, current.parent):
            if local not in files and len(files) < MAX_MODULES:
                files.append(local)
    if runs_as:
        trees[0] = _named_as_events(trees[0], dict(runs_as))
    try:
        return _reading(path, trees)
    except RecursionError:  # the readers walk expressions recursively: `x = a.b.b...` 1,500 deep
        return PythonReading(path=path, error="cannot be read (its code is nested deeper than linkfix reads)")


def _reading(path: Path, trees: list[ast.Module]) -> PythonReading:
    """What the file `path` (its tree first, then those of the local modules it imports) can do."""
    reader = _Reader()
    for tree in trees:
        reader.constants(tree)
    for tree in trees:
        reader.visit(tree)
    events = frozenset(node.name for node in trees[0].body if isinstance(node, ast.FunctionDef) and node.name.startswith("on_"))
    makes_files = frozenset(node.name for node in trees[0].body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                            and node.name in FILE_EVENTS and not _makes_no_file(node))
    rewrites = frozenset(node.name for node in trees[0].body
                         if isinstance(node, ast.FunctionDef) and node.name in TEXT_EVENTS and _may_change(node))
    unknown = reader.unknown or (bool(rewrites) and not reader.patterns)
    configures = any(_may_configure_markdown(node) for node in trees[0].body
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "on_config")
    return PythonReading(path=path, events=events, makes_files=makes_files, configures_markdown=configures, rewrites=rewrites, patterns=None if unknown else tuple(dict.fromkeys(reader.patterns)),
                         names=tuple(dict.fromkeys(reader.names)),
                         substitutions=tuple((event, substitutions(trees[0], event)) for event in sorted(rewrites)))


def parse_python(path: Path, project: Path) -> ast.Module:
    """The syntax tree of the project's Python file `path`; Unreadable when it is outside
    `project` (symlinks followed), not a regular file, larger than MAX_BYTES or not Python."""
    if outside_project(path, project):
        raise Unreadable(f"outside the project, {project}: not read")
    data = read_bytes(path, limit=MAX_BYTES)
    try:
        return ast.parse(data, str(path))
    except (ValueError, SyntaxError, RecursionError, MemoryError) as exc:  # MemoryError: the parser's own stack
        raise Unreadable(f"{type(exc).__name__}: {exc}") from None


def _named_as_events(tree: ast.Module, events: dict[str, str]) -> ast.Module:
    """`tree` with each function of `events` renamed to the event it runs on (the caller makes
    sure no other top-level function has that name)."""
    body = [ast.FunctionDef(**{**{field: getattr(node, field) for field in node._fields}, "name": events[node.name]},
                            lineno=node.lineno, col_offset=node.col_offset)
            if isinstance(node, ast.FunctionDef) and node.name in events else node for node in tree.body]
    return ast.Module(body=body, type_ignores=tree.type_ignores)


def _local_imports(tree: ast.Module, directory: Path) -> list[Path]:
    """Files of `directory` that `tree` imports (`import snippets`, `from helpers import x`)."""
    found = []
    for node in ast.walk(tree):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
        for name in names:
            candidate = directory / (name.split(".")[0] + ".py")
            if candidate.is_file():
                found.append(candidate)
    return found


# What a file event may do and still make no file: read what it is given, test it, raise, log.
_PURE_BUILTINS = frozenset({"len", "isinstance", "issubclass", "str", "int", "float", "bool", "repr", "any", "all", "sorted",
                            "reversed", "min", "max", "enumerate", "zip", "range", "set", "frozenset", "list", "tuple", "dict",
                            "print", "hasattr", "type", "id", "abs", "round", "format"})
_PURE_METHODS = frozenset({"startswith", "endswith", "lower", "upper", "casefold", "strip", "lstrip", "rstrip", "split",
                           "rsplit", "splitlines", "join", "format", "find", "rfind", "index", "count", "isdigit",
                           "isalpha", "isalnum", "isidentifier", "removeprefix", "removesuffix", "partition", "rpartition",
                           "debug", "info", "warning", "warn", "error", "critical", "exception", "log", "get", "keys", "values", "items"})
_PURE_STATEMENTS = (ast.Expr, ast.If, ast.For, ast.While, ast.Raise, ast.Assert, ast.Pass, ast.Break, ast.Continue, ast.Return,
                    ast.Try, ast.Assign, ast.AugAssign, ast.AnnAssign)


def _makes_no_file(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a file event is proven to make no file: its statements only bind local names,
    loop, test, raise and return what it was given (or nothing); it calls only builtins that
    read, exception classes, and string, mapping and logging methods. Anything else (a call
    of another function, an attribute or item set, a nested function, `global`) may."""
    given = function.args.args[0].arg if function.args.args else None
    for node in ast.walk(ast.Module(body=function.body, type_ignores=[])):
        if isinstance(node, ast.stmt) and not isinstance(node, _PURE_STATEMENTS):
            return False
        if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, (ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            return False
        if isinstance(node, ast.Return) and node.value is not None and not (
                (isinstance(node.value, ast.Constant) and node.value.value is None)
                or (isinstance(node.value, ast.Name) and node.value.id == given)):
            return False
        if isinstance(node, ast.Call) and not _pure_call(node):
            return False
    return True


_MARKDOWN_KEYS = frozenset({"markdown_extensions", "mdx_configs"})
_CONFIG_READS = frozenset({"get", "setdefault", "__getitem__"})


def _may_configure_markdown(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether an `on_config` may change the Markdown settings (see the module docstring)."""
    config = function.args.args[0].arg if function.args.args else ""
    for node in ast.walk(function):
        if isinstance(node, ast.Constant) and node.value in _MARKDOWN_KEYS:
            return True
        if isinstance(node, ast.Attribute) and node.attr in _MARKDOWN_KEYS:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == config \
                and not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            return True
        if not isinstance(node, ast.Call):
            continue
        if any(isinstance(arg, ast.Name) and arg.id == config for arg in (*node.args, *(k.value for k in node.keywords))):
            return True
        function_node = node.func
        if isinstance(function_node, ast.Attribute) and isinstance(function_node.value, ast.Name) and function_node.value.id == config:
            key = node.args[0] if node.args else None
            if function_node.attr not in _CONFIG_READS or not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return True
    return False


def _pure_call(node: ast.Call) -> bool:
    function = node.func
    if isinstance(function, ast.Name):
        return function.id in _PURE_BUILTINS or function.id.endswith(("Error", "Exception", "Warning"))
    return isinstance(function, ast.Attribute) and function.attr in _PURE_METHODS


def _may_change(function: ast.FunctionDef) -> bool:
    """Whether a text event may return something other than the text it was given: a return of
    another value than its first argument (never reassigned) or None."""
    if not function.args.args:
        return True
    given = function.args.args[0].arg
    for node in ast.walk(function):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == given for target in targets for t in ast.walk(target)):
                return True
        if isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if not (isinstance(value, ast.Name) and value.id == given) and not (isinstance(value, ast.Constant) and value.value is None):
                return True
    return False


class _Reader(ast.NodeVisitor):
    def __init__(self) -> None:
        self.strings: dict[str, list[str]] = {}  # a name -> the string constants assigned to it
        self.patterns: list[str] = []
        self.names: list[str] = []
        self.unknown = False  # a regular expression is not a constant

    def constants(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = _text(node.value)
                for target in targets:
                    if isinstance(target, ast.Name) and value is not None:
                        self.strings.setdefault(target.id, []).append(value)

    def _values(self, node: ast.expr) -> list[str] | None:
        """The strings `node` can be: a constant, a name bound to constants only, else None."""
        text = _text(node)
        if text is not None:
            return [text]
        if isinstance(node, ast.Name) and node.id in self.strings:
            return self.strings[node.id]
        return None

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and 1 < len(node.value) <= 200 and _PATH_LIKE.fullmatch(node.value) and node.value not in ("..",):
            self.names.append(re.escape(node.value.strip("/").removeprefix("./")))

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        shape = _shape(node)
        constant = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
        if shape and _PATH_LIKE.fullmatch(constant.lstrip("/")) and ("/" in constant or "." in constant):
            self.names.append(shape)
        # its constant parts are not names by themselves: not visited

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func
        if isinstance(function, ast.Attribute):
            module = function.value
            if isinstance(module, ast.Name) and module.id in ("re", "regex") and function.attr in _RE_FUNCTIONS and node.args:
                self._pattern(node.args[0], regex=True)
            elif function.attr in _STR_SEARCHES and node.args and not _is_path_call(module):
                self._pattern(node.args[0], regex=False)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for operator, right in zip(node.ops, node.comparators):
            if isinstance(operator, (ast.In, ast.NotIn)) and _is_text_name(right):
                self._pattern(node.left, regex=False)
        self.generic_visit(node)

    def _pattern(self, node: ast.expr, *, regex: bool) -> None:
        values = self._values(node)
        if values is None:
            if isinstance(node, (ast.List, ast.Tuple, ast.Set)):  # `.startswith(("a", "b"))`
                for item in node.elts:
                    self._pattern(item, regex=regex)
                return
            # A pattern made at run time: any page may match. A replaced or tested string made at
            # run time is most often a piece of what a pattern found (a helper rewriting a
            # matched block): it adds no page of its own.
            self.unknown = self.unknown or regex
            return
        for value in values:
            if not value:
                self.unknown = True  # searching for "" matches everything
                continue
            try:
                repository_pattern(value if regex else re.escape(value), _OVER, origin="a pattern of the project's hooks or scripts")
            except PatternError:
                self.unknown = True
                continue
            self.patterns.append(value if regex else re.escape(value))


def _text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # "a" "b" split on lines, or "a" + "b"
        left, right = _text(node.left), _text(node.right)
        return left + right if left is not None and right is not None else None
    return None


def _shape(node: ast.JoinedStr) -> str:
    """An f-string as a regular expression: its constant parts as written, each value `.+`."""
    parts = []
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(re.escape(value.value))
        else:
            parts.append(".+")
    return "".join(parts).strip("/")


def _is_path_call(node: ast.expr) -> bool:
    """`os.path.x(...)`, `Path(...)`: a method of a path, not of a page's text."""
    return isinstance(node, ast.Attribute) and node.attr == "path"


def _is_text_name(node: ast.expr) -> bool:
    """The right side of `"x" in text`: a name or attribute (a page's text), not a literal set."""
    return isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call))
