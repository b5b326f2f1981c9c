"""Loading configuration: defaults < linkfix.yml / [tool.linkfix] < command-line flags.

A config file comes with the repository, so with a pull request: it is read like any input
(regular files only, size-capped, YAML aliases and nesting bounded) and every value is checked
against its declared type before anything runs, so a bad value is exit 2 naming its key, never
a traceback or a run where every link fails. Keys only the person running linkfix may set
(`trust.RUNNER_ONLY`: output paths, secrets, running the project's code) are refused in a file.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import re
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..files.read import Unreadable, display_path, read_bytes
from .convert import Invalid, convert
from .durations import parse_duration
from .model import FORMAT_NAMES, Config, key_kind, key_types
from .trust import refuse_runner_only

log = logging.getLogger(__name__)

CONFIG_FILES = ("linkfix.yml", "linkfix.yaml", ".linkfix.yml", "pyproject.toml")
MAX_CONFIG_BYTES = 4 * 1024 * 1024


def find_config_file(start: Path) -> Path | None:
    """The config file a run in `start` reads: the first of CONFIG_FILES present there."""
    return next(iter(config_files(start)), None)


def config_files(start: Path) -> list[Path]:
    """Every config file present in `start`, in CONFIG_FILES' order (the first is the one used)."""
    found = []
    for name in CONFIG_FILES:
        candidate = start / name
        # Present counts, not only "a regular file": a linkfix.yml that is a FIFO or a link to
        # /dev/zero is refused by name when read, not skipped for the defaults.
        if os.path.lexists(candidate) and not candidate.is_dir():
            if name == "pyproject.toml" and not _pyproject_section(candidate):
                continue
            found.append(candidate)
    return found


def _named(path: Path) -> str:
    """A config file as a message names it: `[tool.linkfix] in pyproject.toml` for the table."""
    return f"[tool.linkfix] in {display_path(path)}" if path.name == "pyproject.toml" else display_path(path)


def _toml(path: Path) -> dict[str, Any]:
    import tomllib  # here: most runs read no TOML file

    try:
        return tomllib.loads(read_bytes(path, limit=MAX_CONFIG_BYTES).decode("utf-8"))
    except Unreadable as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None


def _pyproject_section(path: Path) -> dict[str, Any] | None:
    """The [tool.linkfix] table of a TOML file, None where it has none."""
    tool = _toml(path).get("tool", {})
    section = tool.get("linkfix") if isinstance(tool, dict) else None
    if section is None or isinstance(section, dict):
        return section
    raise ConfigError(f"{path}: [tool.linkfix] is not a table")


def read_config_file(path: Path) -> dict[str, Any]:
    """Raw key/value pairs from a linkfix.yml or a pyproject.toml [tool.linkfix] table."""
    if path.name == "pyproject.toml" or path.suffix == ".toml":
        section = _pyproject_section(path)
        if section is None:
            # A dedicated linkfix.toml holds the keys at its top level.
            section = _toml(path) if path.name != "pyproject.toml" else {}
        return dict(section)
    from ..files.yamlfile import YamlRefused, read_yaml  # PyYAML loads only when a YAML file is read

    try:
        data = read_yaml(path)
    except YamlRefused as exc:
        raise ConfigError(exc.at(display_path(path))) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{display_path(path)}: expected a mapping of keys to values, got {type(data).__name__}")
    return data


def coerce(name: str, value: Any, where: str) -> Any:
    """Key `name`'s value from `where` (a file, a flag), checked against its declared type and
    its syntax, and returned as that type. ConfigError names where and the key (the full path
    for nested settings)."""
    types = key_types()
    if name not in types:
        hint = difflib.get_close_matches(name, types, n=1)
        suggestion = f" (did you mean '{hint[0]}'?)" if hint else ""
        raise ConfigError(f"{where}: unknown key '{name}'{suggestion}")
    try:
        value = convert(value, types[name], name)
    except Invalid as exc:
        if where.startswith("--") and exc.path == name:
            raise ConfigError(f"{where}: {exc.problem}") from None  # `--timeout: expects ...`
        raise ConfigError(f"{where}: {exc}") from None
    try:
        check_syntax(name, value)
    except ConfigError as exc:
        message = str(exc)
        if where.startswith("--"):  # the flag names the key: `--format: unknown format`, not `--format: format: ...`
            message = re.sub(rf"^{re.escape(name)}(\[\d+\])?: ", "", message)
        raise ConfigError(f"{where}: {message}") from None
    return value


def parse_flag_value(name: str, text: str) -> Any:
    """Turn a command-line string into the key's type (JSON for nested settings)."""
    if key_kind(name) == "json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"--{name.replace('_', '-')}: expects JSON: {exc}") from exc
        except RecursionError:
            raise ConfigError(f"--{name.replace('_', '-')}: expects JSON: nested too deeply") from None
    return text


def load_config(
    *,
    explicit: Path | None = None,
    search_dir: Path | None = None,
    overrides: dict[str, Any] | None = None,
) -> Config:
    """Build the effective Config: defaults, then the file, then flag overrides.

    Found by search, the first config file present is used; another one beside it (a
    `[tool.linkfix]` table beside linkfix.yml) is named in a warning, and read all the same:
    whoever wrote it believes it applies, so a value in it that is wrong is an error, not
    something that passes unseen because the other file won."""
    found = [explicit] if explicit is not None else config_files(search_dir or Path.cwd())
    if explicit is not None and not (os.path.lexists(explicit) and not explicit.is_dir()):
        raise ConfigError(f"--config: no such file: {explicit}")
    values: dict[str, Any] = {}
    config_dir = "."
    if found:
        path, unused = found[0], found[1:]
        config_dir = str(path.parent)
        values = _file_values(path)
        for other in unused:
            try:
                _file_values(other)
            except ConfigError as exc:
                raise ConfigError(f"{exc} ({_named(other)} is not used: {_named(path)} is; fix or remove it)") from None
            log.warning("%s is not used: %s is (the first of %s); remove one, or give --config", _named(other), _named(path),
                        ", ".join(CONFIG_FILES))
    for key, value in (overrides or {}).items():
        values[key] = coerce(key, value, f"--{key.replace('_', '-')}")
    config = Config(**values, config_dir=config_dir)
    validate(config)
    return config


def _file_values(path: Path) -> dict[str, Any]:
    """A config file's keys, each checked against its type and its syntax, and none a key only
    the runner may set."""
    values: dict[str, Any] = {}
    where = display_path(path)
    for key, value in read_config_file(path).items():
        values[str(key)] = coerce(str(key), value, where)
        refuse_runner_only(str(key), values[str(key)], where, path.parent, written=value)
    return values


def validate(config: Config) -> None:
    """The checks a type cannot express, for a Config built in code (the plugin's): each
    key's syntax, and keys that must agree."""
    for name in _SYNTAX_CHECKED:
        check_syntax(name, getattr(config, name))
    if len(config.output) > len(config.format):
        raise ConfigError("output: more output files than formats")


_SYNTAX_CHECKED = ("exclude", "include", "exclude_path", "remap", "accept", "max_cache_age", "format")


def check_syntax(name: str, value: Any) -> None:
    """What a type cannot express: regexes compile, remap rules apply, accept ranges and
    durations read, formats exist. ConfigError names the key."""
    if name in ("exclude", "include", "exclude_path"):
        from .patterns import PatternError, repository_pattern

        for pattern in value:
            try:
                repository_pattern(pattern, origin=f"the config's {name}")
            except PatternError as exc:
                raise ConfigError(f"{name}: invalid regex {pattern!r}: {exc}") from exc
    elif name == "remap":
        for index, rule in enumerate(value):
            check_remap_rule(rule, f"remap[{index}]")
    elif name == "accept":
        parse_accept(value)
    elif name == "max_cache_age":
        parse_duration(value, name)  # kept as written: read where it is used
    elif name == "format":
        unknown = [f for f in value if f not in FORMAT_NAMES]
        if unknown:
            raise ConfigError(f"format: unknown format '{unknown[0]}' (choose from {', '.join(sorted(FORMAT_NAMES))})")


def check_remap_rule(rule: str, key: str = "remap") -> None:
    """A 'REGEX REPLACEMENT' rule whose regex compiles and whose replacement can be applied:
    it is expanded against a match of every group of the regex, so that a `\\3` the regex does
    not have, or a bad escape, is an error now and not a traceback at the first request."""
    parts = rule.split(maxsplit=1)
    if len(parts) != 2:
        raise ConfigError(f"remap: expected 'REGEX REPLACEMENT', got {rule!r}")
    from .patterns import PatternError, repository_pattern

    try:
        repository_pattern(parts[0], origin="the config's remap")
        pattern = re.compile(parts[0])  # (for its groups, and the replacement's check below, as `re` reads them)
    except (PatternError, re.error) as exc:
        raise ConfigError(f"remap: invalid regex {parts[0]!r}: {exc}") from exc
    names = {index: name for name, index in pattern.groupindex.items()}
    sample = "".join(f"(?P<{names[i]}>)" if i in names else "()" for i in range(1, pattern.groups + 1))
    empty_groups = re.compile(sample).match("")
    assert empty_groups is not None  # groups that match nothing match the empty string
    try:
        empty_groups.expand(parts[1])
    except (re.error, IndexError) as exc:
        raise ConfigError(f"{key}: replacement {parts[1]!r} cannot be applied to {parts[0]!r}: {exc}") from None


_ACCEPT_ITEM = re.compile(r"^\s*(\d{3})\s*(?:\.\.(=?)\s*(\d{3}))?\s*$")


def parse_accept(items: list[str]) -> frozenset[int]:
    """lychee's accept syntax: '200..=299', '200..300' (exclusive end), '429', comma lists."""
    codes: set[int] = set()
    for item in items:
        for part in str(item).split(","):
            if not part.strip():
                continue
            m = _ACCEPT_ITEM.match(part)
            if not m:
                raise ConfigError(f"accept: cannot read {part.strip()!r} (use e.g. '200..=299, 429')")
            low = int(m.group(1))
            high = int(m.group(3)) if m.group(3) else low
            if m.group(3) and not m.group(2):
                high -= 1  # Rust-style exclusive range
            codes.update(range(low, high + 1))
    return frozenset(codes)


