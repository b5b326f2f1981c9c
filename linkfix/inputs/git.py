"""git, run on the checked tree without anything of its config that runs a program.

The checked tree's git directory may come with it (a restored CI cache, an artifact, a tree
unpacked from an archive), and then its `.git/config` and `.git/info/attributes` are the
repository's to write: `core.fsmonitor` names a program that every command looking at the
work tree runs, and a `filter.<name>.clean`, a `diff.<name>.textconv`, `diff.external`, or
`gpg.program` with `log.showSignature` run theirs. Settings given with `-c` win over every
config file, so each command linkfix runs (`--changed-since`, `--suggest`'s history, blame)
starts with: no fsmonitor, no hooks, no pager, no signature check, no external diff, no
transport (a partial clone's lazy fetch would reach the network), and every filter and diff
driver any of its configs names made harmless (`cat`, or emptied). Listing those is safe:
`git config` reads files and runs nothing. The system config is not read (GIT_CONFIG_NOSYSTEM); the
runner's own (`~/.gitconfig`) is, as git reads it for them.
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path

#: Settings that no config may turn into a program run by a reading command.
NEUTRAL = ("core.fsmonitor=false", "core.hooksPath=/dev/null", "core.pager=cat", "diff.external=", "log.showSignature=false",
           "protocol.allow=never", "core.alternateRefsCommand=")
#: The driver settings that name a program: each one any config sets is replaced (see `_neutral_options`).
_DRIVER_PROGRAMS = r"^(filter|diff|merge)\..+\.(clean|smudge|process|textconv|command|driver)$"
_ENVIRONMENT = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_NO_LAZY_FETCH": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
_LIST_SECONDS = 10.0


def git_environment() -> dict[str, str]:
    """The environment every git command linkfix runs gets: this process's, with the above."""
    return {**os.environ, **_ENVIRONMENT}


def git_command(*, directory: Path | None = None, git_dir: Path | None = None) -> list[str]:
    """`git`, its options neutralising the repository's config, and where it runs: the work
    tree holding `directory` (`-C`), or the repository `git_dir`. Run it with `git_environment()`."""
    location = (f"--git-dir={git_dir}",) if git_dir is not None else ("-C", str(directory or Path.cwd()))
    return ["git", *_neutral_options(location), *location]


@functools.lru_cache(maxsize=64)
def _neutral_options(location: tuple[str, ...]) -> tuple[str, ...]:
    fixed = tuple(option for setting in NEUTRAL for option in ("-c", setting))
    try:
        listed = subprocess.run(["git", *fixed, *location, "config", "--name-only", "--get-regexp", _DRIVER_PROGRAMS],
                                capture_output=True, timeout=_LIST_SECONDS, stdin=subprocess.DEVNULL, env=git_environment())
    except (OSError, subprocess.TimeoutExpired):
        return fixed  # git missing or stuck: the command itself will say
    replaced: list[str] = []
    for key in dict.fromkeys(listed.stdout.decode("utf-8", errors="surrogateescape").split()):
        # A filter or text conversion becomes `cat` (what passes the text as it is: an empty one
        # would be run as a program named ''); a process or external diff is emptied (git then
        # uses the plain filter, and linkfix never asks for an external diff).
        replaced += ["-c", f"{key}=cat" if key.endswith((".clean", ".smudge", ".textconv")) else f"{key}="]
        if key.startswith("filter."):
            replaced += ["-c", f"{key.rsplit('.', 1)[0]}.required=false"]
    return fixed + tuple(replaced)
