"""Configuration: defaults < linkfix.yml / [tool.linkfix] < command-line flags.

Every key is declared once, in `Config`, with its group and help text; the CLI builds its
flags from these declarations so that file keys and flags can never drift apart. Names follow
lychee's where the meaning is the same.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError

CONFIG_FILES = ("linkfix.yml", "linkfix.yaml", ".linkfix.yml", "pyproject.toml")

# Groups, in the order `linkfix --help` shows them.
INPUT, FILTER, NETWORK, CACHE, RECOVERY, OUTPUT, FIX = (
    "input",
    "filtering",
    "network",
    "cache",
    "recovery",
    "output",
    "fixing",
)
GROUPS = (INPUT, FILTER, NETWORK, CACHE, RECOVERY, OUTPUT, FIX)


def _key(default: Any, group: str, help: str, *, factory: bool = False) -> Any:
    meta = {"group": group, "help": help}
    if factory:
        return field(default_factory=default, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(slots=True, kw_only=True)
class Config:
    # input
    root_dir: str = _key("", INPUT, "site root for root-relative links (/x.html); default: the input directory")
    base_url: str = _key("", INPUT, "URL the site is published at; links under it are checked as local files")
    exclude_path: list[str] = _key(list, INPUT, "regex of paths not to read (repeatable)", factory=True)
    gitignore: bool = _key(True, INPUT, "skip files matched by .gitignore")
    # filtering
    exclude: list[str] = _key(list, FILTER, "regex of URLs not to check (repeatable)", factory=True)
    include: list[str] = _key(list, FILTER, "regex of URLs to check even when excluded (repeatable)", factory=True)
    include_fragments: bool = _key(True, FILTER, "check #fragments against the target's ids")
    accept: list[str] = _key(lambda: ["200..=299"], FILTER, "HTTP statuses that count as ok, e.g. '200..=299, 429'", factory=True)
    remap: list[str] = _key(list, FILTER, "'REGEX REPLACEMENT' rewrite applied to every request (repeatable)", factory=True)
    allow_private: bool = _key(False, FILTER, "check links to loopback/private/link-local addresses")
    # network
    offline: bool = _key(False, NETWORK, "check only internal links and fragments; never touch the network")
    max_concurrency: int = _key(64, NETWORK, "requests in flight at once, over all hosts")
    host_concurrency: int = _key(8, NETWORK, "connections to one host at once (a guarantee)")
    request_interval: float = _key(0.0, NETWORK, "seconds between two requests to one host")
    timeout: float = _key(20.0, NETWORK, "seconds for one request")
    max_retries: int = _key(2, NETWORK, "retries for timeouts, resets and 5xx")
    max_redirects: int = _key(10, NETWORK, "longest redirect chain followed")
    user_agent: str = _key("linkfix (+https://pypi.org/project/linkfix/)", NETWORK, "User-Agent header")
    hosts: dict = _key(dict, NETWORK, "per-host settings: {host: {concurrency, request_interval, headers}} (JSON on the command line)", factory=True)
    blocked_is_broken: bool = _key(False, NETWORK, "report bot-blocked links (403/429/999) as broken")
    network_probe: str = _key("", NETWORK, "URL that must answer, or the run stops as 'network down'")
    # cache
    cache: bool = _key(True, CACHE, "keep results between runs")
    cache_dir: str = _key(".linkfix-cache", CACHE, "where the cache lives (relative to the config file)")
    max_cache_age: str = _key("1d", CACHE, "how long an ok result stays fresh (e.g. 30m, 12h, 2d)")
    # recovery
    suggest: bool = _key(False, RECOVERY, "find replacements for broken links (internal ones from the project itself, offline too)")
    archive: list[dict] = _key(lambda: [{"provider": "wayback", "url": "https://web.archive.org"}], RECOVERY, "archive providers (JSON list on the command line)", factory=True)
    search: list[dict] = _key(lambda: [{"provider": "site"}], RECOVERY, "search providers (JSON list on the command line)", factory=True)
    expansion_terms: int = _key(10, RECOVERY, "terms used to expand the anchor-text query")
    hits_per_query: int = _key(10, RECOVERY, "search results taken from each query")
    similarity: float = _key(0.9, RECOVERY, "similarity to the archived copy that counts as the same page")
    max_queries: int = _key(20, RECOVERY, "search queries per broken link")
    max_fetches: int = _key(20, RECOVERY, "candidate pages fetched per broken link")
    max_seconds: float = _key(30.0, RECOVERY, "seconds spent recovering one broken link")
    # output
    format: list[str] = _key(lambda: ["text"], OUTPUT, "report format(s): text, json, markdown, html, sarif, junit, github (repeatable)", factory=True)
    output: list[str] = _key(list, OUTPUT, "file for each --format, in the same order; '-' or none is stdout (repeatable)", factory=True)
    # fixing
    min_confidence: float = _key(0.0, FIX, "apply suggestions at or above this confidence (0: the calibrated default)")
    confirm_runs: int = _key(1, FIX, "runs a link must have been broken in before it is rewritten")
    confirm_days: float = _key(0.0, FIX, "days between the first and the latest broken run before a rewrite")

    # Not keys: where the file was found, so relative paths in it mean what they say.
    config_dir: str = field(default=".", metadata={"internal": True})

    @classmethod
    def keys(cls) -> list[dataclasses.Field]:
        return [f for f in dataclasses.fields(cls) if not f.metadata.get("internal")]

    def path(self, value: str) -> Path:
        """A path from the config, relative to the config file's directory."""
        p = Path(value).expanduser()
        return p if p.is_absolute() else Path(self.config_dir) / p


def find_config_file(start: Path) -> Path | None:
    for name in CONFIG_FILES:
        candidate = start / name
        if candidate.is_file():
            if name == "pyproject.toml" and not _pyproject_section(candidate):
                continue
            return candidate
    return None


def _pyproject_section(path: Path) -> dict | None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    return data.get("tool", {}).get("linkfix")


def read_config_file(path: Path) -> dict[str, Any]:
    """Raw key/value pairs from a linkfix.yml or a pyproject.toml [tool.linkfix] table."""
    try:
        if path.name == "pyproject.toml" or path.suffix == ".toml":
            section = _pyproject_section(path)
            if section is None:
                # A dedicated linkfix.toml holds the keys at its top level.
                section = tomllib.loads(path.read_text(encoding="utf-8")) if path.name != "pyproject.toml" else {}
            return dict(section)
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of keys to values, got {type(data).__name__}")
    return data


def coerce(name: str, value: Any, where: str) -> Any:
    """Check one key's value against its declared type; return it normalised."""
    fields = {f.name: f for f in Config.keys()}
    if name not in fields:
        hint = difflib.get_close_matches(name, fields, n=1)
        suggestion = f" (did you mean '{hint[0]}'?)" if hint else ""
        raise ConfigError(f"{where}: unknown key '{name}'{suggestion}")
    kind = fields[name].type
    bad = ConfigError(f"{where}: key '{name}' expects {_describe(kind)}, got {value!r}")
    if kind == "bool":
        if isinstance(value, bool):
            return value
        raise bad
    if kind == "int":
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        raise bad
    if kind == "float":
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            return float(value)
        raise bad
    if kind == "str":
        if isinstance(value, str):
            return value
        raise bad
    if kind == "list[str]":
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list) and all(isinstance(v, (str, int)) for v in value):
            return [str(v) for v in value]
        raise bad
    if kind == "list[dict]":
        if isinstance(value, dict):
            value = [value]
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            return value
        raise bad
    if kind == "dict":
        if isinstance(value, dict):
            return value
        raise bad
    raise AssertionError(f"undeclared type {kind} for {name}")


def _describe(kind: str) -> str:
    return {
        "bool": "true or false",
        "int": "a whole number >= 0",
        "float": "a number >= 0",
        "str": "a string",
        "list[str]": "a list of strings",
        "list[dict]": "a list of mappings",
        "dict": "a mapping",
    }[kind]


def parse_flag_value(name: str, text: str) -> Any:
    """Turn a command-line string into the key's type (JSON for mappings)."""
    kind = next(f.type for f in Config.keys() if f.name == name)
    if kind in ("dict", "list[dict]"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"--{name.replace('_', '-')}: expects JSON: {exc}") from exc
    return text


def load_config(
    *,
    explicit: Path | None = None,
    search_dir: Path | None = None,
    overrides: dict[str, Any] | None = None,
) -> Config:
    """Build the effective Config: defaults, then the file, then flag overrides."""
    path = explicit if explicit is not None else find_config_file(search_dir or Path.cwd())
    if explicit is not None and not explicit.is_file():
        raise ConfigError(f"--config: no such file: {explicit}")
    values: dict[str, Any] = {}
    config_dir = "."
    if path is not None:
        config_dir = str(path.parent)
        for key, value in read_config_file(path).items():
            values[key] = coerce(str(key), value, str(path))
    for key, value in (overrides or {}).items():
        values[key] = coerce(key, value, f"--{key.replace('_', '-')}")
    config = Config(**values, config_dir=config_dir)
    validate(config)
    return config


def validate(config: Config) -> None:
    """Cross-field and format checks that name the offending key."""
    for key in ("exclude", "include", "exclude_path"):
        for pattern in getattr(config, key):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ConfigError(f"{key}: invalid regex {pattern!r}: {exc}") from exc
    for rule in config.remap:
        parts = rule.split(maxsplit=1)
        if len(parts) != 2:
            raise ConfigError(f"remap: expected 'REGEX REPLACEMENT', got {rule!r}")
        try:
            re.compile(parts[0])
        except re.error as exc:
            raise ConfigError(f"remap: invalid regex {parts[0]!r}: {exc}") from exc
    parse_accept(config.accept)
    parse_duration(config.max_cache_age, "max_cache_age")
    if config.host_concurrency < 1 or config.max_concurrency < 1:
        raise ConfigError("max_concurrency and host_concurrency must be at least 1")
    if not 0.0 <= config.min_confidence <= 1.0:
        raise ConfigError(f"min_confidence: expects a number from 0 to 1, got {config.min_confidence}")
    for host, settings in config.hosts.items():
        if not isinstance(settings, dict):
            raise ConfigError(f"hosts.{host}: expects a mapping")
        unknown = set(settings) - {"concurrency", "request_interval", "headers"}
        if unknown:
            raise ConfigError(f"hosts.{host}: unknown key '{sorted(unknown)[0]}'")
    formats = set(config.format)
    from .report import FORMATS  # late import: report depends on model only

    unknown_formats = formats - set(FORMATS)
    if unknown_formats:
        raise ConfigError(
            f"format: unknown format '{sorted(unknown_formats)[0]}' (choose from {', '.join(sorted(FORMATS))})"
        )
    if len(config.output) > len(config.format):
        raise ConfigError("output: more output files than formats")


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


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str, key: str) -> float:
    m = _DURATION.match(str(text))
    if not m:
        raise ConfigError(f"{key}: cannot read duration {text!r} (use e.g. 30m, 12h, 2d)")
    return float(m.group(1)) * _UNIT[m.group(2)]
