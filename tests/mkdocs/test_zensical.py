"""Zensical projects checked as Zensical builds them (issue 39).

Each project here is a small reproduction written for this test; what it expects is what
`zensical build` (0.0.73) made of the same sources: its built pages' hrefs and ids, read by hand.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from trees import write_tree as write

import linkfix
from linkfix.cli import main
from linkfix.errors import InputError
from linkfix.mkdocs.config.load import find_config, read_config
from linkfix.mkdocs.config.toml_file import read_toml_config
from linkfix.mkdocs.config.values import PythonCall, PythonName

PACKAGE_ROOT = str(Path(linkfix.__file__).resolve().parent.parent)




def check(root: Path, monkeypatch, *args: str) -> tuple[int, dict]:
    monkeypatch.chdir(root)
    out = root.parent / f"{root.name}-report.json"
    code = main(["check", "--offline", "--no-cache", *args, "--format", "json", "-o", str(out)])
    return code, json.loads(out.read_text()) if out.exists() else {}


def verdicts(report: dict) -> dict[str, str]:
    return {link["url"]: link["status"] for link in report["links"]}


HOME = """# Home

## Custom heading {#custom-id}

- [setup](guide/setup.md) and [its section](guide/setup.md#install-it)
- [custom id](#custom-id)
- [broken page](guide/missing.md)
- [broken anchor](guide/setup.md#no-such-section)
- [outside docs_dir](../outside/notes.md)
- [redirect source](old.md)
- [excluded](drafts/wip.md)

=== "One"

    A [link in a tab](guide/setup.md#in-a-tab).

!!! note
    An admonition with a [link](guide/nowhere.md).
"""
SETUP = "# Setup\n\n## Install it\n"
TOML_DEFAULTS = """[project]
site_name = "TOML defaults"
site_url = "https://example.com/docs/"
exclude_docs = \"\"\"
drafts/
\"\"\"

[project.plugins.redirects.redirect_maps]
"old.md" = "guide/setup.md"
"""


def toml_project(root: Path) -> Path:
    return write(root, {"zensical.toml": TOML_DEFAULTS, "docs/index.md": HOME, "docs/guide/setup.md": SETUP,
                        "docs/drafts/wip.md": "# WIP\n", "outside/notes.md": "# Notes\n"})


def test_a_zensical_toml_project_is_checked_by_zensicals_rules(tmp_path, monkeypatch):
    code, report = check(toml_project(tmp_path / "p"), monkeypatch, "zensical.toml")
    assert code == 1
    assert verdicts(report) == {
        "guide/setup.md": "ok", "guide/setup.md#install-it": "ok",
        "#custom-id": "ok",  # Zensical's default attr_list makes it an id (MkDocs' defaults would not)
        "guide/missing.md": "broken", "guide/setup.md#no-such-section": "broken",
        "../outside/notes.md": "broken",  # Zensical rewrites it to ../outside/notes/, and builds nothing there
        "old.md": "redirected",  # the redirect page Zensical writes (though its own validation warns)
        "drafts/wip.md": "broken",  # exclude_docs
        "guide/setup.md#in-a-tab": "broken",  # a link inside a content tab is read (tabbed is a default)
        "guide/nowhere.md": "broken",  # and one inside an admonition's body
    }
    assert report["rules"] == "Zensical's rules (zensical.toml)"


def test_the_summary_says_whose_rules_were_applied(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(toml_project(tmp_path / "p"))
    assert main(["check", "--offline", "--no-cache", "zensical.toml"]) == 1
    assert "by Zensical's rules (zensical.toml)" in capsys.readouterr().out


@pytest.mark.parametrize("given", ["docs/", "docs/index.md"])  # the CI recipe, and what pre-commit passes
def test_the_docs_dir_or_its_files_find_the_zensical_toml(tmp_path, monkeypatch, given):
    code, report = check(toml_project(tmp_path / "p"), monkeypatch, given)
    assert code == 1 and report["rules"] == "Zensical's rules (zensical.toml)"
    assert verdicts(report)["#custom-id"] == "ok" and verdicts(report)["old.md"] == "redirected"


def test_a_fresh_zensical_new_project_with_one_broken_link_fails(tmp_path, monkeypatch):
    """The zensical.toml `zensical new` writes: explicit nav, the default extensions spelled out
    in TOML's dotted keys; one broken link added to its home page."""
    root = write(tmp_path / "new", {
        "zensical.toml": """[project]
site_url = "https://www.example.com/"
site_name = "Documentation"
nav = [
  { "Get started" = "index.md" },
  { "Markdown in 5min" = "markdown.md" },
]
[project.theme]
language = "en"
[project.markdown_extensions]
abbr = {}
admonition = {}
attr_list = {}
toc.permalink = true
pymdownx.emoji.emoji_generator = "zensical.extensions.emoji.to_svg"
pymdownx.emoji.emoji_index = "zensical.extensions.emoji.twemoji"
pymdownx.superfences.custom_fences = [
  { name = "mermaid", class = "mermaid", format = "pymdownx.superfences.fence_code_format" },
]
pymdownx.tabbed.alternate_style = true
pymdownx.tabbed.combine_header_slug = true
""",
        "docs/index.md": "# Get started\n\nFor full documentation visit [the guide](markdown.md).\n\n[gone](missing.md)\n",
        "docs/markdown.md": "# Markdown in 5min\n\n## Headers\n\nSee [home](index.md#get-started).\n",
    })
    code, report = check(root, monkeypatch, "zensical.toml")
    assert code == 1
    assert [url for url, status in verdicts(report).items() if status == "broken"] == ["missing.md"]


PAGE_WITH_CUSTOM_ID = "# Home\n\n## Section {#sec}\n\n[here](#sec) and <a href=\"page.md\">raw</a>\n"


def test_a_mkdocs_yml_that_zensical_builds_gets_zensicals_defaults_and_rewriting(tmp_path, monkeypatch, caplog):
    root = write(tmp_path / "p", {
        "mkdocs.yml": "site_name: t\nplugins:\n  - search\n  - linkfix\nhooks:\n  - hooks.py\n",
        "hooks.py": "raise SystemExit('a hook Zensical never runs')\n",
        "requirements.txt": "zensical==0.0.73\n",
        "docs/index.md": PAGE_WITH_CUSTOM_ID, "docs/page.md": "# Page\n"})
    with caplog.at_level(logging.WARNING):
        code, report = check(root, monkeypatch, "mkdocs.yml")
    assert code == 0, report
    assert verdicts(report) == {"#sec": "ok", "page.md": "ok"}  # attr_list by default; raw HTML rewritten as Markdown
    assert report["rules"] == "Zensical's rules (mkdocs.yml, with zensical in requirements.txt)"
    assert "does not run the linkfix plugin" in caplog.text and "runs no hooks" in caplog.text


def test_the_same_mkdocs_yml_without_zensical_is_checked_by_mkdocs_rules(tmp_path, monkeypatch):
    root = write(tmp_path / "p", {"mkdocs.yml": "site_name: t\n", "docs/index.md": PAGE_WITH_CUSTOM_ID, "docs/page.md": "# Page\n"})
    code, report = check(root, monkeypatch, "mkdocs.yml")
    assert code == 1
    assert verdicts(report) == {"#sec": "broken", "page.md": "broken"}  # MkDocs: id section-sec; raw HTML as written
    assert report["rules"] == "MkDocs' rules (mkdocs.yml)"


def test_evidence_both_ways_is_said_and_mkdocs_rules_apply(tmp_path, monkeypatch, caplog):
    root = write(tmp_path / "p", {"mkdocs.yml": "site_name: t\n", "requirements.txt": "zensical\n",
                                  "Makefile": "docs:\n\tmkdocs build --strict\n",
                                  "docs/index.md": PAGE_WITH_CUSTOM_ID, "docs/page.md": "# Page\n"})
    with caplog.at_level(logging.WARNING):
        _, report = check(root, monkeypatch, "mkdocs.yml")
    assert report["rules"] == "MkDocs' rules (mkdocs.yml)"
    assert "points to Zensical" in caplog.text and "--generator zensical" in caplog.text


def test_the_generator_setting_decides(tmp_path, monkeypatch):
    root = write(tmp_path / "p", {"mkdocs.yml": "site_name: t\n", "docs/index.md": PAGE_WITH_CUSTOM_ID, "docs/page.md": "# Page\n"})
    code, report = check(root, monkeypatch, "mkdocs.yml", "--generator", "zensical")
    assert code == 0 and report["rules"] == "Zensical's rules (generator: zensical)"


def test_zensical_builds_from_zensical_toml_when_a_mkdocs_yml_stands_beside_it(tmp_path, monkeypatch):
    root = write(tmp_path / "p", {
        "zensical.toml": '[project]\nsite_name = "Both"\n', "mkdocs.yml": "site_name: Both\ndocs_dir: yamldocs\n",
        "docs/index.md": "# Home\n\n[gone](gone.md)\n", "yamldocs/index.md": "# Other\n\n[elsewhere](elsewhere.md)\n"})
    assert find_config(root) == root / "zensical.toml"
    code, report = check(root, monkeypatch, "docs/")
    assert code == 1 and list(verdicts(report)) == ["gone.md"]


def test_a_zensical_yml_with_a_slug_factory_and_its_own_docs_dir(tmp_path, monkeypatch):
    root = write(tmp_path / "p", {
        "zensical.yml": ("site_name: t\ndocs_dir: docs/src\nmarkdown_extensions:\n  - toc:\n"
                         "      slugify: !!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}\n"),
        "docs/src/index.md": "# Héllo Wörld\n\n[a](#héllo-wörld) [b](#hello-world)\n"})
    code, report = check(root, monkeypatch, "zensical.yml")
    assert code == 1 and verdicts(report) == {"#héllo-wörld": "ok", "#hello-world": "broken"}


def test_a_config_zensical_cannot_read_is_an_input_error_naming_it(tmp_path, monkeypatch, capsys):
    root = write(tmp_path / "p", {"zensical.toml": "[project\nsite_name = 1\n", "docs/index.md": "# Home\n"})
    monkeypatch.chdir(root)
    assert main(["check", "--offline", "--no-cache", "zensical.toml"]) == 2
    assert "zensical.toml: not valid TOML" in capsys.readouterr().err


def test_toml_spelling_becomes_the_yaml_shape(tmp_path):
    path = write(tmp_path, {"zensical.toml": """[project]
site_name = "t"
[project.markdown_extensions.toc]
slugify = { object = "pymdownx.slugs.slugify", kwds = { case = "lower" } }
[project.markdown_extensions.pymdownx.tabbed]
alternate_style = true
[project.markdown_extensions.pymdownx.blocks.admonition]
types = ["note"]
[project.markdown_extensions.pymdownx.emoji]
emoji_index = "zensical.extensions.emoji.twemoji"
[project.markdown_extensions.pymdownx.superfences]
custom_fences = [{ name = "mermaid", class = "mermaid", format = "pymdownx.superfences.fence_code_format" }]
[project.plugins.redirects.redirect_maps]
"a.md" = "b.md"
"""}) / "zensical.toml"
    data = read_toml_config(path)
    extensions = {name: options for entry in data["markdown_extensions"] for name, options in entry.items()}
    assert list(extensions) == ["toc", "pymdownx.tabbed", "pymdownx.blocks.admonition", "pymdownx.emoji", "pymdownx.superfences"]
    assert extensions["toc"]["slugify"] == PythonCall("pymdownx.slugs.slugify", (), {"case": "lower"})
    assert extensions["pymdownx.emoji"]["emoji_index"] == PythonName("zensical.extensions.emoji.twemoji")
    assert isinstance(extensions["pymdownx.superfences"]["custom_fences"][0]["format"], PythonName)
    assert data["plugins"] == [{"redirects": {"redirect_maps": {"a.md": "b.md"}}}]


def test_zensicals_extensions_when_the_config_names_them_and_when_it_does_not(tmp_path):
    explicit = write(tmp_path / "e", {"zensical.toml": '[project]\nsite_name = "t"\n[project.markdown_extensions]\nfootnotes = {}\n',
                                      "docs/index.md": "# x\n"}) / "zensical.toml"
    assert read_config(explicit).markdown_extensions == ("toc", "tables", "footnotes", "pymdownx.superfences")
    defaults = read_config(write(tmp_path / "d", {"zensical.toml": '[project]\nsite_name = "t"\n', "docs/index.md": "# x\n"}) / "zensical.toml")
    assert defaults.markdown_extensions[:4] == ("toc", "tables", "abbr", "admonition")
    assert {"attr_list", "md_in_html", "pymdownx.tabbed", "pymdownx.superfences"} <= set(defaults.markdown_extensions)
    assert defaults.mdx_configs["toc"] == {"permalink": True}


def test_a_toml_nested_thousands_deep_is_an_input_error(tmp_path):
    path = write(tmp_path, {"zensical.toml": "[project]\nsite_name = 'x'\nextra = " + "[" * 5000 + "]" * 5000 + "\n"}) / "zensical.toml"
    with pytest.raises(InputError, match=r"zensical\.toml"):
        read_toml_config(path)


#: Headings, and the ids `zensical build` 0.0.73 gave them, in order, with its default extensions.
SLUG_PIN = [
    ("# Title", "title"), ("## Hello, World!", "hello-world"), ("## Hello, World!", "hello-world_1"),
    ("## `code` heading", "code-heading"), ("## Ünïcödé Ťëxt", "unicode-text"), ("## 日本語 見出し", "_1"),
    ("## A -- B --- C", "a-b-c"), ('## under_score & amp; "quotes"', "under_score-amp-quotes"),
    ("## [link text](other.md) heading", "link-text-heading"), ("## *emph* and **strong**", "emph-and-strong"),
    ("## 123 numbers", "123-numbers"), ("## Hello, World!", "hello-world_2"), ("## title", "title_1"),
    ("### Trailing ###", "trailing"), ("## with <span>html</span>", "with-html"),
]


def test_zensical_slugs_are_python_markdowns_toc_slugs(tmp_path, monkeypatch):
    """Zensical sets no slugify of its own: the ids are Python-Markdown's toc, as MkDocs' are."""
    page = "\n\n".join(heading for heading, _ in SLUG_PIN) + "\n\n" + " ".join(f"[{i}](#{slug})" for i, (_, slug) in enumerate(SLUG_PIN)) + "\n"
    root = write(tmp_path / "p", {"zensical.toml": '[project]\nsite_name = "t"\n', "docs/index.md": page, "docs/other.md": "# Other\n"})
    code, report = check(root, monkeypatch, "zensical.toml")
    assert code == 0, [link for link in report["links"] if link["status"] != "ok"]


def test_a_built_zensical_site_takes_its_site_url_from_zensical_toml(tmp_path, monkeypatch):
    """404.html's links are root-relative with site_url's path (`/docs/...`): read from zensical.toml,
    they are the site's own (without it, every one of them was a false alarm)."""
    root = write(tmp_path / "p", {
        "zensical.toml": '[project]\nsite_name = "t"\nsite_url = "https://example.com/docs/"\n', "docs/index.md": "# x\n",
        "site/index.html": '<a href="./">home</a>', "site/assets/x.css": "",
        "site/404.html": '<a href="/docs/">home</a><link rel="stylesheet" href="/docs/assets/x.css"><a href="/docs/gone/">g</a>'})
    code, report = check(root, monkeypatch, "site/")
    assert code == 1 and [url for url, status in verdicts(report).items() if status != "ok"] == ["/docs/gone/"]


def test_a_repository_package_shadowing_an_installed_extension_is_left_out_not_a_crash(tmp_path):
    """A `pymdownx/` directory in the checkout, on PYTHONPATH as its build has it: the extension and
    the harmless replacement of its emoji option are refused (not installed), with a warning; the
    run goes on (it ended in an unexpected error, exit 3)."""
    root = write(tmp_path / "p", {
        "mkdocs.yml": ("site_name: t\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
                       "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
                       "      emoji_generator: !!python/name:material.extensions.emoji.to_svg\n"),
        "pymdownx/__init__.py": "", "docs/index.md": "# Home\n\n[gone](gone.md)\n"})
    # A process of its own: here the real pymdownx is imported already, and the shadow would not be met.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), PACKAGE_ROOT])}
    done = subprocess.run([sys.executable, "-m", "linkfix", "check", "--offline", "--no-cache", "mkdocs.yml"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "gone.md" in done.stdout and "pymdownx is not from an installed distribution" in done.stderr
