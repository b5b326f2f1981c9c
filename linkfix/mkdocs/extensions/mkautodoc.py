"""Which ids mkautodoc's `::: module.name` blocks can make, known without importing the project.

mkautodoc (0.2, its whole source read) renders a block as a signature (`<div>`, `<em>`, `<code>`,
`<strong>`, `<span>`: no id, whatever the object) and, for each option line of the block,
`:docstring:` the object's `__doc__`, `:members:` each member's: those are rendered by a new
Markdown of the page's own extensions (toc among them), so a docstring's headings, attribute
lists, raw HTML and footnotes make ids of any shape. So a block makes no id when it has no
option line, or when each docstring it renders is known here and spells none of those.

A docstring is known when the object is found by reading the sources (never importing them):
the module's file under the project (its config's directory, `src/`) and where this Python
finds the distribution, each copy found, following `from .x import name`; the object a plain
`def` or `class` with no decorator, whose docstring is never assigned in its module. Anything
else (an assignment, a decorator, `:members:` of all of a class, which `dir()` decides) leaves
the block able to make any id (a fragment into it is unverified).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
from pathlib import Path
from typing import Any

from ...files.read import Unreadable, read_text

EXTENSION = "mkautodoc"
# Other makers of `:::` blocks: with one of them on the site a block may be theirs.
_OTHER_MAKERS = ("mkdocs_click", "mkdocs-click")
_BLOCK_LINE = re.compile(r"^((?:[ \t]*>)*[ \t]?)::: ?([:a-zA-Z0-9_.]*) *$", re.MULTILINE)  # mkautodoc's RE, in a quote too
_ANY_BLOCK = re.compile(r":::")
_QUOTE = re.compile(r"^(?:[ \t]*>[ \t]?)*")
# What in a docstring's Markdown can make an id: a heading (ATX or setext), an attribute list,
# raw HTML, a footnote, a nested block; a code block where code lines get anchors.
_MAKES_IDS = re.compile(r"^[ \t]*#|^[ \t]*(?:=+|-+)[ \t]*$|\{|<|\[\^|:::", re.MULTILINE)
_CODE = re.compile(r"^(?: {4}|\t)|^[ \t]*(?:`{3,}|~{3,})", re.MULTILINE)
MAX_FILES = 24  # module files read for one page's blocks
MAX_DOCSTRING = 100_000


def blocks_make_no_ids(markdown: str, setup: Any, code_ids: bool) -> bool:
    """Whether every `:::` block of the page's `markdown` is mkautodoc's and makes no id
    (`setup`: the page's MarkdownSetup; `code_ids`: code lines get ids on this site)."""
    if EXTENSION not in setup.extensions or any(name in setup.extensions for name in _OTHER_MAKERS) \
            or setup.has_plugin("mkdocstrings"):
        return False
    blocks = list(_BLOCK_LINE.finditer(markdown))
    if not blocks or len(blocks) != len(_ANY_BLOCK.findall(markdown)):
        return False
    reader = _Sources(Path(setup.config_dir), Path(setup.project_dir))
    for block in blocks:
        options = _options(markdown, block.end())
        for option in options:
            if option.split()[:1] != [":docstring:"]:
                return False  # `:members:`: the members `dir()` gives, or named ones not read here
            docstring = reader.docstring(block.group(2))
            if docstring is None or _MAKES_IDS.search(docstring) or (code_ids and _CODE.search(docstring)):
                return False
    return True


def _options(markdown: str, end: int) -> list[str]:
    """The option lines under a block's first line: its paragraph's lines indented four spaces."""
    options = []
    for line in markdown[end:].split("\n")[1:]:
        text = _QUOTE.sub("", line, count=1) if line.lstrip().startswith(">") else line
        if not text.strip():
            break
        if not (text.startswith("    ") or text.startswith("\t")):
            break
        if text.strip().startswith(":"):
            options.append(text.strip())
    return options


class _Sources:
    """Docstrings of objects found by reading module files, never importing them."""

    def __init__(self, config_dir: Path, project_dir: Path) -> None:
        self.roots = list(dict.fromkeys([config_dir, config_dir / "src", project_dir, project_dir / "src"]))
        self.trees: dict[Path, ast.Module | None] = {}

    def docstring(self, dotted: str) -> str | None:
        """The docstring `dotted` (`package.module.name`) has in every copy found, as mkautodoc
        trims it; None when no copy is found or the copies differ or one cannot be read."""
        module, _, name = dotted.rpartition(".")
        if not module or not name:
            return None
        found = {self._in(path, name, depth=0) for path in self._files(module)}
        if len(found) != 1:
            return None
        return found.pop()

    def _files(self, module: str) -> list[Path]:
        parts = module.split(".")
        if not all(part.isidentifier() for part in parts):
            return []
        bases = [root for root in self.roots if (root / parts[0]).exists() or (root / f"{parts[0]}.py").exists()]
        try:
            spec = importlib.util.find_spec(parts[0])  # a top-level name: found, not imported
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            origin = Path(spec.origin)
            bases.append(origin.parent.parent if origin.name == "__init__.py" else origin.parent)
        files = []
        for base in dict.fromkeys(bases):
            path = base.joinpath(*parts)
            candidate = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
            if candidate.is_file():
                files.append(candidate)
        return files

    def _tree(self, path: Path) -> ast.Module | None:
        if path not in self.trees:
            tree = None
            if len(self.trees) < MAX_FILES:
                try:
                    tree = ast.parse(read_text(path)[0], str(path))
                except (Unreadable, SyntaxError, ValueError, RecursionError, MemoryError):  # MemoryError: the parser's own stack
                    tree = None
            self.trees[path] = tree
        return self.trees[path]

    def _in(self, path: Path, name: str, *, depth: int) -> str | None:
        tree = self._tree(path)
        if tree is None or depth > 4:
            return None
        bound = [node for node in ast.walk(tree) if _binds(node, name)]
        if len(bound) != 1 or bound[0] not in tree.body or _doc_assigned(tree):
            return None
        node = bound[0]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.decorator_list:
                return None
            docstring = ast.get_docstring(node, clean=False) or ""
            return inspect.cleandoc(docstring) if len(docstring) < MAX_DOCSTRING else None
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            alias = next(alias for alias in node.names if (alias.asname or alias.name) == name)
            parts = node.module.split(".")
            directory = path.parent.joinpath(*parts)
            target = directory / "__init__.py" if directory.is_dir() else directory.with_suffix(".py")
            return self._in(target, alias.name, depth=depth + 1) if target.is_file() else None
        return None


def _binds(node: ast.AST, name: str) -> bool:
    """Whether `node` binds `name` in the module's namespace (a def, a class, an import, an assignment)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((alias.asname or alias.name).split(".")[0] == name or alias.name == "*" for alias in node.names)
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, ast.Store)
    return False


def _doc_assigned(tree: ast.Module) -> bool:
    """Whether the module assigns a `__doc__` anywhere (`f.__doc__ = ...`, `__doc__ = ...` in a class)."""
    return any(isinstance(node, (ast.Attribute, ast.Name)) and getattr(node, "attr", getattr(node, "id", "")) == "__doc__"
               and isinstance(node.ctx, ast.Store) for node in ast.walk(tree))
