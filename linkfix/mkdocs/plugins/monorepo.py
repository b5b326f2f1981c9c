"""mkdocs-monorepo-plugin: each `!include sub/mkdocs.yml` of the nav (`*include` a glob of them)
puts that project's docs among these, under its `site_name` (slugified unless it is a path
already). Their pages are published; their own links are not checked here. An included config,
or its docs_dir, is read only inside this project (as INHERIT and docs_dir: one leading out of
it is refused, naming it, and not read)."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from ...errors import InputError
from ...files.containment import describe_project, outside_project, project_of
from ...files.yamlfile import YamlRefused, read_yaml
from ..building import BuildMade, shown_path
from ..config.yaml_file import _TolerantLoader
from .base import Plugin

log = logging.getLogger(__name__)


class Monorepo(Plugin):
    def makes(self, made: BuildMade) -> None:
        mk = self.project
        base, project = mk.config_file.parent, project_of(mk.config_file)
        for entry in mk.nav_files:
            if entry.startswith("!include "):
                configs = [base / entry[len("!include "):].strip()]
            elif entry.startswith("*include "):
                configs = sorted(base.glob(entry[len("*include "):].strip()))
            else:
                continue
            for config in configs:
                _included(config, shown_path(config.resolve(), base), project, made)


def _included(config: Path, shown: str, project: Path, made: BuildMade) -> None:
    """One included project's docs, read only inside this project (as INHERIT and docs_dir:
    an `!include` or a `docs_dir` leading out of it is refused, naming it, and not read)."""
    if outside_project(config, project):
        raise InputError(f"monorepo: the nav's !include {shown} is outside the project, {describe_project(project)}: not read")
    try:
        data = read_yaml(config, _TolerantLoader)
    except (YamlRefused, OSError) as exc:
        log.warning("monorepo: %s cannot be read (%s): links into its docs are broken here", config, exc)
        return
    if not isinstance(data, dict) or not isinstance(data.get("site_name"), str):
        return
    alias = data["site_name"]
    if not re.fullmatch(r"[a-zA-Z0-9_.\-/]+", alias):
        alias = re.sub(r"[^a-z0-9]+", "-", alias.lower()).strip("-")
    docs_dir = config.parent / str(data.get("docs_dir") or "docs")
    if outside_project(docs_dir, project):
        raise InputError(f"monorepo: {shown}: docs_dir '{data.get('docs_dir')}' is outside the project, {describe_project(project)}: "
                         "linkfix reads nothing outside it")
    for top, subdirectories, names in os.walk(docs_dir):
        subdirectories[:] = [d for d in subdirectories if not d.startswith(".")]
        rel = os.path.relpath(top, docs_dir).replace(os.sep, "/")
        for name in names:
            made.docs.setdefault(f"{alias}/{name}" if rel == "." else f"{alias}/{rel}/{name}", f"the monorepo plugin (from {shown})")


PLUGIN = Monorepo
