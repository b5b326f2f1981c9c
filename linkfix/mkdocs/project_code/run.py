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
    """The MkDocs config as `mkdocs build` loads it (which imports its hooks); where that fails
    here, without what is not installed, as the rendering leaves it out: its plugins, then its
    Markdown extensions that cannot be loaded (or that name Python objects that cannot be
    imported: `!!python/name:material.extensions.emoji.twemoji` without Material), then its theme."""
    from mkdocs.config import load_config as mkdocs_load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    attempts: list[dict[str, Any] | None] = [{}, {"plugins": []}, None, {"theme": {"name": "mkdocs"}}]
    mkdocs_log = logging.getLogger("mkdocs")
    for index, overrides in enumerate(attempts):
        last = index == len(attempts) - 1
        level = mkdocs_log.level
        if not last:
            mkdocs_log.setLevel(logging.CRITICAL)  # MkDocs logs each config error before it gives up: said below
        try:
            if overrides is not None and index < 2:
                return mkdocs_load_config(config_file, **overrides)
            with _missing_names_tolerated():
                return mkdocs_load_config(config_file, plugins=[], markdown_extensions=_loadable_extensions(config_file),
                                          **(overrides or {}))
        except (ConfigurationError, Abort, ImportError) as exc:  # a config error is logged, then raised as Abort
            if last:
                raise
            log.debug("%s: %s; loading it with %s", config_file, exc, overrides if overrides is not None else "what is installed")
        finally:
            mkdocs_log.setLevel(level)
    raise AssertionError("unreachable")


_PYTHON_NAME = "tag:yaml.org,2002:python/name:"
_MISSING = object()  # what a `!!python/name:` that cannot be imported here loads as


@contextmanager
def _missing_names_tolerated() -> Iterator[None]:
    """While MkDocs reads a config: a `!!python/name:` whose module is not installed loads as
    `_MISSING` instead of failing the whole config."""
    import yaml

    owned = "yaml_multi_constructors" in yaml.Loader.__dict__
    saved = dict(yaml.Loader.yaml_multi_constructors)
    original = saved[_PYTHON_NAME]

    def tolerant(loader: Any, suffix: str, node: Any) -> Any:
        try:
            return original(loader, suffix, node)
        except yaml.YAMLError:
            return _MISSING

    yaml.Loader.add_multi_constructor(_PYTHON_NAME, tolerant)
    try:
        yield
    finally:
        if owned:
            yaml.Loader.yaml_multi_constructors = saved
        else:
            del yaml.Loader.yaml_multi_constructors


def _loadable_extensions(config_file: str) -> list[Any]:
    """The config's `markdown_extensions` (INHERIT followed) that Python-Markdown loads here."""
    import markdown
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.utils.yaml import get_yaml_loader, yaml_load

    with open(config_file, "rb") as fd:
        raw = yaml_load(fd, get_yaml_loader(config=MkDocsConfig(config_file_path=config_file)))
    entries = raw.get("markdown_extensions") or []
    kept, left_out = [], []
    for entry in entries if isinstance(entries, list) else []:
        name, settings = next(iter(entry.items())) if isinstance(entry, dict) and len(entry) == 1 else (entry, None)
        try:
            if not isinstance(name, str) or _holds_missing(settings):
                raise ValueError("names what is not installed")
            markdown.Markdown().registerExtensions((name,), {name: settings or {}})
        except Exception:  # not installed, or fails here: any type
            left_out.append(str(name))
            continue
        kept.append(entry)
    if left_out:
        log.warning("--trust-project-code: the markdown extensions %s cannot be loaded here: the hooks run with a config "
                    "without them (install what the site's build installs to run them as the build does)", ", ".join(left_out))
    return kept


def _holds_missing(value: Any) -> bool:
    if value is _MISSING:
        return True
    if isinstance(value, dict):
        return any(_holds_missing(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_missing(v) for v in value)
    return False


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
