"""The ids a mkdocstrings `::: identifier` block is sure to make, known without running it.

mkdocstrings' Python handler gives the object a block names the id of its dotted path (the
templates' `html_id = obj.path`, the identifier as written): a visible heading when
`show_root_heading` is on, else an empty `<a id>` when `show_root_toc_entry` is on (the
default). A block it cannot collect fails the whole build, so on a site that was built the id
is there. That id, and only it, is what this module adds to a page's ids, with the ids of the members the block is sure to
render (autodoc_members, read from the sources with `ast`); everything else the block makes
(other members, docstring headings) stays a build-time id (unverified when missing).

Inside a markdown-exec `md` fence (rendered at build time, see exec_fences) a block's ids are
unprefixed, and every one of them is its object's dotted path or starts with it (members,
parameters, docstring headings): `block_ids` gives those paths, which bound the fence's ids.

No claim is made, and the block stays wholly unknown, where the build could differ: another
handler (`handler:` or `default_handler`), the project's own templates (`custom_templates`),
options that are not plain booleans, a block whose text holds markup, or an identifier that is
not a dotted Python name (`::: mkdocs-click` is another extension's).
"""

from __future__ import annotations

import html
import json
import re
import textwrap
from typing import Any

from ...files.yamlfile import YamlRefused, load_safely
from .mkdocstrings_members import MEMBER_OPTIONS, member_ids, search_paths, sources_digest

PLUGIN_NAMES = ("mkdocstrings",)
_ROOT_OPTIONS = {"show_root_heading": False, "show_root_toc_entry": True}  # mkdocstrings-python's defaults
# A `:::` block as Python-Markdown leaves it when no plugin runs: a paragraph of its own text.
_BLOCK = re.compile(r"<p>:::[ \t]*([^<]*?)</p>", re.DOTALL)
_NEXT_BLOCK = re.compile(r"\n:::[ \t]*")  # a `:::` line right after another block's lines, unindented
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_SOURCE_LINE = re.compile(r"^[ \t>]*::: ?([A-Za-z_][\w.]*)[ \t]*$", re.MULTILINE)  # mkdocstrings' own block pattern
# mkdocstrings' heading form (`## ::: pkg.mod`: the `#`s set the heading level), on a line of its own.
_HEADING_SOURCE = re.compile(r"^#{1,6} *::: ?([A-Za-z_][\w.]*) *$", re.MULTILINE)
_ANY_SOURCE_LINE = re.compile(r"^[ \t>*+-]*(?:\d+[.)][ \t]*)?(?:#{1,6}[ \t]*)?:::", re.MULTILINE)


def autodoc_settings(plugin_configs: dict[str, dict[str, Any]], config_dir: str = "") -> str:
    """What a page's `:::` blocks need from the config, as JSON ('' when no claim can be made:
    mkdocstrings is not configured or not enabled, or the project brings its own templates).
    With `config_dir` (the config file's folder) it also holds what members need (see
    autodoc_members): the search paths, the options that select members, and a digest of the
    sources there."""
    config = next((plugin_configs[name] for name in PLUGIN_NAMES if name in plugin_configs), None)
    if not isinstance(config, dict) or config.get("custom_templates") or config.get("enabled", True) is not True:
        return ""
    handlers = config.get("handlers") or {}
    python = (handlers.get("python") if isinstance(handlers, dict) else None) or {}
    options = (python.get("options") if isinstance(python, dict) else None) or {}
    if not isinstance(python, dict) or not isinstance(options, dict):
        return ""
    wanted = {name: options.get(name, default) for name, default in _ROOT_OPTIONS.items()}
    if not all(isinstance(value, bool) for value in wanted.values()):
        return ""
    settings: dict[str, Any] = {"default_handler": config.get("default_handler", "python"), "options": wanted}
    paths = search_paths(python, config_dir) if config_dir else None
    selecting = {name: options[name] for name in MEMBER_OPTIONS if name in options}
    if paths is not None and _plain_json(selecting):
        settings["members"] = {"paths": paths, "options": selecting, "sources": sources_digest(paths)}
    return json.dumps(settings, sort_keys=True)


def _plain_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def root_ids(settings: str, markdown: str, rendered: str) -> frozenset[str]:
    """The ids the `:::` blocks of a page (its Markdown `markdown`, rendered with the blocks left
    as text) are sure to make. A block counts only where the source has it on a line of its own
    (a `<p>::: x</p>` written as raw HTML is no block)."""
    if not settings or ":::" not in rendered:
        return frozenset()
    config = json.loads(settings)
    written = set(_SOURCE_LINE.findall(markdown))
    ids = set()
    for block in _blocks(rendered):
        made = _root_id(block, config)
        if made and made in written:
            ids.add(made)
            ids |= _member_ids(made, block, config)
    for block in _heading_blocks(markdown, rendered):
        made = _root_id(block, config)
        if made:
            ids.add(made)
            ids |= _member_ids(made, block, config)
    return frozenset(ids)


def _heading_blocks(markdown: str, rendered: str) -> list[str]:
    """The blocks written as headings (`# ::: pkg`, its options on the indented lines right
    under it) that Python-Markdown rendered as headings (not text in a fence): each as the
    identifier, then its options' lines."""
    blocks = []
    for match in _HEADING_SOURCE.finditer(markdown):
        name = match.group(1)
        if not re.search(r"<h[1-6][^>]*>:::[ \t]*" + re.escape(name) + r"[ \t]*(?:<a |</h[1-6]>)", rendered):
            continue
        lines: list[str] = []
        after = markdown[match.end():].split("\n")[1:]
        for index, line in enumerate(after):
            if not line.strip():
                following = next((rest for rest in after[index + 1:] if rest.strip()), "")
                if following[:1] in (" ", "\t"):
                    lines = []  # options after a blank line: where the block ends is not plain
                    name = ""
                break
            if line[:1] not in (" ", "\t"):
                break
            lines.append(line)
        if name:
            blocks.append("\n".join([name, *lines]))
    return blocks


def _member_ids(identifier: str, block: str, config: dict[str, Any]) -> frozenset[str]:
    """The ids of the members the block renders for sure (see autodoc_members)."""
    members = config.get("members")
    local = _local_options(block) or {}
    options = local.get("options") or {}
    if not members or not isinstance(options, dict):
        return frozenset()
    return member_ids(identifier, {**members["options"], **options}, members["paths"])


def block_ids(settings: str, markdown: str) -> tuple[tuple[str, ...], frozenset[str]] | None:
    """What the `:::` blocks of `markdown` (the text of a markdown-exec `md` fence, rendered at
    build time) make: (the dotted paths every id they make is or starts with, the ids they are
    sure to make); None when that is not bounded (no claim on the config, a block of another
    handler or not on a line of its own, a name that is not a Python path)."""
    written = _SOURCE_LINE.findall(markdown)
    if len(_ANY_SOURCE_LINE.findall(markdown)) != len(written):
        return None
    if not written:
        return (), frozenset()
    if not settings:
        return None
    from ..extensions.pymarkdown import python_markdown

    rendered = python_markdown(extensions=["fenced_code"]).convert(markdown)
    config = json.loads(settings)
    blocks = _blocks(rendered)
    if sorted(block.partition("\n")[0].strip() for block in blocks) != sorted(written):
        return None  # a block Python-Markdown does not leave as a paragraph of its own (in a list, a fence)
    if any(_handler(block, config) != "python" for block in blocks):
        return None
    return tuple(dict.fromkeys(written)), root_ids(settings, markdown, rendered)


def _blocks(rendered: str) -> list[str]:
    """The text of each `:::` block Python-Markdown left in a paragraph: `::: a` and `::: b` on
    lines one after the other make one paragraph, but two blocks to mkdocstrings (what follows a
    block's line unindented is parsed again, as the next block)."""
    return [block for match in _BLOCK.finditer(rendered) for block in _NEXT_BLOCK.split(html.unescape(match.group(1)))]


def _handler(block: str, config: dict[str, Any]) -> str:
    local = _local_options(block)
    return str(local.get("handler", config["default_handler"])) if local is not None else ""


def _local_options(block: str) -> dict[str, Any] | None:
    """The YAML under a block's first line ({} when none), or None when it is not a mapping."""
    rest = block.partition("\n")[2]
    try:
        local = load_safely(textwrap.dedent(rest)) if rest.strip() else {}
    except YamlRefused:
        return None
    if local is None:
        local = {}
    return local if isinstance(local, dict) else None


def _root_id(block: str, config: dict[str, Any]) -> str:
    identifier = block.partition("\n")[0].strip()
    if not _IDENTIFIER.fullmatch(identifier):
        return ""
    local = _local_options(block)
    if local is None or local.get("handler", config["default_handler"]) != "python":
        return ""
    options = local.get("options") or {}
    if not isinstance(options, dict):
        return ""
    values = {name: options.get(name, default) for name, default in config["options"].items()}
    if not all(isinstance(value, bool) for value in values.values()):
        return ""
    return identifier if values["show_root_heading"] or values["show_root_toc_entry"] else ""
