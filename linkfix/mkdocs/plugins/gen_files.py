"""mkdocs-gen-files: the docs its scripts write when the site is built. With
--trust-project-code the scripts run (as `mkdocs build` runs them) and what they write is
known; otherwise each script's writes are read from its source (project_code.gen_files_writes):
the paths it writes exactly are docs of the build, the rest a link to which is unverified, never
broken. A script whose writes cannot be bounded so is read for the names it spells
(project_code.reading), and then any page it may make is unknown."""

from __future__ import annotations

import functools
import logging
import os
from pathlib import Path

from ...files.containment import project_of
from ..building import TRUST_HINT, BuildMade, MaybeMade
from ..project_code.gen_files_writes import ScriptWrites, script_writes
from ..project_code.reading import read_python
from .base import Plugin

log = logging.getLogger(__name__)


class GenFiles(Plugin):
    @property
    def scripts(self) -> list[str]:
        scripts = self.settings.get("scripts")
        return [scripts] if isinstance(scripts, str) else [s for s in scripts if isinstance(s, str)] if isinstance(scripts, list) else []

    @functools.cached_property
    def writes(self) -> list[ScriptWrites] | None:
        """What each script writes, read from its source; None when one cannot be bounded."""
        base, project = self.project.config_file.parent, project_of(self.project.config_file)
        found = [_script_writes(Path(os.path.abspath(base / script)), project) for script in self.scripts]
        return None if None in found else [writes for writes in found if writes is not None]

    @property
    def knows_its_pages(self) -> bool:
        """Only when every script's writes are known exactly (a nav entry naming another page is broken)."""
        return self.writes is not None and not any(writes.patterns for writes in self.writes)

    def makes(self, made: BuildMade) -> None:
        mk, scripts = self.project, self.scripts
        by = "the mkdocs-gen-files scripts " + ", ".join(scripts)
        if mk.trust_project_code:
            from ..project_code.run import gen_files

            written = gen_files(mk.config_file, scripts)
            if written is not None:
                made.docs.update(written)
                return
        if self.writes is not None:
            for writes in self.writes:
                made.docs.update(dict.fromkeys(writes.exact, by))
            patterns = tuple(pattern for writes in self.writes for pattern in writes.patterns)
            if patterns:
                made.maybe.append(MaybeMade(by=by, why="a source check does not run the project's code", hint=TRUST_HINT, paths=patterns))
            return
        base = mk.config_file.parent
        readings = [read_python(Path(os.path.abspath(base / script)), project_of(mk.config_file)) for script in scripts]
        for script, reading in zip(scripts, readings):
            if reading.error:
                log.warning("mkdocs-gen-files script %s %s: every file it could write is unverified", script, reading.error)
        names = tuple(name for reading in readings for name in reading.names)
        unreadable = any(reading.error for reading in readings) or not names
        made.maybe.append(MaybeMade(by=by, why="a source check does not run the project's code",
                                    hint=TRUST_HINT, names=names, any_asset=unreadable, static_prefixes=("",) if unreadable else ()))


@functools.lru_cache(maxsize=32)
def _cached_writes(path: Path, project: Path, stamp: tuple[int, int]) -> ScriptWrites | None:
    return script_writes(path, project)


def _script_writes(path: Path, project: Path) -> ScriptWrites | None:
    """A script's writes, read once per file version (the build's files and its nav both ask)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return _cached_writes(path, project, (stat.st_mtime_ns, stat.st_size))


PLUGIN = GenFiles
