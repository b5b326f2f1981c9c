"""Where a Markdown extension that is not rendered here could change a page: its reach.

An extension left out (not installed, failing, or refused) may change how a page reads: its
headings, and so its ids. Where the extension acts only on a syntax of its own, a page whose
source has none of that syntax renders the same without it, and its absence changes nothing
there: `REACH` holds, for the common extensions, a pattern of the source lines that syntax needs.
An extension not in the table may act anywhere (every page's spelled ids it lacks are
unverified), as may a hook that changes the Markdown settings (`on_config`); a custom fence is
reached by fences of its own name only; a page that includes other files is reached by all.

| extension | acts only where the source has |
|---|---|
| mkdocs-click (`mkdocs_click`) | a `::: mkdocs-click` block (and makes only ids under its `:prog_name:`, with attr_list) |
| admonition | a `!!!` line |
| pymdownx.details | a `???` line |
| pymdownx.tabbed | a `===` line |
| pymdownx.blocks.* | a `///` line |
| pymdownx.snippets, markdown-include | `--8<--`, `{!...!}` |
| pymdownx.superfences | a ```` ``` ```` or `~~~` fence |
| footnotes, abbr, def_list | `[^`, `*[`, a `: ` line |
| md_in_html, attr_list | a `markdown` attribute, a `{` |
"""

from __future__ import annotations

import re

#: The extension -> a regular expression (multi-line) of the source its syntax needs.
REACH: dict[str, str] = {
    "mkdocs-click": r"^[ \t>]*::: mkdocs-click\b",
    "mkdocs_click": r"^[ \t>]*::: mkdocs-click\b",
    "admonition": r"^[ \t>]*!!!",
    "pymdownx.details": r"^[ \t>]*\?\?\?",
    "pymdownx.tabbed": r"^[ \t>]*===",
    "pymdownx.blocks": r"^[ \t>]*///",
    "pymdownx.snippets": r"--8<--",
    "markdown_include.include": r"\{!",
    "pymdownx.superfences": r"^[ \t>]*(?:`{3,}|~{3,})",
    "footnotes": r"\[\^",
    "abbr": r"^[ \t>]*\*\[",
    "def_list": r"^[ \t>]*:[ \t]",
    "md_in_html": r"<[A-Za-z][^>]*\bmarkdown\b",
    "attr_list": r"\{",
}


def extension_reach(name: str) -> str:
    """The pattern of the source an extension named `name` acts on ('' when it may act anywhere)."""
    if name in REACH:
        return REACH[name]
    family = ".".join(name.split(".")[:2])
    return REACH.get(family, "") if family.startswith("pymdownx.blocks") else ""


def fence_reach(fence: str) -> str:
    """A custom fence of superfences acts on fences of its own name only ('' when it has none)."""
    if not fence:
        return ""
    return rf"^[ \t>]*(?:`{{3,}}|~{{3,}})[ \t]*\{{?[ \t]*\.?{re.escape(fence)}\b"


#: A page that brings in other text (snippets, markdown-include, include-markdown, macros'
#: includes) may hold any syntax: every left-out piece reaches it.
_INCLUDES = re.compile(r"--8<--|\{!|\{%-?\s*include")


def reaches(pattern: str, markdown: str, *, appends: bool = False) -> bool:
    """Whether a left-out piece with the reach `pattern` may change the page `markdown`
    (`appends`: every page gets text put after it, snippets' `auto_append`)."""
    return not pattern or appends or _INCLUDES.search(markdown) is not None \
        or re.search(pattern, markdown, re.MULTILINE) is not None


_DIRECTIVE_LINE = re.compile(r"^[ \t>]*:::[ \t]*(\S+)[^\n]*((?:\n(?:[ \t]+[^\n]*)?)*)", re.MULTILINE)  # its indented lines
_PROG_NAME = re.compile(r"^[ \t>]*:prog_name:[ \t]*([a-z0-9][a-z0-9_-]*)[ \t]*$", re.MULTILINE)


_ATTR_LIST = frozenset({"attr_list", "markdown.extensions.attr_list", "extra", "markdown.extensions.extra", "pymdownx.extra"})


def click_id_prefixes(markdown: str, extensions: tuple[str, ...]) -> frozenset[str] | None:
    """What every id the page's `:::` blocks may make starts with, when each is a mkdocs-click
    block naming its `:prog_name:` and the site has attr_list (then its headings carry the
    command paths as ids: `marimo check` is `#marimo-check`; without it, the subcommands' own
    names); None when a block may make any id (another kind, no prog_name, no attr_list)."""
    if not _ATTR_LIST & set(extensions):
        return None
    prefixes = set()
    for block in _DIRECTIVE_LINE.finditer(markdown):
        name = _PROG_NAME.search(block.group(2) or "")
        if block.group(1) != "mkdocs-click" or name is None:
            return None
        prefixes.add(name.group(1))
    return frozenset(prefixes) or None
