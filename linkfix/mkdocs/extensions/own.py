"""linkfix's own readers in place of the project's (the same in every environment): mkdocs-autorefs'
`[text][identifier]` (autorefs_ext) and the `{!file!}` includes of mdx_include and
markdown-include (include_ext); and pymdownx.snippets' settings as a source check needs them
(see the `setup` module's docstring)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .snippet_reads import allowed_bases, snippets_name

#: mkdocs-autorefs' cross-references (`[text][identifier]`), which mkdocstrings brings too (autorefs_ext).
AUTOREFS_EXTENSION = "linkfix.mkdocs.plugins.autorefs"
AUTOREFS_PLUGINS = ("autorefs", "mkdocstrings")

#: linkfix's own reader of `{!file!}` includes (include_ext), in place of mdx_include and markdown-include.
INCLUDE_EXTENSION = "linkfix.mkdocs.extensions.include_ext"
INCLUDE_NAMES = ("mdx_include", "markdown_include.include", "markdown_include")
#: linkfix's own extensions: part of linkfix, loaded whatever `imports` says of the project's.
#: Material's icon shortcodes, where Material's emoji index is configured but not installed (material_icons).
MATERIAL_ICONS_EXTENSION = "linkfix.mkdocs.extensions.material_icons"
OWN_EXTENSIONS = frozenset({AUTOREFS_EXTENSION, INCLUDE_EXTENSION, MATERIAL_ICONS_EXTENSION})


def own_includes(configs: dict[str, Any], extensions: tuple[str, ...], config_dir: str, project_dir: str) -> list[str]:
    """The extensions, mdx_include and markdown-include read by linkfix's own include reader
    (the same in every environment; reads as snippets' may, no URL fetched)."""
    names: list[str] = []
    for name in extensions:
        if name not in INCLUDE_NAMES:
            names.append(name)
            continue
        given = configs.pop(name, None) or {}
        base = given.get("base_path", ".") if isinstance(given.get("base_path", "."), str) else "."
        recursive = given.get("recurs_local", given.get("recursive", True))
        if INCLUDE_EXTENSION not in names:
            names.append(INCLUDE_EXTENSION)
            configs[INCLUDE_EXTENSION] = {"base_path": str(Path(config_dir) / base), "project": project_dir,
                                          "recursive": recursive is not False,
                                          "recursive_relative_path": given.get("recursive_relative_path") is True}
    return names


def adjust_snippets(configs: dict[str, Any], extensions: tuple[str, ...], config_dir: str, project_dir: str,
                    problems: list[str], *, build_dir: str = "") -> None:
    """pymdownx.snippets as a source check needs it (see the module docstring)."""
    name = snippets_name(extensions)
    if name is None:
        return
    config = configs.setdefault(name, {})
    bases = []
    for base, refusal in allowed_bases(config.get("base_path", ["."]), config_dir, project_dir, build_dir=build_dir):
        if refusal is None:
            bases.append(str(base))
        else:
            problems.append(f"markdown extension '{name}': base_path '{base}' is not read: {refusal}")
    config["base_path"] = bases
    config["check_paths"] = False
    config["url_download"] = False
