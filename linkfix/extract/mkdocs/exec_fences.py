"""The `markdown-exec` plugin's fences in a source check: shown, never run.

What a fence that runs code would print exists only when the site is built: it is rendered as
a code block inside an element of class BUILD_TIME_CLASS, which makes the page's missing
fragments unverified (unknowns). A `tree` fence runs no code and draws a code block."""

from __future__ import annotations

import html
from typing import Any

#: The languages the `markdown-exec` plugin runs by default (its `languages` option).
EXEC_LANGUAGES = ("bash", "console", "md", "markdown", "py", "python", "pycon", "pyodide", "sh", "tree")
EXEC_PLUGINS = frozenset({"markdown-exec", "markdown_exec"})
#: Class of the element that stands for content only the build makes (markdown-exec output).
BUILD_TIME_CLASS = "linkfix-build-time"


def exec_validator(language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md: Any) -> bool:
    """markdown-exec's rule for which fences it runs: `exec="on"` (tree and pyodide always)."""
    value = str(inputs.pop("exec", "no")).lower()
    return language in ("tree", "pyodide") or value in ("1", "on", "true", "yes")


def exec_as_code(source: str, language: str, class_name: str, options: dict[str, Any], md: Any, **kwargs: Any) -> str:
    return (f'<div class="{BUILD_TIME_CLASS}" data-made-by="markdown-exec"><pre><code class="language-{html.escape(language)}">'
            f"{html.escape(source)}</code></pre></div>")


def tree_as_code(source: str, language: str, class_name: str, options: dict[str, Any], md: Any, **kwargs: Any) -> str:
    """markdown-exec's `tree` fence runs no code: it draws the listed paths as a code block,
    which makes no link, and no id unless code lines get ids (`line_ids`)."""
    return f'<pre><code class="language-tree">{html.escape(source)}</code></pre>'


def line_ids(highlight: Any) -> bool:
    """pymdownx.highlight gives code lines ids (`line_spans`, `anchor_linenums`); a code block
    made at build time then makes ids a source check cannot number."""
    if highlight is None:  # not configured, or with no options: its defaults make no line ids
        return False
    return not isinstance(highlight, dict) or bool(highlight.get("line_spans")) or bool(highlight.get("anchor_linenums"))


def add_exec_fences(configs: dict[str, Any]) -> None:
    """pymdownx.superfences' custom fences for markdown-exec's languages, in `configs`."""
    fences = configs.setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
    tree_is_code = not line_ids(configs.get("pymdownx.highlight"))
    fences.extend({"name": language, "class": language, "validator": exec_validator,
                   "format": tree_as_code if language == "tree" and tree_is_code else exec_as_code}
                  for language in EXEC_LANGUAGES)
