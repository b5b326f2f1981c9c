"""A config names only known-safe callables without --trust-project-code (issue 38, finding 2).

The import rule used to check where a module lives (an installed distribution), not what it
is: PyYAML is always installed, so `toc: {slugify: !!python/name:yaml.load, separator:
!!python/name:yaml.UnsafeLoader}` made every heading a `yaml.load(heading, UnsafeLoader)` call,
and a heading `# !!python/object/apply:os.system [...]` ran a command; a markdown extension
spelled `yaml:load` with `Loader: !!python/name:yaml.UnsafeLoader` ran one while it was built.
Now a `!!python/name:` value is imported only where its option's allowlist names it, and an
extension spelled `module:Class` must be a real `markdown.Extension` subclass.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from linkfix.cli import main


def _project(root: Path, mkdocs_yml: str, page: str) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "mkdocs.yml").write_text(mkdocs_yml, encoding="utf-8")
    (root / "docs" / "index.md").write_text(page, encoding="utf-8")
    return root


def _check(root: Path, monkeypatch) -> int:
    monkeypatch.chdir(root)
    return main(["check", "--offline", "--no-cache", "-q", "mkdocs.yml"])


def test_yaml_load_as_a_slug_function_runs_no_heading(tmp_path, monkeypatch, caplog):
    marker = tmp_path / "RAN"
    root = _project(tmp_path / "p", (
        "site_name: t\nmarkdown_extensions:\n  - toc:\n      slugify: !!python/name:yaml.load\n"
        "      separator: !!python/name:yaml.UnsafeLoader\n"),
        f"# !!python/object/apply:os.system ['touch {marker}']\n\n[here](#top)\n")
    with caplog.at_level(logging.WARNING):
        _check(root, monkeypatch)
    assert not marker.exists()
    assert "yaml.load" in caplog.text and "not imported" in caplog.text


def test_an_extension_spelled_module_colon_function_is_not_called(tmp_path, monkeypatch, caplog):
    marker = tmp_path / "RAN"
    root = _project(tmp_path / "p", (
        "site_name: t\nmarkdown_extensions:\n  - yaml:load:\n      Loader: !!python/name:yaml.UnsafeLoader\n"
        f"      stream: \"!!python/object/apply:os.system ['touch {marker}']\"\n"),
        "# Home\n")
    with caplog.at_level(logging.WARNING):
        _check(root, monkeypatch)
    assert not marker.exists()
    assert "yaml:load" in caplog.text and "not a Markdown extension" in caplog.text


def test_a_class_that_is_no_markdown_extension_is_not_made(tmp_path, monkeypatch, caplog):
    marker = tmp_path / "RAN"
    root = _project(tmp_path / "p", (
        "site_name: t\nmarkdown_extensions:\n  - subprocess:Popen:\n"
        f"      args: [touch, {marker}]\n"), "# Home\n")
    with caplog.at_level(logging.WARNING):
        _check(root, monkeypatch)
    assert not marker.exists()
    assert "subprocess:Popen" in caplog.text


@pytest.mark.parametrize(("option", "name"), [
    ("toc:\n      slugify", "markdown.extensions.toc.slugify"),
    ("toc:\n      slugify", "markdown.extensions.toc.slugify_unicode"),
    ("pymdownx.emoji:\n      emoji_generator", "pymdownx.emoji.to_alt"),
    ("pymdownx.superfences:\n      custom_fences:\n        - name: mermaid\n          class: mermaid\n          format",
     "pymdownx.superfences.fence_code_format"),
])
def test_the_known_safe_names_of_an_option_are_still_imported(tmp_path, monkeypatch, caplog, option, name):
    root = _project(tmp_path / "p", f"site_name: t\nmarkdown_extensions:\n  - {option}: !!python/name:{name}\n",
                    "# Home\n")
    with caplog.at_level(logging.WARNING):
        _check(root, monkeypatch)
    assert name not in caplog.text, caplog.text


def test_a_safe_name_in_another_options_place_is_refused(tmp_path, monkeypatch, caplog):
    """The allowlist is per option: an emoji generator is no slug function."""
    root = _project(tmp_path / "p", "site_name: t\nmarkdown_extensions:\n  - toc:\n      slugify: !!python/name:pymdownx.emoji.to_alt\n",
                    "# Hello World\n\n[x](#hello_world)\n")
    with caplog.at_level(logging.WARNING):
        code = _check(root, monkeypatch)
    assert "pymdownx.emoji.to_alt" in caplog.text
    assert code == 0  # the fragment a heading could make is unverified (the slug function is unknown), not broken
