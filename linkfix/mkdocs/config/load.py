"""A family project's configuration: which file, read how, built by which generator.

`find_config` looks for a config in a directory in the order the generators do (Zensical's:
zensical.toml, then mkdocs.yml, then mkdocs.yaml; then ProperDocs' name, then zensical.yml,
which only `-f` builds); `read_config` reads one (YAML or TOML) into the one model, `MkDocsProject`,
with the dialect of the generator that builds it (`generator`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..build_steps.steps import build_directory
from .dialect import CONFIG_NAMES
from .generator import generator_of
from .project import MkDocsProject, project_from_data
from .toml_file import is_zensical_toml, read_toml_config
from .yaml_file import is_yaml_config, read_yaml_config


def is_config(path: Path) -> bool:
    """Whether `path` is a family config: by its name, or a YAML/TOML file whose data holds the
    family's keys (as MkDocs takes any YAML file with `-f`)."""
    return path.name in CONFIG_NAMES or is_yaml_config(path) or is_zensical_toml(path)


def find_config(directory: Path) -> Path | None:
    """The config a build in `directory` reads: the first of CONFIG_NAMES there, or None."""
    return next((directory / name for name in CONFIG_NAMES if (directory / name).is_file()), None)


def read_config_data(path: Path) -> dict[str, Any]:
    """The config's data as mkdocs.yml spells it (INHERIT followed; zensical.toml respelled)."""
    return read_toml_config(path) if path.suffix.lower() == ".toml" else read_yaml_config(path)


def built_from(path: Path) -> Path | None:
    """The directory the build of the config `path` runs from, when it is above the config's own:
    a build step names it (`mkdocs build -f docs/site/mkdocs.yml` in the Makefile), or linkfix
    runs there (as `mkdocs build -f` would, from the working directory)."""
    found = build_directory(path)
    if found is not None:
        return found
    here, config_dir = Path.cwd().resolve(), path.resolve().parent
    return here if config_dir.is_relative_to(here) and config_dir != here else None


def read_config(path: Path, *, generator: str = "") -> MkDocsProject:
    """The project of the config `path`, built by the generator `generator` names (the setting:
    mkdocs, properdocs, zensical) or, by default, the one the project shows (see `generator`)."""
    choice = generator_of(path, generator)
    build_dir = built_from(path)
    data = read_toml_config(path) if path.suffix.lower() == ".toml" else read_yaml_config(path, built_from=build_dir)
    project = project_from_data(data, path, choice.dialect, built_from=build_dir)
    beside = [name for name in CONFIG_NAMES[: CONFIG_NAMES.index(path.name)] if (path.parent / name).is_file()] \
        if path.name in CONFIG_NAMES else []
    notes = [choice.ambiguous] if choice.ambiguous else []
    if beside:
        notes.append(f"{path.name}: {beside[0]} beside it is the config a build in {path.parent.name or '.'}/ reads first "
                     f"(Zensical's order: {', '.join(CONFIG_NAMES[:3])}); checking {path.name} as given")
    return replace(project, generator_why=choice.why, notes=(*notes, *project.notes))
