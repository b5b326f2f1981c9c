"""Docs files the repository's build steps write before MkDocs runs, named in those steps.

A project may copy a file into its docs in CI or in its Makefile (`cp CHANGELOG.md
docs/changelog.md` in .github/workflows/docs.yaml, then `mkdocs build`): the published site has
the page, the repository does not, and a source check sees a nav entry or a link to a missing
file. Such a file is `build-time-file`, unverified, naming the step's file, when a build file of
the repository spells its path under the docs directory (`docs/changelog.md`) and the docs do
not hold it. Read: the GitHub workflows, Makefile, justfile, noxfile.py, tox.ini and Read the
Docs' config at the repository's top (each up to MAX_BYTES).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ...files.containment import project_of
from ...files.read import Unreadable, read_bytes
from ..building import BuildMade, MaybeMade
from ..config.project import MkDocsProject

MAX_BYTES = 512 * 1024
BUILD_FILES = ("Makefile", "makefile", "justfile", "noxfile.py", "tox.ini", ".readthedocs.yaml", ".readthedocs.yml")
WORKFLOWS = ".github/workflows"


def scripted_docs_files(config_file: Path, docs_dir: Path) -> dict[str, str]:
    """{docs-relative path the build files write and the docs lack: the build file's path, as shown}."""
    root = project_of(config_file)
    docs = Path(os.path.realpath(docs_dir))
    if not docs.is_relative_to(root) or docs == root:
        return {}
    # `docs/x.md`, `./docs/x.md`: the docs directory as the repository's top names it, then a file
    named = re.compile(rf"(?<![\w.\-/]){re.escape(docs.relative_to(root).as_posix())}/(\w[\w./\-]*\.\w+)")
    candidates = [root / name for name in BUILD_FILES]
    workflows = root / WORKFLOWS
    if workflows.is_dir():
        candidates += sorted(p for p in workflows.iterdir() if p.suffix in (".yml", ".yaml"))
    found: dict[str, str] = {}
    for build_file in candidates:
        text = _text(build_file)
        for match in named.finditer(text):
            path = os.path.normpath(match.group(1)).replace(os.sep, "/")
            if not path.startswith("../") and path not in found and not (docs / path).exists():
                found[path] = build_file.relative_to(root).as_posix()
    return found


def _text(path: Path) -> str:
    """'' for a file that is absent, too large, or not a regular file (read_bytes refuses a FIFO)."""
    try:
        return read_bytes(path, limit=MAX_BYTES).decode("utf-8", errors="replace")
    except Unreadable:
        return ""


def add_scripted(mk: MkDocsProject, made: BuildMade) -> None:
    by_file: dict[str, list[str]] = {}
    for path, build_file in scripted_docs_files(mk.config_file, mk.docs_dir).items():
        by_file.setdefault(build_file, []).append(re.escape(path))
    for build_file, names in by_file.items():
        made.maybe.append(MaybeMade(by=f"a build step in {build_file} (it names the file)", why="a source check does not run the repository's build steps",
                                    hint="check the built site (linkfix check site/) or with the linkfix MkDocs plugin",
                                    names=tuple(names)))
