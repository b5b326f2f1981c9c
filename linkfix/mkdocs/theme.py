"""The theme's part of a build: the static files MkDocs copies from the theme's directories
(the built-in `mkdocs` and `readthedocs`, Material, any installed theme, and the `custom_dir`)
and its static templates (`404.html`, `sitemap.xml` with the `sitemap.xml.gz` beside it). A
theme that is not installed here may make files a source check cannot list: a link to one of
them is unverified, naming the distribution to install — except the files of the themes listed in
`data/theme_files.json`, read from a released wheel of each (benchmarks/theme_lists.py, which
records the version): those are made.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .building import BuildMade, MaybeMade, install_hint
from .config.project import MkDocsProject

log = logging.getLogger(__name__)


#: The distribution that provides a theme, for the hint when it is not installed.
THEME_DISTRIBUTIONS = {"material": "mkdocs-material", "terminal": "mkdocs-terminal", "windmill": "mkdocs-windmill",
                       "cinder": "mkdocs-cinder", "dracula": "mkdocs-dracula-theme", "shadcn": "mkdocs-shadcn"}



#: The static files of themes that may not be installed, each list with the release it was read from.
THEME_FILES_DATA = Path(__file__).with_name("data") / "theme_files.json"

#: Where a theme that is not installed keeps its static files (what a link into it starts with);
#: a theme not listed may have them anywhere: a link to a stylesheet, script, image or font is unverified.
THEME_STATIC = {"material": ("assets/",)}



def add_theme(mk: MkDocsProject, made: BuildMade) -> None:
    custom_dir = str(mk.theme_dirs[0]) if mk.theme_dirs else None
    try:
        if mk.theme_name and mk.theme_name not in installed_themes():
            # What Theme() finds too, without importing mkdocs.theme (most of MkDocs, click,
            # jinja2: a third of the start-up of a one-page check where the theme is not installed).
            raise LookupError(f"Unrecognised theme name: '{mk.theme_name}'")
        from mkdocs.theme import Theme

        theme = Theme(mk.theme_name or None, custom_dir=custom_dir, static_templates=mk.static_templates)
    except Exception as exc:  # not installed (KeyError), or its own config fails: any type
        log.debug("theme %r: %s", mk.theme_name, exc)
        distribution = THEME_DISTRIBUTIONS.get(mk.theme_name, f"the package of the MkDocs theme '{mk.theme_name}'")
        made.maybe.append(MaybeMade(by=f"the theme '{mk.theme_name}'", why="it is not installed here", hint=install_hint(distribution),
                                    names=("404\\.html", "sitemap\\.xml", "sitemap\\.xml\\.gz"),
                                    static_prefixes=THEME_STATIC.get(mk.theme_name, ()),
                                    any_asset=mk.theme_name not in THEME_STATIC))
        directories = [custom_dir] if custom_dir else []
        templates: set[str] = set(mk.static_templates) | {"sitemap.xml"}
        known = known_theme_files().get(mk.theme_name)
        if known:
            # Files of the theme's release read from its wheel: those are made whatever version is
            # installed where the site is built (a file another release lacks would be a miss, never
            # a false alarm); a file it does not list stays unverified, as above.
            for path in known.get("files", ()):
                made.files.setdefault(path, f"the theme '{mk.theme_name}' ({known.get('distribution')} {known.get('version')})")
                made.theme.add(path)
            templates |= set(known.get("static_templates", ()))
    else:
        directories, templates = list(theme.dirs), set(theme.static_templates)
    by = f"the theme '{mk.theme_name}'" if mk.theme_name else "the theme"
    for path in theme_files(directories, templates):
        made.files.setdefault(path, by)
        made.theme.add(path)
    for template in templates:
        made.files.setdefault(template, by)
        if template == "sitemap.xml":
            made.files.setdefault("sitemap.xml.gz", "MkDocs")



def installed_themes() -> set[str]:
    """The names of the installed MkDocs themes (the `mkdocs.themes` entry points), as MkDocs reads them."""
    from ..files.installed import entry_points

    return set(entry_points("mkdocs.themes"))



def theme_files(directories: list[str], static_templates: set[str]) -> set[str]:
    """The files MkDocs copies from the theme's directories (Files.add_files_from_theme)."""
    found: set[str] = set()
    for directory in directories:
        paths = []
        for top, subdirectories, names in os.walk(directory):
            subdirectories[:] = [d for d in subdirectories if d != "__pycache__"]
            rel = os.path.relpath(top, directory).replace(os.sep, "/")
            paths += [name if rel == "." else f"{rel}/{name}" for name in names]
        found |= static_files(paths, static_templates)
    return found


def static_files(paths: Iterable[str], static_templates: set[str]) -> set[str]:
    """Those of a theme directory's files (relative paths) MkDocs copies into the site."""
    patterns = [".*", "*/.*", "*.py", "*.pyc", "*.html", "*readme*", "mkdocs_theme.yml", "locales/*",
                *(f"*{suffix}" for suffix in (".md", ".markdown", ".mdown", ".mkdn", ".mkd")), *static_templates]
    return {path for path in paths if "__pycache__/" not in f"/{path}"
            and not any(fnmatch.fnmatch(path.lower(), pattern) for pattern in patterns)}


@functools.lru_cache(maxsize=1)
def known_theme_files() -> dict[str, dict[str, Any]]:
    """The static files of themes that may not be installed, read from their released wheels
    (benchmarks/theme_lists.py writes the data, with the version each list is of)."""
    try:
        data = json.loads(THEME_FILES_DATA.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
