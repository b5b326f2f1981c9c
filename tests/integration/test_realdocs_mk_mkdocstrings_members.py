"""mkdocstrings member ids known without running anything: a link to a
member a `::: pkg.mod` block is sure to render is ok; any other member id stays unverified, never
broken (reproductions of mkdocstrings' `reference/api/#mkdocstrings.BaseHandler`, kedro's and
textual's API links)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import check_mkdocs_project, worst_status_by_url

CONFIG = """\
plugins:
  - mkdocstrings:
      handlers:
        python:
          paths: [src]
          options:
            show_root_heading: true
{extra}"""

PACKAGE = {
    "src/pkg/__init__.py": '''\
        """The package."""
        from pkg._internal.base import BaseHandler, Undocumented
        from pkg._internal.base import NotExported

        __all__ = ["BaseHandler", "Undocumented"]
        ''',
    "src/pkg/_internal/__init__.py": "",
    "src/pkg/_internal/base.py": '''\
        class BaseHandler:
            """A handler."""

        class Undocumented:
            pass

        class NotExported:
            """Documented but imported and not in __all__."""
        ''',
    "src/pkg/mod.py": '''\
        """A module."""
        import typing

        LIMIT = 3
        """The limit."""

        UNDOCUMENTED = 4

        class Session:
            """A session."""

            timeout: float = 1.0
            """Seconds."""

            def open(self):
                """Open it."""

            def undocumented(self):
                pass

            def _private(self):
                """Private."""

            class Inner:
                """Nested."""

                def go(self):
                    """Go."""

        def run():
            """Run."""

        @typing.overload
        def twice(x: int) -> int: ...
        @typing.overload
        def twice(x: str) -> str: ...
        def twice(x):
            """Written three times: griffe's pick is not plain."""
        ''',
}


def _statuses(tmp_path: Path, page: str, extra: str = "", files: dict[str, str] | None = None) -> dict[str, str]:
    report = check_mkdocs_project(tmp_path, CONFIG.format(extra=extra), {"index.md": page, "api.md": "# API\n\n::: pkg.mod\n\n::: pkg\n"},
                                  {**PACKAGE, **(files or {})})
    return worst_status_by_url(report)


def test_members_a_block_is_sure_to_render_are_ok_and_the_rest_stay_unverified(tmp_path: Path) -> None:
    sure = ["pkg.mod.LIMIT", "pkg.mod.Session", "pkg.mod.Session.timeout", "pkg.mod.Session.open", "pkg.mod.Session.Inner",
            "pkg.mod.Session.Inner.go", "pkg.mod.run", "pkg.BaseHandler"]
    unsure = ["pkg.mod.UNDOCUMENTED", "pkg.mod.Session.undocumented", "pkg.mod.Session._private", "pkg.mod.twice",
              "pkg.Undocumented", "pkg.NotExported", "pkg.mod.typing", "pkg.mod.nothing"]
    page = "".join(f"[{i}](api.md#{target})\n" for i, target in enumerate(sure + unsure))
    found = _statuses(tmp_path, page)
    assert {target: found[f"api.md#{target}"] for target in sure} == dict.fromkeys(sure, "ok")
    assert {target: found[f"api.md#{target}"] for target in unsure} == dict.fromkeys(unsure, "unverified")


@pytest.mark.parametrize(("extra", "target", "status"), [
    ("            show_if_no_docstring: true\n", "pkg.mod.UNDOCUMENTED", "ok"),
    ("            filters: ['!^run$']\n", "pkg.mod.run", "unverified"),
    ("            filters: ['!^run$']\n", "pkg.mod.LIMIT", "ok"),
    ("            filters: public\n", "pkg.mod.run", "unverified"),
    ("            members: [run]\n", "pkg.mod.LIMIT", "unverified"),
    ("            members: [run]\n", "pkg.mod.run", "ok"),
    ("            members: [Session]\n", "pkg.mod.Session.open", "ok"),
    ("            extensions: [griffe_pydantic]\n", "pkg.mod.run", "unverified"),
])
def test_the_options_that_select_members_are_followed(tmp_path: Path, extra: str, target: str, status: str) -> None:
    assert _statuses(tmp_path, f"[x](api.md#{target})\n", extra)[f"api.md#{target}"] == status


@pytest.mark.parametrize("stub", ["src/pkg/mod.pyi", "src/pkg-stubs/mod.pyi"])
def test_no_member_claim_where_the_module_is_not_plainly_on_the_paths(tmp_path: Path, stub: str) -> None:
    # A stub beside the module: griffe merges it, so what renders is not what the .py says.
    found = _statuses(tmp_path, "[x](api.md#pkg.mod.run)\n", files={stub: "def run() -> None: ...\n"})
    assert found["api.md#pkg.mod.run"] == "unverified"


def test_no_member_claim_where_the_package_is_not_on_the_handler_paths(tmp_path: Path) -> None:
    # kedro's `paths: [src]` with no src/ in the tree: griffe finds the installed copy on sys.path.
    files = {f"lib/{name.removeprefix('src/')}": text for name, text in PACKAGE.items()}
    report = check_mkdocs_project(tmp_path, CONFIG.format(extra=""), {"index.md": "[x](api.md#pkg.mod.run)\n", "api.md": "::: pkg.mod\n"},
                                  files)
    assert worst_status_by_url(report)["api.md#pkg.mod.run"] == "unverified"


def test_a_block_written_as_a_heading_makes_its_ids_and_its_members_ids(tmp_path: Path) -> None:
    # mkdocstrings' own reference/api.md: `# ::: mkdocstrings` with its options under it.
    api = "# ::: pkg\n    options:\n        show_submodules: true\n\n```\n# ::: pkg.mod\n```\n"
    report = check_mkdocs_project(tmp_path, CONFIG.format(extra=""),
                                  {"index.md": "[a](api.md#pkg)\n[b](api.md#pkg.BaseHandler)\n[c](api.md#pkg.mod.run)\n", "api.md": api},
                                  PACKAGE)
    # `# ::: pkg.mod` inside a fence is text, not a block: its ids stay unverified.
    assert worst_status_by_url(report) == {"api.md#pkg": "ok", "api.md#pkg.BaseHandler": "ok", "api.md#pkg.mod.run": "unverified"}


def test_the_benchmark_reads_mkdocs_nav_warnings_as_findings_on_the_nav() -> None:
    # Before, only "Doc file ... contains" lines were read: a nav entry MkDocs warns about and
    # linkfix called ok was no miss in the benchmark's table.
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from realdocs_build import parse_mkdocs_log

    log = ("WARNING -  A reference to 'auto-themed/auto-themed.md' is included in the 'nav' configuration, which is not found "
           "in the documentation files.\n"
           "INFO    -  A reference to 'drafts/a.md' is included in the 'nav' configuration, but this file is excluded from the "
           "built site.\n"
           "INFO    -  An absolute path to '/x/' is included in the 'nav' configuration, which presumably points to an external "
           "resource.\n")
    assert [(f.tool, f.page, f.target, f.kind) for f in parse_mkdocs_log(log)] == [
        ("mkdocs", "(nav)", "auto-themed/auto-themed.md", "missing-page"),
        ("mkdocs", "(nav)", "drafts/a.md", "excluded-target"),
    ]
