"""mkdocs-gen-files: the docs its scripts write when the site is built. With
--trust-project-code the scripts run (as `mkdocs build` runs them) and what they write is
known; otherwise they are read without running (project_code.reading) and narrowed to the
names they spell: a link to such a name is unverified, never broken."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ...files.containment import project_of
from ..building import TRUST_HINT, BuildMade, MaybeMade
from ..project_code.reading import read_python
from .base import Plugin

log = logging.getLogger(__name__)


class GenFiles(Plugin):
    knows_its_pages = False  # what its scripts write is known only when they run

    def makes(self, made: BuildMade) -> None:
        mk = self.project
        scripts = self.settings.get("scripts")
        scripts = [scripts] if isinstance(scripts, str) else [s for s in scripts if isinstance(s, str)] if isinstance(scripts, list) else []
        base = mk.config_file.parent
        if mk.trust_project_code:
            from ..project_code.run import gen_files

            written = gen_files(mk.config_file, scripts)
            if written is not None:
                made.docs.update(written)
                return
        readings = [read_python(Path(os.path.abspath(base / script)), project_of(mk.config_file)) for script in scripts]
        for script, reading in zip(scripts, readings):
            if reading.error:
                log.warning("mkdocs-gen-files script %s %s: every file it could write is unverified", script, reading.error)
        names = tuple(name for reading in readings for name in reading.names)
        unreadable = any(reading.error for reading in readings) or not names
        made.maybe.append(MaybeMade(by="the mkdocs-gen-files scripts " + ", ".join(scripts), why="a source check does not run the project's code",
                                    hint=TRUST_HINT, names=names, any_asset=unreadable, static_prefixes=("",) if unreadable else ()))


PLUGIN = GenFiles
