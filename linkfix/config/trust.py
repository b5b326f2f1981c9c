"""What a config file may not decide: the keys only the person running linkfix sets.

A linkfix.yml or a [tool.linkfix] table comes with the repository, so with a stranger's pull
request in a CI job. It decides which links exist and how they are checked (exclude, accept,
timeouts, report formats); it does not decide where the runner's secrets go, where files are
written outside the project, or whether the project's own code runs. A file that sets one of
these is refused (exit 2, naming the key and the flag to use instead), never silently dropped:
a run that quietly differs from what its config says is a run nobody can review.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import ConfigError

#: Keys a file may never set: (what they decide, the command-line flag to use).
RUNNER_ONLY = {
    "output": ("where reports are written", "--output"),
    "trust_project_code": ("whether the project's own code runs", "--trust-project-code"),
    # A store a repository named would get the job's store credentials (LINKFIX_CACHE_PASSWORD),
    # and its answers would decide the job's verdicts (and the fixes they lead to).
    "cache_url": ("where the run's results and the shared store's credentials go", "--cache-url"),
}
#: Providers that send a key from the runner's environment even when none is named (Brave reads
#: BRAVE_API_KEY): a file may use them, but not move them to another `url`.
KEYED_BY_DEFAULT = frozenset({"brave"})


def refuse_runner_only(name: str, value: Any, where: str, config_dir: Path, *, written: Any) -> None:
    """Raise ConfigError when a config file (`where`, in `config_dir`) sets key `name` to a value
    only the person running linkfix may choose. `value` is already converted to its type;
    `written` is the value as the file wrote it (a provider's settings hold their defaults once
    converted: only what was written tells which keys the file set)."""
    if name in RUNNER_ONLY:
        what, flag = RUNNER_ONLY[name]
        raise ConfigError(_refused(where, name, what, flag))
    if name == "cache_dir":
        _refuse_outside(where, name, value, config_dir, "that files are written outside the project")
    elif name == "root_dir" and value:
        _refuse_outside(where, name, value, config_dir, "that files outside the project are read")
    elif name in ("search", "archive"):
        # `written` converted without a fault: a mapping with `provider`, or a list of them
        for index, provider in enumerate(written if isinstance(written, list) else [written]):
            key = f"{name}[{index}]"
            if "api_key_env" in provider:
                raise ConfigError(_refused(where, f"{key}.api_key_env", "which environment variable is sent to a service", f"--{name}"))
            if provider["provider"] in KEYED_BY_DEFAULT and "url" in provider:
                raise ConfigError(_refused(where, f"{key}.url", f"where the runner's {provider['provider']} key is sent", f"--{name}"))


def _refused(where: str, key: str, what: str, flag: str) -> str:
    return (f"{where}: '{key}' decides {what}: only the person running linkfix may set that, not a file in the checked "
            f"repository (pass {flag} on the command line instead)")


def _refuse_outside(where: str, name: str, value: str, config_dir: Path, what: str) -> None:
    """A directory a file names (`cache_dir`: the cache is written there; `root_dir`: pages and
    #fragment targets are read there) must stay inside the directory of that file, symlinks
    followed."""
    directory = Path(value).expanduser()
    real = Path(os.path.realpath(directory if directory.is_absolute() else config_dir / directory))
    if not real.is_relative_to(os.path.realpath(config_dir)):
        raise ConfigError(_refused(where, name, f"{what} (to {real})", "--" + name.replace("_", "-")))
