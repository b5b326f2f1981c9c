"""The docs a mkdocs-gen-files script writes, read from its source without running it.

A script adds docs to the build only through `mkdocs_gen_files.open(name, mode)` with a mode
that writes (`w`, `a`, `x`, `+`): what it writes is the set of values `name` can take
(`path_values`): exact paths where they are known (`f"sample/{n}-bottles.md"` over a constant
`range`), else regular expressions of whole paths (`Path("api", module.with_suffix(".md"))`
is `api/.*\\.md`: nothing outside `api/`).

That bound holds only for a script whose every other way of making files or running code is
absent: each use of `mkdocs_gen_files` is `open`, `set_edit_path`, `Nav` or `config`; it imports
no module of its own directory (which could write too); it calls no builtin `open`, `exec`,
`eval`, `compile`, `__import__`, nothing of `os` (but `os.path`, `os.environ`), `shutil`, `subprocess`,
`importlib`, `runpy`, `io` or `tempfile`, and no path method that writes (`write_text`,
`touch`, `rename`, `.open`, ...). Otherwise `script_writes` is None, and the caller falls back
to the names the script spells (`reading.read_python`).
"""

from __future__ import annotations

import ast
import posixpath
from dataclasses import dataclass
from pathlib import Path

from ...files.read import Unreadable
from .names import dotted
from .path_values import PathValues, literal, regex
from .reading import parse_python

_MODULE = "mkdocs_gen_files"
_ALLOWED = frozenset({"open", "set_edit_path", "Nav", "config"})  # what of the module a bounded script may use
_DENIED_CALLS = frozenset({"open", "exec", "eval", "compile", "__import__", "breakpoint"})
_DENIED_MODULES = frozenset({"os", "shutil", "subprocess", "importlib", "runpy", "io", "tempfile"})
_READ_ONLY_OS = frozenset({"path", "environ", "getenv", "fspath", "sep", "getcwd"})  # os.path.join(...), os.environ.get(...)
_WRITING_METHODS = frozenset({"write_text", "write_bytes", "touch", "mkdir", "makedirs", "rename", "replace_file", "symlink_to",
                              "hardlink_to", "unlink", "rmdir", "open", "copy", "copyfile", "copytree", "move", "chmod"})
_WRITE_MODES = frozenset("wax+")


@dataclass(frozen=True, slots=True)
class ScriptWrites:
    """What one script writes among the docs (docs-relative)."""

    exact: tuple[str, ...] = ()  # paths it writes, known exactly
    patterns: tuple[str, ...] = ()  # regular expressions of the whole paths it may write otherwise


def script_writes(path: Path, project: Path) -> ScriptWrites | None:
    """The docs the script `path` writes, or None when that cannot be bounded from its source
    (see the module docstring)."""
    try:
        tree = parse_python(path, project)
    except Unreadable:
        return None
    try:
        return _writes(tree, path.parent)
    except RecursionError:
        return None


def _writes(tree: ast.Module, directory: Path) -> ScriptWrites | None:
    modules, openers = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == _MODULE:
                    modules.add(alias.asname or alias.name)
                elif alias.name.startswith(_MODULE + ".") or _local(alias.name, directory):
                    return None
        elif isinstance(node, ast.ImportFrom):
            if node.level or (node.module and _local(node.module, directory)):
                return None
            if node.module == _MODULE:
                for alias in node.names:
                    if alias.name not in _ALLOWED:
                        return None
                    if alias.name == "open":
                        openers.add(alias.asname or alias.name)
            elif node.module and node.module.startswith(_MODULE + "."):
                return None
    if not modules and not openers:
        return None  # no call of gen-files' open the reading knows: what it writes is not bounded here
    parents = {id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    values = PathValues(tree)
    exact: list[str] = []
    patterns: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in modules | openers and not _allowed_use(node, parents, modules):
            return None
        if not isinstance(node, ast.Call):
            continue
        if _is_open(node, modules, openers):
            name = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "name"), None)
            if name is None or not _writes_mode(node):
                continue
            for shape in values.of(name):
                written = literal(shape)
                if written is not None:
                    written = posixpath.normpath(written)
                    if not written.startswith(("../", "/")) and written != "..":
                        exact.append(written)
                else:
                    patterns.append(regex(shape))
        elif _denied(node):
            return None
    return ScriptWrites(exact=tuple(dict.fromkeys(exact)), patterns=tuple(dict.fromkeys(patterns)))


def _local(module: str, directory: Path) -> bool:
    """Whether `module` is a file or package of the script's directory (its own code)."""
    top = module.split(".")[0]
    return (directory / f"{top}.py").is_file() or (directory / top / "__init__.py").is_file()


def _allowed_use(node: ast.Name, parents: dict[int, ast.AST], modules: set[str]) -> bool:
    """A use of the module (or of its `open`) that is one of the allowed ones, or an import."""
    parent = parents.get(id(node))
    if isinstance(node.ctx, ast.Store):
        return False  # rebound: not followed
    if node.id in modules:
        if not isinstance(parent, ast.Attribute) or parent.attr not in _ALLOWED:
            return False
        if parent.attr == "open":
            call = parents.get(id(parent))
            return isinstance(call, ast.Call) and call.func is parent
        return True
    return isinstance(parent, ast.Call) and parent.func is node


def _is_open(node: ast.Call, modules: set[str], openers: set[str]) -> bool:
    function = node.func
    if isinstance(function, ast.Name):
        return function.id in openers
    return isinstance(function, ast.Attribute) and function.attr == "open" and isinstance(function.value, ast.Name) \
        and function.value.id in modules


def _writes_mode(node: ast.Call) -> bool:
    """Whether the call opens for writing (a mode that is not a constant may)."""
    mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return bool(_WRITE_MODES & set(mode.value))
    return True


def _denied(node: ast.Call) -> bool:
    """A call that may write files or run code another way than gen-files' open."""
    function = node.func
    if isinstance(function, ast.Name):
        return function.id in _DENIED_CALLS
    if isinstance(function, ast.Attribute):
        if function.attr in _WRITING_METHODS:
            return True
        name = dotted(function)  # ("os", "path", "exists"): the module, then the first attribute taken of it
        if name and name[0] in _DENIED_MODULES:
            return not (name[0] == "os" and name[1] in _READ_ONLY_OS)
    return False
