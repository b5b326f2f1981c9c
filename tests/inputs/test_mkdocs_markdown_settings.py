"""A mkdocs.yml's Markdown settings, read as MkDocs 1.6 assembles them."""

from __future__ import annotations

import textwrap

from linkfix.mkdocs.config.load import read_config
from linkfix.mkdocs.config.values import PythonCall, PythonName


def write(tmp_path, text: str, name: str = "mkdocs.yml"):
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / name).write_text(textwrap.dedent(text))
    return tmp_path / name


CONFIG = """\
    site_name: x
    markdown_extensions:
      - admonition
      - toc:
          permalink: true
          slugify: !!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}
      - pymdownx.superfences:
          custom_fences:
            - name: mermaid
              class: mermaid
              format: !!python/name:pymdownx.superfences.fence_code_format
      - admonition
      - attr_list
      - toc:
          separator: "_"
    plugins:
      - search
      - macros:
          module_name: main
    """


def test_extensions_and_configs_are_assembled_as_mkdocs_does(tmp_path):
    from mkdocs.config import load_config

    config = write(tmp_path, CONFIG)
    project = read_config(config)
    assert project.markdown_extensions == ("toc", "tables", "fenced_code", "admonition", "pymdownx.superfences", "attr_list")
    assert project.mdx_configs["toc"] == {"separator": "_"}  # the last config given for a name wins
    fence = project.mdx_configs["pymdownx.superfences"]["custom_fences"][0]
    assert fence["format"] == PythonName("pymdownx.superfences.fence_code_format")
    assert project.plugins == ("search", "macros")
    assert project.renders_templates
    # MkDocs' own reading (less the macros plugin, which is not installed here)
    write(tmp_path, CONFIG.replace("  - macros:\n          module_name: main\n", ""), "plain.yml")
    theirs = load_config(str(tmp_path / "plain.yml"))
    assert tuple(theirs.markdown_extensions) == project.markdown_extensions
    assert theirs.mdx_configs["toc"] == project.mdx_configs["toc"]


def test_python_values_are_kept_as_names_not_imported(tmp_path):
    project = read_config(write(tmp_path, """\
        site_name: x
        markdown_extensions:
          - toc:
              slugify: !!python/object/apply:no_such_module.slugify {kwds: {case: lower}}
          - pymdownx.emoji:
              emoji_index: !!python/name:no_such_module.index
        """))
    assert project.mdx_configs["toc"]["slugify"] == PythonCall("no_such_module.slugify", (), {"case": "lower"})
    assert project.mdx_configs["pymdownx.emoji"]["emoji_index"] == PythonName("no_such_module.index")


def test_relative_paths_and_inherited_lists(tmp_path):
    write(tmp_path, """\
        site_name: x
        markdown_extensions:
          - footnotes
        """, "base.yml")
    project = read_config(write(tmp_path, """\
        INHERIT: base.yml
        markdown_extensions:
          - pymdownx.snippets:
              base_path: !relative $config_dir
        """))
    assert project.markdown_extensions == ("toc", "tables", "fenced_code", "pymdownx.snippets")  # a list replaces the inherited one
    assert project.mdx_configs["pymdownx.snippets"]["base_path"] == str(tmp_path.resolve())


def test_no_markdown_settings_means_mkdocs_builtins(tmp_path):
    project = read_config(write(tmp_path, "site_name: x\n"))
    assert project.markdown_extensions == ("toc", "tables", "fenced_code")
    assert project.mdx_configs == {} and project.plugins == () and not project.renders_templates
