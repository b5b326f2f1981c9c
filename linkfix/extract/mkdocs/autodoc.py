"""The ids a mkdocstrings `::: identifier` block is sure to make, known without running it.

mkdocstrings' Python handler gives the object a block names the id of its dotted path (the
templates' `html_id = obj.path`, the identifier as written): a visible heading when
`show_root_heading` is on, else an empty `<a id>` when `show_root_toc_entry` is on (the
default). A block it cannot collect fails the whole build, so on a site that was built the id
is there. That id, and only it, is what this module adds to a page's ids; everything else the
block makes (members, docstring headings) stays a build-time id (unverified when missing).

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

import yaml

PLUGIN_NAMES = ("mkdocstrings",)
_ROOT_OPTIONS = {"show_root_heading": False, "show_root_toc_entry": True}  # mkdocstrings-python's defaults
# A `:::` block as Python-Markdown leaves it when no plugin runs: a paragraph of its own text.
_BLOCK = re.compile(r"<p>:::[ \t]*([^<]*?)</p>", re.DOTALL)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_SOURCE_LINE = re.compile(r"^[ \t>]*::: ?([A-Za-z_][\w.]*)[ \t]*$", re.MULTILINE)  # mkdocstrings' own block pattern


def autodoc_settings(plugin_configs: dict[str, dict]) -> str:
    """What a page's `:::` blocks need from the config, as JSON ('' when no claim can be made:
    mkdocstrings is not configured, or the project brings its own templates)."""
    config = next((plugin_configs[name] for name in PLUGIN_NAMES if name in plugin_configs), None)
    if not isinstance(config, dict) or config.get("custom_templates"):
        return ""
    handlers = config.get("handlers") or {}
    python = (handlers.get("python") if isinstance(handlers, dict) else None) or {}
    options = (python.get("options") if isinstance(python, dict) else None) or {}
    if not isinstance(python, dict) or not isinstance(options, dict):
        return ""
    wanted = {name: options.get(name, default) for name, default in _ROOT_OPTIONS.items()}
    if not all(isinstance(value, bool) for value in wanted.values()):
        return ""
    return json.dumps({"default_handler": config.get("default_handler", "python"), "options": wanted}, sort_keys=True)


def root_ids(settings: str, markdown: str, rendered: str) -> frozenset[str]:
    """The ids the `:::` blocks of a page (its Markdown `markdown`, rendered with the blocks left
    as text) are sure to make. A block counts only where the source has it on a line of its own
    (a `<p>::: x</p>` written as raw HTML is no block)."""
    if not settings or ":::" not in rendered:
        return frozenset()
    config = json.loads(settings)
    written = set(_SOURCE_LINE.findall(markdown))
    ids = set()
    for match in _BLOCK.finditer(rendered):
        made = _root_id(html.unescape(match.group(1)), config)
        if made and made in written:
            ids.add(made)
    return frozenset(ids)


def _root_id(block: str, config: dict[str, Any]) -> str:
    first, _, rest = block.partition("\n")
    identifier = first.strip()
    if not _IDENTIFIER.fullmatch(identifier):
        return ""
    try:
        local = yaml.safe_load(textwrap.dedent(rest)) if rest.strip() else {}
    except yaml.YAMLError:
        return ""
    if local is None:
        local = {}
    if not isinstance(local, dict) or local.get("handler", config["default_handler"]) != "python":
        return ""
    options = local.get("options") or {}
    if not isinstance(options, dict):
        return ""
    values = {name: options.get(name, default) for name, default in config["options"].items()}
    if not all(isinstance(value, bool) for value in values.values()):
        return ""
    return identifier if values["show_root_heading"] or values["show_root_toc_entry"] else ""
