"""Which files a page's includes may read: pymdownx.snippets' base paths and the files they name
(in the renderer, `guard_snippets`), and the files linkfix reads to place included links
(`includes.IncludedFiles`).

Includes come with the repository: `--8<-- ".git/config"` (where a CI checkout keeps its token)
or `base_path: ["/"]` with `/proc/self/environ` would put the runner's secrets into the rendered
page, and from there into a link that is fetched or a report that is published. So an include
is read only when its real path (symlinks followed) is a regular file inside the project — the
git work tree that holds the config, else the config's directory — and in no VCS directory. A
base path outside the project is left out with a warning; each file refused is said on its page.
The same holds with `trust_project_code`: running the project's code is not reading the runner's.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown import Markdown

#: Directories of version-control systems: their files are the checkout's, not the docs'.
VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", ".jj", ".pijul", ".sl"})
SNIPPETS = "pymdownx.snippets"


def snippets_name(extensions: tuple[str, ...]) -> str | None:
    """How the config names pymdownx.snippets (`pymdownx.snippets`, or `module:Class`), if at all."""
    return next((name for name in extensions if name.partition(":")[0] == SNIPPETS), None)


def read_refusal(path: str | Path, project: str | Path) -> str | None:
    """Why an include may not read `path`, or None."""
    real = Path(os.path.realpath(path))
    try:
        inside = real.relative_to(os.path.realpath(project)).parts
    except ValueError:
        return "it is outside the project"
    vcs = next((part for part in inside if part in VCS_DIRS), None)
    if vcs is not None:
        return f"it is inside {vcs}/, which holds the checkout's own data"
    if not real.is_file():
        return "it is not a regular file"
    return None


def allowed_bases(value: Any, config_dir: str, project: str, *, build_dir: str = "") -> list[tuple[Path, str | None]]:
    """(base, why it is refused or None) for each of pymdownx.snippets' `base_path` entries,
    relative ones taken from the config's directory, or, when not there, from the directory the
    build runs from (`build_dir`: pymdownx takes them from the working directory)."""
    bases = [value] if isinstance(value, str) else value if isinstance(value, list) else ["."]
    found: list[tuple[Path, str | None]] = []
    for base in bases:
        if not isinstance(base, str):
            continue
        path = Path(config_dir) / base
        if build_dir and not path.exists() and (Path(build_dir) / base).exists():
            path = Path(build_dir) / base
        try:
            Path(os.path.realpath(path)).relative_to(os.path.realpath(project))
            found.append((path, None))
        except ValueError:
            found.append((path, "it is outside the project"))
    return found


def guard_snippets(md: Markdown, project: str, refused: list[str]) -> None:
    """Let the pymdownx.snippets preprocessor of the Markdown instance `md` read only what
    `read_refusal` allows; each include refused is added to `refused` (a sentence)."""
    if "snippet" not in md.preprocessors:
        return
    preprocessor: Any = md.preprocessors["snippet"]  # pymdownx's, which ships no types
    preprocessor.url_download = False  # whatever the config says: a download would bypass linkfix's address checks
    find = getattr(preprocessor, "get_snippet_path", None)
    if find is None:  # a version whose reads cannot be guarded: it reads nothing
        md.preprocessors.deregister("snippet")
        refused.append("pymdownx.snippets (this version's reads cannot be limited to the project): includes are not read")
        return

    def guarded(name: str) -> str | None:
        path: str | None = find(name)
        if path is None:
            return None
        reason = read_refusal(path, project)
        if reason is None:
            return path
        refused.append(f"included file '{name}' is not read: {reason}")
        return None

    preprocessor.get_snippet_path = guarded
