"""The `markdown-exec` plugin's fences in a source check: shown, never run.

What a fence that runs code would print exists only when the site is built: it is rendered as
a code block inside an element of class BUILD_TIME_CLASS, which makes the page's missing
fragments unverified (unknowns). A `tree` fence runs no code and draws a code block.

An `md` fence runs no code either: its text is Markdown the build renders in place, with every
id its elements get prefixed (`exec-N--`, N counted across the build; `{id}-` or `idprefix`
when the fence sets them), except the ids of its mkdocstrings `:::` blocks, which are the
object's dotted path and below (see autodoc). Where its text is literal (no fence that runs
code, no template, no raw HTML id, no code block where code lines get ids), those prefixes bound what it can make: the
element says them (`data-ids-below`), and the ids its blocks are sure to make (`data-ids`); a
fragment outside them is checked as on any page.

Where the runner trusts the project's code (`--trust-project-code`, the same trust as `mkdocs
build`) and markdown-exec is installed, its own fences run instead, as the build runs them: what
the code prints is rendered, and its ids are known. Only the number in the default prefix of
a fence's ids (`exec-N--`, counted across the pages of the build in the build's order) is not:
such a fence still says that its ids start with `exec-`.
"""

from __future__ import annotations

import functools
import html
import importlib
import logging
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .mkdocstrings import block_ids

if TYPE_CHECKING:
    from markdown import Markdown

log = logging.getLogger(__name__)

#: The languages the `markdown-exec` plugin runs by default (its `languages` option).
EXEC_LANGUAGES = ("bash", "console", "md", "markdown", "py", "python", "pycon", "pyodide", "sh", "tree")
EXEC_PLUGINS = frozenset({"markdown-exec", "markdown_exec"})
#: Class of the element that stands for content only the build makes (markdown-exec output).
BUILD_TIME_CLASS = "linkfix-build-time"


def _exec_validator(language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md: Markdown) -> bool:
    """markdown-exec's rule for which fences it runs: `exec="on"` (tree and pyodide always)."""
    value = str(inputs.pop("exec", "no")).lower()
    for name in ("id", "idprefix"):  # where markdown-exec takes the prefix of its ids from
        if name in inputs:
            options[name] = str(inputs.pop(name))
    return language in ("tree", "pyodide") or value in ("1", "on", "true", "yes")


def _exec_as_code(source: str, language: str, class_name: str, options: dict[str, Any], md: Markdown, **kwargs: Any) -> str:
    return (f'<div class="{BUILD_TIME_CLASS}" data-made-by="markdown-exec"><pre><code class="language-{html.escape(language)}">'
            f"{html.escape(source)}</code></pre></div>")


# What makes an `md` fence's ids unbounded: a fence that runs code (it may print any HTML), an
# include (`--8<--`, `{!file!}`), a template, a raw HTML id (raw HTML is not prefixed).
_NOT_LITERAL = re.compile(r"""exec\s*=|^[ \t>]*(?:`{3,}|~{3,})[ \t]*\{?[ \t]*\.?(?:tree|pyodide)\b|--8<--|\{!|\{\{|\{%"""
                          r"""|\b(?:id|name)\s*=""", re.MULTILINE)
_MD_LANGUAGES = ("md", "markdown")


# A fence or a `:::` block in an `md` fence's text: code blocks, whose line ids (pymdownx.highlight's
# `line_spans`, `anchor_linenums`) are raw HTML, not prefixed.
_CODE = re.compile(r"^[ \t>]*(?:`{3,}|~{3,}|:::)", re.MULTILINE)


def _md_as_build_time(source: str, language: str, class_name: str, options: dict[str, Any], md: Markdown, *,
                     autodoc: str = "", code_line_ids: bool = False, **kwargs: Any) -> str:
    """An `md` fence: build-time content, with the bounds of its ids where they are known."""
    literal = not _NOT_LITERAL.search(source) and not (code_line_ids and _CODE.search(source))
    bounds = _id_bounds(source, options, autodoc) if literal else None
    said = ""
    if bounds is not None:
        below, certain = bounds
        said = f' data-ids-below="{html.escape(" ".join(below))}" data-ids="{html.escape(" ".join(sorted(certain)))}"'
    return (f'<div class="{BUILD_TIME_CLASS}" data-made-by="markdown-exec"{said}><pre><code class="language-{html.escape(language)}">'
            f"{html.escape(source)}</code></pre></div>")


def _id_bounds(source: str, options: dict[str, Any], autodoc: str) -> tuple[tuple[str, ...], frozenset[str]] | None:
    """(prefixes every id the fence makes starts with, ids it is sure to make), or None when unbounded."""
    prefix = options.get("idprefix")
    if prefix is None:
        prefix = f"{options['id']}-" if options.get("id") else "exec-"
    if not prefix or any(char.isspace() or char in "\"'<>&" for char in prefix):
        return None  # unprefixed: the text's headings make ids of their own
    blocks = block_ids(autodoc, source)
    if blocks is None:
        return None
    roots, certain = blocks
    return (prefix, *roots), certain


def _tree_as_code(source: str, language: str, class_name: str, options: dict[str, Any], md: Markdown, **kwargs: Any) -> str:
    """markdown-exec's `tree` fence runs no code: it draws the listed paths as a code block,
    which makes no link, and no id unless code lines get ids (`line_ids`)."""
    return f'<pre><code class="language-tree">{html.escape(source)}</code></pre>'


def line_ids(highlight: object) -> bool:
    """pymdownx.highlight gives code lines ids (`line_spans`, `anchor_linenums`); a code block
    made at build time then makes ids a source check cannot number."""
    if highlight is None:  # not configured, or with no options: its defaults make no line ids
        return False
    return not isinstance(highlight, dict) or bool(highlight.get("line_spans")) or bool(highlight.get("anchor_linenums"))


def add_exec_fences(configs: dict[str, Any], autodoc: str, *, run_in: str = "") -> bool:
    """pymdownx.superfences' custom fences for markdown-exec's languages, in `configs`
    (`autodoc`: the settings `:::` blocks render with, see autodoc). With `run_in` (the config's
    directory, given only where the runner trusts the project's code) and markdown-exec
    installed, its own fences, which run the code (True; `remember_extensions` must then be
    given the extensions the page renders with)."""
    fences = configs.setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
    if run_in:
        try:
            markdown_exec = importlib.import_module("markdown_exec")
        except ImportError:
            log.info("markdown-exec is not installed here: its fences are not run, what they print is unverified")
        except Exception as exc:  # installed but broken here (1.12 reads mkdocs-material's icons at import)
            log.warning("markdown-exec could not be imported here (%s): its fences are not run, what they print is unverified", exc)
        else:
            os.environ["MKDOCS_CONFIG_DIR"] = run_in  # as its MkDocs plugin sets it for the build
            code_line_ids = line_ids(configs.get("pymdownx.highlight"))
            fences.extend({"name": language, "class": language, "validator": markdown_exec.validator,
                           "format": functools.partial(_run, markdown_exec.formatter, autodoc=autodoc, code_line_ids=code_line_ids)}
                          for language in markdown_exec.formatters)
            return True
    tree_is_code = not line_ids(configs.get("pymdownx.highlight"))
    fences.extend({"name": language, "class": language, "validator": _exec_validator,
                   "format": _format(language, not tree_is_code, autodoc)}
                  for language in EXEC_LANGUAGES)
    return False


def remember_extensions(extensions: list[str], configs: dict[str, Any]) -> None:
    """What markdown-exec renders the Markdown its fences print with: the page's extensions, as
    its MkDocs plugin saves them."""
    importlib.import_module("markdown_exec").markdown_config.save(extensions, configs)


def _run(formatter: Callable[..., str], source: str, language: str, class_name: str, options: dict[str, Any], md: Markdown, *,
         autodoc: str, code_line_ids: bool, **kwargs: Any) -> str:
    """markdown-exec's own formatter. An `md` fence with `:::` blocks is bounded as without trust:
    its blocks are a plugin's, which a source check does not run. Where the code fails here (markdown-exec says so and shows the
    error instead) it may not fail in the build: the output is build-time content, any id. Where
    the fence's ids take the build's counter (no `id`, no `idprefix`), it says they start with
    `exec-` (see unknowns)."""
    if language in _MD_LANGUAGES and ":::" in source:
        prefix = options.get("id_prefix")
        bounds = {"idprefix": prefix} if prefix is not None else {"id": options["id"]} if options.get("id") else {}
        return _md_as_build_time(source, language, class_name, bounds, md, autodoc=autodoc, code_line_ids=code_line_ids)
    said = _Said()
    loggers = [logging.getLogger(name) for name in _EXEC_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(said)
        logger.setLevel(logging.WARNING)  # said whatever level the runner's logging shows
    try:
        made = formatter(source, language, class_name, options, md, **kwargs)
    finally:
        for logger, level in zip(loggers, levels):
            logger.removeHandler(said)
            logger.setLevel(level)
    if said.failed:
        return f'<div class="{BUILD_TIME_CLASS}" data-made-by="markdown-exec">{made}</div>'
    if options.get("id_prefix") is not None or options.get("id"):
        return str(made)
    return f'<div class="{BUILD_TIME_CLASS}" data-made-by="markdown-exec" data-ids-below="exec-" data-ids="">{made}</div>'


# Where markdown-exec logs: its own loggers, under MkDocs' once its MkDocs plugin is imported (patch_loggers).
_EXEC_LOGGERS = ("markdown_exec", "mkdocs.plugins.markdown_exec")


class _Said(logging.Handler):
    """Whether markdown-exec warned while a fence ran (its code failed)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.failed = False

    def emit(self, record: logging.LogRecord) -> None:
        self.failed = True


def _format(language: str, code_line_ids: bool, autodoc: str) -> Callable[..., str]:
    if language == "tree" and not code_line_ids:
        return _tree_as_code
    if language in _MD_LANGUAGES:
        return functools.partial(_md_as_build_time, autodoc=autodoc, code_line_ids=code_line_ids)
    return _exec_as_code
