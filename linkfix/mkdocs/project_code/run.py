"""The project's own code, run as `mkdocs build` runs it: only when the person running linkfix
trusts it (--trust-project-code; the same trust as `mkdocs build`, never from a file of the
project). Here: the config as MkDocs loads it, and the mkdocs-gen-files scripts (the hooks run
per page: linkfix.mkdocs.project_code.hook_runner).
"""

from __future__ import annotations

import logging
import os
import runpy
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def load_config(config_file: str) -> Any:
    """The MkDocs config as `mkdocs build` loads it (which imports its hooks); without its
    plugins, then without its theme too, when those are not installed here."""
    from mkdocs.config import load_config as mkdocs_load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    attempts: list[dict[str, Any]] = [{}, {"plugins": []}, {"plugins": [], "theme": {"name": "mkdocs"}}]
    mkdocs_log = logging.getLogger("mkdocs")
    for index, overrides in enumerate(attempts):
        last = index == len(attempts) - 1
        level = mkdocs_log.level
        if not last:
            mkdocs_log.setLevel(logging.CRITICAL)  # MkDocs logs each config error before it gives up: said below
        try:
            return mkdocs_load_config(config_file, **overrides)
        except (ConfigurationError, Abort) as exc:  # a config error is logged, then raised as Abort
            if last:
                raise
            log.debug("%s: %s; loading it with %s", config_file, exc, overrides)
        finally:
            mkdocs_log.setLevel(level)
    raise AssertionError("unreachable")


def gen_files(config_file: Path, scripts: list[str]) -> dict[str, str] | None:
    """The docs files the mkdocs-gen-files `scripts` write (docs-relative path -> what wrote it),
    run as the plugin runs them (`runpy`, its `FilesEditor` as `mkdocs_gen_files.open`, from the
    config's directory); None, said why, when they cannot be run here."""
    try:
        from mkdocs.structure.files import get_files
        from mkdocs_gen_files.editor import FilesEditor
    except ImportError:
        log.warning("--trust-project-code: mkdocs-gen-files is not installed here, so its scripts cannot run: "
                    "what they write is unverified (install mkdocs-gen-files where linkfix runs)")
        return None
    try:
        config = load_config(str(config_file))
        files = get_files(config)
        before = {file.src_uri for file in files}
        with tempfile.TemporaryDirectory(prefix="linkfix-gen-files-") as directory, _cwd(config_file.parent):
            with FilesEditor(files, config, directory) as editor:
                for script in scripts:
                    try:
                        runpy.run_path(str((config_file.parent / script).resolve()))
                    except SystemExit as exc:
                        if exc.code:
                            raise RuntimeError(f"{script} exited with {exc.code!r}") from exc
            written = {file.src_uri for file in editor.files} - before
    except Exception as exc:  # the project's own code: any failure
        log.warning("--trust-project-code: the mkdocs-gen-files scripts fail here (%s: %s): what they write is unverified",
                    type(exc).__name__, exc)
        return None
    return {path: f"mkdocs-gen-files ({', '.join(scripts)})" for path in sorted(written)}


@contextmanager
def _cwd(directory: Path) -> Iterator[None]:
    """Scripts name paths from where `mkdocs build` runs: the config's directory."""
    before = os.getcwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(before)
