"""The shape of the package, read from its source (nothing is imported):

- no import cycle among linkfix's modules: an import inside a function counts (it runs, only
  later), an import under `if TYPE_CHECKING:` does not (it never runs), importing `a.b.c` imports
  the package `a.b` too (its __init__ runs first; not the root's, whose imports are lazy), and a
  module importing its own package (`from . import register`) is no cycle: the package is there
  already;
- stages only look down: every module has its place in LAYERS, and imports (counted as above)
  only from its own layer or lower ones, with no exception;
- no module over 450 lines, and at most 8 modules at the top of linkfix/ (the rest lives in the
  stage packages);
- the installed package never imports the test assets (fixtures' simulated web, benchmarks);
- no print() outside the command line (linkfix/cli): everything else logs or returns.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "linkfix"
MAX_LINES = 450
MAX_TOP_MODULES = 8
TEST_ASSETS = ("linkfix_simweb", "benchmarks")
ROOT = "linkfix"

#: The order of the package, lowest first: a module may import from its own layer or below.
#: A name stands for that module and everything under it (the root package for itself only).
LAYERS: tuple[tuple[str, ...], ...] = (
    # shared by every stage, themselves in order
    ("linkfix.speedups",),  # the speed tricks and the switch that turns them off (imports nothing of linkfix's)
    ("linkfix.version",),  # the version the reports and --version write
    ("linkfix.errors",),  # the one error tree
    ("linkfix.atomic",),  # writing a file whole or not at all
    ("linkfix.urls",),  # URL arithmetic
    ("linkfix.model.verdicts",),  # what a check says of a target: Status, Reason
    ("linkfix.model",),  # the data that crosses stages
    ("linkfix.files",),  # reading one file safely (sources and config files alike)
    ("linkfix.config",),  # the typed configuration and its loading
    ("linkfix.store",),  # the one persistent store
    # the stages, in the order a run goes through them
    ("linkfix.formats",),  # how markdown and HTML are read (links, spans, ids): no generator's rules
    ("linkfix.mkdocs",),  # the MkDocs family: its config, files, nav, pages, theme and plugins, as its builds make the site
    ("linkfix.inputs",),
    ("linkfix.extract",),
    ("linkfix.check",),
    ("linkfix.recover",),
    ("linkfix.report",),
    ("linkfix.fix",),
    # what runs the stages
    ("linkfix.pipeline",),  # the one orchestrator
    ("linkfix.build",),  # a build plugin's check of the rendered site
    ("linkfix.cli", "linkfix.__main__"),
    (ROOT,),  # the public API (its own imports are lazy, by name, and not seen here)
)


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: at any depth, but not under `if TYPE_CHECKING:`
    (its `else:` branch runs, so it counts)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from imports(ast.Module(body=[child], type_ignores=[]))
            continue
        yield from imports(node)


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules (of `known`) that module `name` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            base = ".".join(anchor + ([base] if base else []))
        found.add(base)
        # `from package import submodule` imports the submodule too.
        found.update(f"{base}.{alias.name}" for alias in node.names)
    return {target for target in found if target in known}


def with_packages(targets: set[str], known: set[str]) -> set[str]:
    """`targets` and the packages above each, but the root: importing `a.b.c` runs `a.b`'s
    __init__ before `a.b.c` (the root's imports are lazy: it imports nothing at run time)."""
    found = set(targets)
    for target in targets:
        parts = target.split(".")
        found.update(package for i in range(2, len(parts)) if (package := ".".join(parts[:i])) in known)
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the modules it imports, without the edges from a module to its own packages."""
    found = modules(root)
    known = set(found)
    return {name: {t for t in with_packages(imported_modules(name, path, known), known) if not name.startswith(t + ".") and t != name}
            for name, path in found.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def layer_of(name: str) -> int | None:
    """The index in LAYERS of `name`'s nearest declared module or package, None if it has none."""
    best: tuple[int, int] | None = None  # (length of the declared name, layer)
    for index, layer in enumerate(LAYERS):
        for declared in layer:
            inside = name == declared or (declared != ROOT and name.startswith(declared + "."))
            if inside and (best is None or len(declared) > best[0]):
                best = (len(declared), index)
    return None if best is None else best[1]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import from a module to one in a higher layer, as 'importer -> imported'."""
    found = []
    for name in sorted(graph):
        for target in sorted(graph[name]):
            low, high = layer_of(name), layer_of(target)
            if low is not None and high is not None and high > low:
                found.append(f"{name} -> {target}")
    return found


def test_every_module_has_its_place_in_the_layers():
    assert [name for name in modules() if layer_of(name) is None] == []


def test_stages_only_import_downwards():
    assert upward_imports(import_graph()) == []


def test_no_module_is_over_450_lines():
    long = {name: n for name, path in modules().items() if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_the_top_of_the_package_keeps_at_most_8_modules():
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top


def test_the_package_never_imports_the_test_assets():
    offending = []
    for name, path in modules().items():
        for node in imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                targets = [] if node.level else [node.module or ""]  # a relative import stays inside linkfix
            offending += [(name, t) for t in targets if t.split(".")[0] in TEST_ASSETS]
    assert offending == []


def test_only_the_command_line_prints():
    printing = []
    for name, path in modules().items():
        if name == "linkfix.cli" or name.startswith("linkfix.cli."):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        printing += [f"{name}:{node.lineno}" for node in ast.walk(tree)
                     if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"]
    assert printing == []


# -- the checks themselves, on a package made for them ------------------------------------------------------
def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "linkfix"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_the_cycle_check_counts_function_level_imports_and_not_type_checking_ones(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "def f():\n    from . import b\n",
        "b.py": "from .a import f\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import X\n",
        "d.py": "from .c import Y\n",
        "stage/__init__.py": "from .part import thing\n",
        "stage/part.py": "from . import helper\nfrom .. import a\n",
        "stage/helper.py": "",
        "reader/__init__.py": "from ..lazy import Rows\n",
        "reader/text.py": "",
        "lazy.py": "def made():\n    from .reader.text import made\n",  # runs reader/__init__ first
    })
    graph = import_graph(root)
    assert graph["linkfix.b"] == {"linkfix.a"} and graph["linkfix.a"] == {"linkfix.b"}
    assert graph["linkfix.c"] == set()
    assert graph["linkfix.stage.part"] == {"linkfix.stage.helper", "linkfix.a"}  # not its own package
    assert graph["linkfix.lazy"] == {"linkfix.reader", "linkfix.reader.text"}
    assert cycles(graph) == [["linkfix.a", "linkfix.b"], ["linkfix.lazy", "linkfix.reader"]]


def test_the_layer_check_counts_function_level_imports_and_not_type_checking_ones(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "model.py": "",
        "inputs/__init__.py": "",
        "inputs/crawl.py": "def crawl():\n    from ..extract import extract_html\n",
        "inputs/scope.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..check.http import Budget\n",
        "extract/__init__.py": "from ..inputs.scope import x\nfrom ..model import Link\n",
        "check/__init__.py": "",
        "check/http.py": "",
        "config/__init__.py": "from ..report import FORMATS\n",
        "report/__init__.py": "",
    })
    assert upward_imports(import_graph(root)) == [
        "linkfix.config -> linkfix.report", "linkfix.inputs.crawl -> linkfix.extract"]


def test_a_module_belongs_to_its_nearest_declared_package():
    assert layer_of("linkfix.check.http.transport") == layer_of("linkfix.check")
    assert layer_of("linkfix.config.load") < layer_of("linkfix.formats") < layer_of("linkfix.mkdocs") < layer_of("linkfix.inputs")
    assert layer_of("linkfix.inputs") < layer_of("linkfix.extract.worker") < layer_of("linkfix.check")
    assert layer_of("linkfix") == len(LAYERS) - 1 and layer_of("linkfix.elsewhere") is None
