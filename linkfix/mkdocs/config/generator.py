"""Which generator of the family builds a project, so that its rules are the ones applied.

In this order:
1. the runner's or the project's setting (`generator: mkdocs | properdocs | zensical`);
2. the config's name: `zensical.toml` and `zensical.yml` are Zensical's, `properdocs.yml`
   ProperDocs';
3. for a `mkdocs.yml` (which all three read): what the repository runs and installs. A build step
   (a workflow, Makefile, justfile, nox or tox file, Read the Docs' config) that runs `zensical
   build`/`serve` and none that runs `mkdocs build`/`serve`/`gh-deploy` says Zensical; so does a
   dependency file (pyproject.toml, requirements files, lock files) that names `zensical`, with
   nothing that runs or installs MkDocs (or Material for MkDocs). Evidence both ways is ambiguous:
   MkDocs' rules are applied, and the run says so and how to choose; no evidence is MkDocs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ...files.containment import project_of
from ..build_steps.steps import build_step_texts, dependency_texts
from .dialect import DIALECTS, MKDOCS, PROPERDOCS, ZENSICAL, Dialect, Generator

_ZENSICAL_NAMES = ("zensical.toml", "zensical.yml", "zensical.yaml")
_PROPERDOCS_NAMES = ("properdocs.yml", "properdocs.yaml")
_RUNS_ZENSICAL = re.compile(r"\bzensical\s+(?:build|serve)\b")
_RUNS_MKDOCS = re.compile(r"\b(?:mkdocs|properdocs)\s+(?:build|serve|gh-deploy)\b")
# A package name as dependency files write it: `zensical`, `zensical>=0.0.70`, `"zensical"`, `name = "zensical"`.
# MkDocs' own, or Material's (which brings it); not a plugin's (`mkdocs-redirects` serves either).
_NAME_END = r"(?=[\s\"'<>=!~;,\[\]()]|$)"
_NAMES_ZENSICAL = re.compile(rf"(?<![\w.-])zensical{_NAME_END}", re.I | re.M)
_NAMES_MKDOCS = re.compile(rf"(?<![\w.-])mkdocs(?:-material)?{_NAME_END}", re.I | re.M)


@dataclass(frozen=True, slots=True)
class Choice:
    """The generator whose rules apply, and why, in words (for the run's summary)."""

    dialect: Dialect
    why: str
    ambiguous: str = ""  # a sentence for the run to say, when the evidence pointed both ways


def generator_of(config_file: Path, setting: str = "") -> Choice:
    """The generator that builds the project of `config_file` (see the module's docstring)."""
    if setting and setting != "auto":
        return Choice(DIALECTS[Generator(setting)], f"generator: {setting}")
    name = config_file.name.lower()
    if name in _ZENSICAL_NAMES or config_file.suffix.lower() == ".toml":
        return Choice(ZENSICAL, config_file.name)
    if name in _PROPERDOCS_NAMES:
        return Choice(PROPERDOCS, config_file.name)
    root = project_of(config_file)
    steps = build_step_texts(root)
    runs_zensical = [shown for shown, text in steps if _RUNS_ZENSICAL.search(text)]
    runs_mkdocs = [shown for shown, text in steps if _RUNS_MKDOCS.search(text)]
    if runs_zensical and not runs_mkdocs:
        return Choice(ZENSICAL, f"{config_file.name}, built by `zensical build` in {runs_zensical[0]}")
    deps = dependency_texts(root)
    names_zensical = [shown for shown, text in deps if _NAMES_ZENSICAL.search(text)]
    names_mkdocs = [shown for shown, text in deps if _NAMES_MKDOCS.search(text)]
    if names_zensical and not (runs_mkdocs or names_mkdocs):
        return Choice(ZENSICAL, f"{config_file.name}, with zensical in {names_zensical[0]}")
    if runs_zensical or names_zensical:
        evidence = (runs_zensical or names_zensical)[0]
        other = (runs_mkdocs or names_mkdocs)[0]
        return Choice(MKDOCS, config_file.name, ambiguous=(
            f"{config_file.name}: {evidence} points to Zensical and {other} to MkDocs; checking by MkDocs' rules "
            "(set `generator: zensical` in linkfix.yml, or pass --generator zensical, to check it as Zensical builds it)"))
    return Choice(MKDOCS, config_file.name)
