"""The installed distributions' entry points, read as `importlib.metadata.entry_points()` finds
them, without importing `importlib.metadata`.

A one-page check asks two groups (the MkDocs themes, the Markdown extensions): importing
`importlib.metadata` (email, zipfile, csv, ...) and walking every distribution once per group
cost ~30 ms of a ~0.35 s pre-commit run, more in a large environment. The walk here is the one
`importlib.metadata` makes for the path finder: each `sys.path` directory in order, its
`*.dist-info` and `*.egg-info` entries in directory order, a distribution name's first entry
only; an entry point's name is the first of its group in that order (what Python-Markdown and
MkDocs take). Zipped eggs and custom finders are not walked: nothing a docs toolchain installs
comes that way today, and a name not found here is then looked up as a module, as it would be
without an entry point.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from dataclasses import dataclass

_NAME_RUN = re.compile(r"[-_.]+")
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(?::\s*(?P<attr>[\w.]+)\s*)?(?:\[.*\]\s*)?$")


@dataclass(frozen=True, slots=True)
class EntryPoint:
    name: str
    module: str
    attr: str  # "" when the value names a module only

    def load(self) -> object:
        """The object the entry point names (EntryPoint.load): its module imported, then the attribute path."""
        import importlib

        found: object = importlib.import_module(self.module)
        for part in self.attr.split(".") if self.attr else ():
            found = getattr(found, part)
        return found


def entry_points(group: str) -> dict[str, EntryPoint]:
    """Name -> entry point of `group`, the first of each name in importlib.metadata's order."""
    return _all_groups().get(group, {})


@functools.cache
def _all_groups() -> dict[str, dict[str, EntryPoint]]:
    groups: dict[str, dict[str, EntryPoint]] = {}
    seen: set[str] = set()
    for directory in sys.path:
        try:
            children = os.listdir(directory or ".")
        except OSError:  # a zip file, a directory gone: nothing walked there
            continue
        for child in children:
            low = child.lower()
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            name = _NAME_RUN.sub("_", low.rpartition(".")[0].partition("-")[0])
            if name in seen:
                continue
            seen.add(name)
            try:
                with open(os.path.join(directory or ".", child, "entry_points.txt"), encoding="utf-8") as file:
                    text = file.read()
            except (OSError, UnicodeDecodeError):  # none (most distributions), or a file entry (old egg-info)
                continue
            _add(groups, text)
    return groups


def _add(groups: dict[str, dict[str, EntryPoint]], text: str) -> None:
    """The `[group]` sections of an entry_points.txt (importlib.metadata's Sectioned reading)."""
    group: dict[str, EntryPoint] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = groups.setdefault(line[1:-1].strip(), {})
            continue
        name, equals, value = line.partition("=")
        found = _VALUE.match(value.strip())
        if group is None or not equals or found is None:
            continue
        group.setdefault(name.strip(), EntryPoint(name.strip(), found["module"], found["attr"] or ""))
