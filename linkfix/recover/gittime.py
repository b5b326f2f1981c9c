"""When was a link written? `git blame` of its source line, for the archive's time travel.

Recovery asks the archive for the last good capture at or before the time the link was
written: the page the author saw. One `git blame` per source file that holds a broken link.
"""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from ..inputs.git import git_command, git_environment
from ..model import LinkResult

log = logging.getLogger(__name__)

_BLAME_SECONDS = 20


def link_times(results: Iterable[LinkResult]) -> dict[str, datetime]:
    """URL as written -> commit time of the line that holds it (the earliest, when several)."""
    lines_by_file: dict[str, set[int]] = {}
    wanted: list[LinkResult] = []
    for item in results:
        lines_by_file.setdefault(item.link.span.path, set()).add(item.link.span.line)
        wanted.append(item)
    blamed = {path: _blame(Path(path)) for path in lines_by_file}
    times: dict[str, datetime] = {}
    for item in wanted:
        when = blamed[item.link.span.path].get(item.link.span.line)
        if when is not None and (item.link.url not in times or when < times[item.link.url]):
            times[item.link.url] = when
    return times


def _blame(path: Path) -> dict[int, datetime]:
    """Line number -> author time, or {} when the file is not in git (or git is missing)."""
    try:
        completed = subprocess.run(
            [*git_command(directory=path.parent), "blame", "--line-porcelain", "--", path.name],
            capture_output=True, text=True, timeout=_BLAME_SECONDS, errors="replace", stdin=subprocess.DEVNULL,
            env=git_environment(),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.debug("no git blame for %s: %s", path, exc)
        return {}
    if completed.returncode != 0:
        return {}  # not tracked, not a repository: "now" is the honest answer
    return _parse_line_porcelain(completed.stdout)


def _parse_line_porcelain(text: str) -> dict[int, datetime]:
    times: dict[int, datetime] = {}
    line = None
    for row in text.splitlines():
        if row.startswith("\t"):
            line = None
            continue
        parts = row.split(" ")
        if len(parts) >= 3 and len(parts[0]) == 40 and parts[1].isdigit() and parts[2].isdigit():
            line = int(parts[2])  # "<sha> <orig line> <final line> [<count>]"
        elif parts[0] == "author-time" and line is not None and len(parts) > 1 and parts[1].isdigit():
            times[line] = datetime.fromtimestamp(int(parts[1]), UTC)
    return times
