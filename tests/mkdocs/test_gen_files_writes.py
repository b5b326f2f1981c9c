"""What a mkdocs-gen-files script writes, read from its source (issue 44.7): exact names where
its paths are constants or f-strings over a constant range or list, whole-path patterns where
only part is known, and nothing bounded where it could make files another way."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from linkfix.mkdocs.project_code.gen_files_writes import script_writes
from tests.integration.conftest import check_mkdocs_project, worst_status_by_url


def writes(tmp_path: Path, source: str):
    script = tmp_path / "gen.py"
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    return script_writes(script, tmp_path)


def test_an_f_string_over_a_constant_range_is_each_of_its_names(tmp_path):
    found = writes(tmp_path, """\
        import mkdocs_gen_files

        for total in range(19, 100, 20):
            filename = f"sample/{total}-bottles.md"
            with mkdocs_gen_files.open(filename, "w") as f:
                print(total, file=f)
        """)
    assert found is not None
    assert found.exact == tuple(f"sample/{n}-bottles.md" for n in (19, 39, 59, 79, 99)) and found.patterns == ()


def test_paths_joined_under_a_constant_directory_stay_under_it(tmp_path):
    found = writes(tmp_path, """\
        from pathlib import Path
        import mkdocs_gen_files

        for path in sorted(Path("pkg").rglob("*.py")):
            doc_path = path.relative_to("pkg").with_suffix(".md")
            full_doc_path = Path("api", doc_path)
            if path.name == "__init__.py":
                full_doc_path = full_doc_path.with_name("index.md")
            with mkdocs_gen_files.open(full_doc_path, "w") as fd:
                fd.write("::: x")
            mkdocs_gen_files.set_edit_path(full_doc_path, path)
        with mkdocs_gen_files.open("api/SUMMARY.md", "w") as nav_file:
            nav_file.write("")
        """)
    assert found is not None and found.exact == ("api/SUMMARY.md",)
    assert found.patterns and all(pattern.startswith("api/") for pattern in found.patterns)


@pytest.mark.parametrize("other_write", [
    'open("docs/extra.md", "w").write("x")',
    'Path("docs/extra.md").write_text("x")',
    'import shutil; shutil.copy("a.md", "docs/b.md")',
    'mkdocs_gen_files.FilesEditor.current().open("x.md", "w")',
    'exec(code)',
])
def test_a_script_that_can_make_files_another_way_is_not_bounded(tmp_path, other_write):
    assert writes(tmp_path, f"""\
        from pathlib import Path
        import mkdocs_gen_files

        with mkdocs_gen_files.open("a.md", "w") as f:
            f.write("x")
        {other_write}
        """) is None


def test_a_script_importing_its_own_module_is_not_bounded(tmp_path):
    (tmp_path / "helpers.py").write_text("def write(): pass\n", encoding="utf-8")
    assert writes(tmp_path, "import mkdocs_gen_files\nimport helpers\nhelpers.write()\n") is None


def test_a_page_a_script_names_over_a_range_is_made_and_one_it_does_not_is_broken(tmp_path):
    report = check_mkdocs_project(tmp_path, """\
        site_url: https://example.github.io/proj
        plugins:
          - gen-files:
              scripts: [gen.py]
          - literate-nav
        nav:
          - Home: index.md
          - Sample: sample/
          - Other project: /other-project/
        """, {"index.md": "# Home\n\n[made](sample/99-bottles.md) [not made](sample/100-bottles.md)\n"},
        files={"gen.py": """\
        import mkdocs_gen_files

        for total in range(19, 100, 20):
            with mkdocs_gen_files.open(f"sample/{total}-bottles.md", "w") as f:
                print("# Bottles", file=f)
        """})
    found = worst_status_by_url(report)
    assert found["sample/99-bottles.md"] == "ok"
    assert found["sample/100-bottles.md"] == "broken"
    assert found["sample/"] == "ok"  # a nav section of the directory the script writes into
    assert found["/other-project/"] == "excluded"  # root-relative: a link MkDocs leaves as written, beside this site


def test_a_link_outside_what_a_script_writes_is_broken_and_inside_unverified(tmp_path):
    report = check_mkdocs_project(tmp_path, """\
        plugins:
          - gen-files:
              scripts: [gen.py]
        """, {"index.md": "# Home\n\n[read](read/#get) [api](api/index.md)\n"},
        files={"gen.py": """\
        from pathlib import Path
        import mkdocs_gen_files

        for path in Path("pkg").rglob("*.py"):
            full = Path("api", path.relative_to("pkg").with_suffix(".md"))
            with mkdocs_gen_files.open(full.with_name("index.md"), "w") as fd:
                fd.write("::: x")
        """})
    found = worst_status_by_url(report)
    assert found["read/#get"] == "broken"
    assert found["api/index.md"] == "unverified"
