"""The member ids a mkdocstrings-python `::: identifier` block is sure to render, read from the
sources with `ast` (never importing them).

mkdocstrings-python renders, below the block's object, every member its `filter_objects` keeps
(templates `children.html.jinja`), each with a heading whose id is the member's dotted path
(`html_id = obj.path`). A member is kept when: `members` (the root level only) does not leave it
out; its name passes `filters` (default `["!^_[^_]"]`); it has a docstring unless
`show_if_no_docstring`; it is not an import, or it is one the module's `__all__` names. Classes
render their own members the same way. This module claims a member id only where all of that is
plain in the sources; anything else is left to the build (unverified), so a claim can
only turn an unverified link ok, never one broken.

What is claimed:
- members are found the way griffe finds them: the block's module on the handler's `paths`
  (relative to the config file; the config file's folder when none), first path first; a module
  with a stub (`.pyi`, a `-stubs` package), a namespace package, or a module not on those paths
  (one griffe would find on `sys.path`) gets no claim;
- a member is a `def`, `async def` or `class` written directly in its module's or class's body,
  or a name assigned there with a docstring string right after it, bound once in that body (no
  second `def`, `@overload`, property setter, import, `del` or star import of the same name);
  its name does not start with `_`;
- an import the module's literal `__all__` names counts (an alias: only its own id) when it
  leads, within the same package, to a `def` or `class` kept by the rules above;
- submodules, inherited members and a block of a class reached through an alias get no claim;
  nor does anything where griffe `extensions` or `force_inspection` are set.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import re
from pathlib import Path
from typing import Any

from ...config.patterns import PatternError, RepositoryPattern, repository_pattern
from ...files.read import Unreadable, read_bytes

# The handler options that decide which members a block renders; any other option leaves that alone.
MEMBER_OPTIONS = ("members", "filters", "show_if_no_docstring", "extensions", "force_inspection")
_DEFAULT_FILTERS = ["!^_[^_]"]
_MAX_ALIAS_HOPS = 5
_GLOB = re.compile(r"[*?\[]")


def search_paths(handler: dict[str, Any], config_dir: str) -> list[str] | None:
    """The folders griffe looks in before `sys.path` (None when they are not plain paths)."""
    paths = handler.get("paths")
    if paths is None or paths == []:
        return [config_dir]
    if not isinstance(paths, list) or not all(isinstance(p, str) and p and not _GLOB.search(p) for p in paths):
        return None
    return [os.path.normpath(os.path.join(config_dir, p)) for p in paths]


def sources_digest(paths: list[str]) -> str:
    """A digest of the Python files that may be read under `paths` (name, size, time): the
    extraction cache must not keep member ids of sources that changed."""
    digest = hashlib.sha256()
    for root in paths:
        try:
            entries = sorted(os.scandir(root), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith((".py", ".pyi")) and entry.is_file():
                _add_stat(digest, entry.path)
            elif entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                for folder, dirs, files in os.walk(entry.path):
                    dirs.sort()
                    for name in sorted(files):
                        if name.endswith((".py", ".pyi")):
                            _add_stat(digest, os.path.join(folder, name))
    return digest.hexdigest()[:16]


def _add_stat(digest: Any, path: str) -> None:
    try:
        stat = os.stat(path)
    except OSError:
        return
    digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode("utf-8", "surrogatepass"))


def member_ids(identifier: str, options: dict[str, Any], paths: list[str]) -> frozenset[str]:
    """The ids of the members the block `::: identifier` (with its merged `options`) is sure to
    render, found under `paths`."""
    rules = _Rules.of(options)
    if rules is None:
        return frozenset()
    found = _locate(identifier, tuple(paths))
    if found is None:
        return frozenset()
    module_file, names = found
    body = _module_body(module_file)
    if body is None:
        return frozenset()
    top_package = identifier.split(".")[0]
    scope = _Scope(module_file, identifier.rsplit(".", len(names))[0] if names else identifier, body, is_module=True)
    for name in names:  # the block is of a class (maybe nested) of that module
        node = scope.defined(name)
        if not isinstance(node, ast.ClassDef):
            return frozenset()
        scope = _Scope(module_file, f"{scope.path}.{name}", node.body, is_module=False)
    ids: set[str] = set()
    _collect(scope, rules, root=True, top=(top_package, tuple(paths)), ids=ids)
    return frozenset(ids)


class _Rules:
    def __init__(self, members: list[str] | None, filters: list[tuple[RepositoryPattern, bool]], need_docstring: bool) -> None:
        self.members = members
        self.filters = filters
        self.need_docstring = need_docstring

    @classmethod
    def of(cls, options: dict[str, Any]) -> _Rules | None:
        if options.get("extensions") or options.get("force_inspection") not in (None, False):
            return None  # griffe extensions may add, drop or rewrite members
        members = options.get("members")
        if members is True:
            members = None
        if members is not None and not (isinstance(members, list) and all(isinstance(m, str) for m in members)):
            return None
        filters = options.get("filters", _DEFAULT_FILTERS)
        if filters is None:
            filters = []
        if not isinstance(filters, list) or not all(isinstance(f, str) for f in filters):
            return None  # `"public"` or something not plain
        try:
            compiled = [(repository_pattern(f.removeprefix("!"), origin="mkdocstrings' filters"), f.startswith("!")) for f in filters]
        except PatternError:
            return None
        show_undocumented = options.get("show_if_no_docstring", False)
        if not isinstance(show_undocumented, bool):
            return None
        return cls(members, compiled, not show_undocumented)

    def keeps(self, name: str, root: bool, documented: bool) -> bool:
        if name.startswith("_"):
            return False
        if root and self.members is not None:
            return name in self.members  # mkdocstrings keeps a listed member whatever its docstring
        return _keep_object(name, self.filters) and (documented or not self.need_docstring)


def _keep_object(name: str, filters: list[tuple[RepositoryPattern, bool]]) -> bool:
    """mkdocstrings-python's own rule (rendering._keep_object)."""
    keep = None
    rules = set()
    for regex, exclude in filters:
        rules.add(exclude)
        if regex.matches(name, otherwise=False):
            keep = not exclude
    if keep is None:
        return rules != {False}
    return keep


class _Scope:
    """A module's or a class's body: the names it defines once, directly."""

    def __init__(self, file: str, path: str, body: list[ast.stmt], *, is_module: bool) -> None:
        self.file = file
        self.path = path
        self.body = body
        self.is_module = is_module
        self.counts = _binding_counts(body)
        self.star_import = any(isinstance(s, ast.ImportFrom) and any(a.name == "*" for a in s.names) for s in _statements(body))

    def bound_once(self, name: str) -> bool:
        return not self.star_import and self.counts.get(name, 0) == 1

    def defined(self, name: str) -> ast.stmt | None:
        if not self.bound_once(name):
            return None
        for statement in self.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and statement.name == name:
                return statement
        return None

    def members(self) -> list[tuple[str, ast.stmt, bool]]:
        """(name, statement, has a docstring) of every member written directly in the body."""
        found: list[tuple[str, ast.stmt, bool]] = []
        for index, statement in enumerate(self.body):
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.append((statement.name, statement, bool((ast.get_docstring(statement) or "").strip())))
            elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
                target = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                if len(target) == 1 and isinstance(target[0], ast.Name):
                    after = self.body[index + 1] if index + 1 < len(self.body) else None
                    documented = (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                                  and isinstance(after.value.value, str) and bool(after.value.value.strip()))
                    found.append((target[0].id, statement, documented))
        return [(name, node, documented) for name, node, documented in found if self.bound_once(name)]

    def exported(self) -> set[str]:
        """The names of the module's literal `__all__` (empty when it has none, or one not plain)."""
        if not self.is_module or self.counts.get("__all__", 0) != 1:
            return set()
        for statement in self.body:
            value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
            targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
            if (value is not None and any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
                    and isinstance(value, (ast.List, ast.Tuple))
                    and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts)):
                return {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        return set()


def _collect(scope: _Scope, rules: _Rules, *, root: bool, top: tuple[str, tuple[str, ...]], ids: set[str]) -> None:
    for name, node, documented in scope.members():
        if not rules.keeps(name, root, documented):
            continue
        ids.add(f"{scope.path}.{name}")
        if isinstance(node, ast.ClassDef):
            _collect(_Scope(scope.file, f"{scope.path}.{name}", node.body, is_module=False), rules, root=False, top=top, ids=ids)
    if scope.is_module:
        for name in scope.exported():
            if scope.bound_once(name) and _alias_documented(scope, name, top, rules):
                ids.add(f"{scope.path}.{name}")


def _alias_documented(scope: _Scope, name: str, top: tuple[str, tuple[str, ...]], rules: _Rules) -> bool:
    """Whether `name`, imported into the module `scope`, leads in the same package to a `def` or
    `class` with a docstring (or one is not needed), and its name is one the rules keep."""
    if name.startswith("_") or not _keep_object(name, rules.filters) or (rules.members is not None and name not in rules.members):
        return False
    current, wanted = scope, name
    for _ in range(_MAX_ALIAS_HOPS):
        source = _imported_from(current, wanted)
        if source is None:
            node = current.defined(wanted)
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                return False
            return bool((ast.get_docstring(node) or "").strip()) or not rules.need_docstring
        module, wanted = source
        if module.split(".")[0] != top[0]:
            return False
        found = _locate(module, top[1])
        if found is None or found[1]:
            return False
        body = _module_body(found[0])
        if body is None:
            return False
        current = _Scope(found[0], module, body, is_module=True)
    return False


def _imported_from(scope: _Scope, name: str) -> tuple[str, str] | None:
    """(absolute module, name there) where the module `scope` imports `name` from, directly."""
    for statement in scope.body:
        if isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                if (alias.asname or alias.name) == name:
                    base = statement.module or ""
                    if statement.level:
                        parts = scope.path.split(".")
                        package = parts if os.path.basename(scope.file) == "__init__.py" else parts[:-1]
                        if statement.level - 1 >= len(package):
                            return None
                        anchor = package[: len(package) - (statement.level - 1)]
                        base = ".".join([*anchor, base] if base else anchor)
                    return base, alias.name
    return None


@functools.lru_cache(maxsize=256)
def _locate(identifier: str, paths: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """(the file of the deepest module in `identifier`, the names after it), as griffe finds it
    on `paths`; None when it is not a plain `.py` module there."""
    parts = identifier.split(".")
    folder = None
    for root in paths:
        if os.path.isdir(os.path.join(root, parts[0])) or os.path.isfile(os.path.join(root, parts[0] + ".py")):
            folder = root
            break
        if any(os.path.exists(os.path.join(root, parts[0] + suffix)) for suffix in (".pyi", ".so", ".pyd", "-stubs")):
            return None
    if folder is None or os.path.exists(os.path.join(folder, parts[0] + "-stubs")):
        return None  # griffe merges a `-stubs` package into the module
    current = Path(folder)
    file = None
    for index, part in enumerate(parts):
        package, module = current / part, current / f"{part}.py"
        is_package = (package / "__init__.py").is_file()
        if (is_package and module.exists()) or (package.is_dir() and not is_package and index == 0):
            return None  # two candidates, or a namespace package: griffe's choice is not plain
        if is_package:
            if (package / "__init__.pyi").exists():
                return None
            if file is not None and _binds(file, part):
                return None  # the parent module's own name shadows the submodule
            file, current = str(package / "__init__.py"), package
        elif module.is_file():
            if (current / f"{part}.pyi").exists() or (file is not None and _binds(file, part)):
                return None
            file = str(module)
            return file, tuple(parts[index + 1 :])
        elif file is None:
            return None
        else:
            return file, tuple(parts[index:])
    return (file, ()) if file is not None else None


def _binds(file: str, name: str) -> bool:
    body = _module_body(file)
    return body is None or name in _binding_counts(body)


@functools.lru_cache(maxsize=256)
def _parsed(file: str) -> ast.Module | None:
    try:
        return ast.parse(read_bytes(Path(file)), filename=file)
    except (Unreadable, SyntaxError, ValueError, RecursionError, MemoryError):  # MemoryError: the parser's own stack
        return None


def _module_body(file: str) -> list[ast.stmt] | None:
    module = _parsed(file)
    return module.body if module is not None else None


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a body and of its `if`/`try`/`with`/loop blocks (not of its defs)."""
    found: list[ast.stmt] = []
    for statement in body:
        found.append(statement)
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list):
                    blocks = [s for item in inner for s in (item.body if isinstance(item, (ast.ExceptHandler, ast.match_case)) else [item])]
                    found.extend(_statements([s for s in blocks if isinstance(s, ast.stmt)]))
    return found


def _binding_counts(body: list[ast.stmt]) -> dict[str, int]:
    """How many times each name is bound (or deleted) in a body, its blocks included."""
    counts: dict[str, int] = {}

    def bind(name: str) -> None:
        counts[name] = counts.get(name, 0) + 1

    for statement in _statements(body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                bind(alias.asname or alias.name.split(".")[0])
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            targets: list[ast.AST] = []
            if isinstance(statement, ast.Assign):
                targets = list(statement.targets)
            elif isinstance(statement, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
                targets = [statement.target]
            elif isinstance(statement, ast.Delete):
                targets = list(statement.targets)
            else:
                targets = [item.optional_vars for item in statement.items if item.optional_vars is not None]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        bind(node.id)
        for node in ast.walk(statement) if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ():
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                bind(node.target.id)
    return counts
