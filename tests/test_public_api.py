"""The public API is `linkfix.__all__`: every name there resolves, `import linkfix` stays cheap,
and the mkdocs plugin uses nothing else of linkfix."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import linkfix

REPO = Path(__file__).resolve().parents[1]


def test_every_public_name_resolves():
    for name in linkfix.__all__:
        assert getattr(linkfix, name) is not None, name
    assert sorted(dir(linkfix)) == sorted(linkfix.__all__)
    assert set(linkfix.__all__) == set(linkfix._PUBLIC)


def test_importing_linkfix_loads_nothing_else():
    code = ("import sys, linkfix; "
            "print(sorted(m for m in sys.modules if m.startswith('linkfix.') or m in ('markdown', 'aiohttp', 'markdown_it', 'yaml')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True,
                          env={"PYTHONPATH": str(REPO), "PATH": ""})
    assert done.stdout.strip() == "[]"


def test_the_mkdocs_plugin_imports_only_the_public_api():
    plugin = REPO / "plugins" / "mkdocs_linkfix"
    used: set[str] = set()
    for source in plugin.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(), str(source))):
            if isinstance(node, ast.Import):
                assert not any(alias.name.startswith("linkfix") for alias in node.names), f"{source.name}: import linkfix.*"
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("linkfix"):
                assert node.module == "linkfix", f"{source.name}: from {node.module} import ..."
                used.update(alias.name for alias in node.names)
    assert used and used <= set(linkfix.__all__), used - set(linkfix.__all__)


def test_check_runs_a_check(tmp_path):
    (tmp_path / "a.md").write_text("[b](b.md) [gone](gone.md)\n")
    (tmp_path / "b.md").write_text("# B\n")
    import linkfix.check.local  # the package of that name must not hide the function

    report = linkfix.check_links([str(tmp_path)], linkfix.Config(offline=True, cache=False))
    assert [r.link.url for r in report.results if r.failing] == ["gone.md"]
    assert "1 broken" in linkfix.summarize(report)
    linkfix.write_report(report, tmp_path / "out" / "links.json")
    assert '"gone.md"' in (tmp_path / "out" / "links.json").read_text()


def test_the_version_is_the_one_the_package_is_built_with():
    import tomllib

    built = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert linkfix.__version__ == built
    done = subprocess.run([sys.executable, "-m", "linkfix", "--version"], capture_output=True, text=True, cwd=REPO, check=True,
                          env={"PYTHONPATH": str(REPO), "PATH": ""})
    assert done.stdout.strip() == f"linkfix {built}"
