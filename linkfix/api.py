"""The few functions of the public API that are not simply a module's own (see `linkfix.__all__`)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from .config import Config
from .errors import ConfigError
from .model import Report

#: Report file suffix -> format name.
SUFFIX_FORMATS = {".json": "json", ".html": "html", ".htm": "html", ".md": "markdown", ".sarif": "sarif",
                  ".xml": "junit", ".txt": "text"}


async def check_links_async(inputs: Sequence[str], config: Config | None = None) -> Report:
    """Check every link of `inputs` (directories, files, a mkdocs.yml), as `linkfix check` does."""
    from .pipeline import run_check

    return await run_check(list(inputs), config or Config())


def check_links(inputs: Sequence[str], config: Config | None = None) -> Report:
    """`check_links_async` for a caller without an event loop."""
    return asyncio.run(check_links_async(inputs, config))


def format_report(report: Report, name: str) -> str:
    """The report in format `name` (json, text, markdown, html, sarif, junit, github)."""
    from .report import FORMATS

    if name not in FORMATS:
        raise ConfigError(f"unknown report format {name!r} (one of {', '.join(sorted(FORMATS))})")
    return FORMATS[name](report)


def report_format_for(path: str | Path) -> str:
    """The format a report file's suffix names; ConfigError when it names none."""
    from .report import FORMATS

    suffix = Path(path).suffix.lower()
    name = SUFFIX_FORMATS.get(suffix)
    if name is None:
        raise ConfigError(f"cannot tell the report format of {str(path)!r} (use one of {', '.join(sorted(SUFFIX_FORMATS))})")
    if name not in FORMATS:
        raise ConfigError(f"report format {name!r} is not available")
    return name


def write_report(report: Report, path: str | Path, name: str | None = None) -> None:
    """Write the report to `path` in one step (a reader never sees half a file), in format
    `name` or the one its suffix names. ConfigError when it cannot be written."""
    from .atomic import write_atomic

    text = format_report(report, name or report_format_for(path))
    target = Path(path).expanduser()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, [text.encode("utf-8")])
    except OSError as exc:
        raise ConfigError(f"cannot write {target}: {exc.strerror or exc}") from exc
