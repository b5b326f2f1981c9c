"""`Config`: every configuration key, declared once — its type and constraints (the annotation),
its default, its `--help` group and help text.

The command line builds one flag per key from these declarations, the mkdocs plugin one option
per key, `convert` checks values against the annotations (path-aware errors), and `schema`
turns them into the JSON schema of linkfix.yml: nothing about a key is written twice. Names
follow lychee's where the meaning is the same.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import ConfigError
from ..urls import normalise_host
from .convert import Invalid, convert, duration_unit
from .providers import ArchiveSettings, SearchSettings, SiteSettings, WaybackSettings
from .types import (
    CacheUrl,
    Count,
    Days,
    Duration,
    Fraction,
    GeneratorName,
    HeaderValue,
    HostingName,
    HostName,
    HostSettings,
    NetworkDownPolicy,
    NetworkProbe,
    OptionalHttpUrl,
    PositiveSeconds,
    Redirects,
    RequestSeconds,
    Retries,
    Seconds,
    Settings,
    Whole,
)

#: The report formats a run can write (`format`). Named here, below the report stage, so that the
#: config can check a name without importing the formats; `linkfix.report` maps each to its module.
FORMAT_NAMES: tuple[str, ...] = ("text", "json", "markdown", "github", "junit", "sarif", "html")

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
    root_dir: str = _key("", INPUT, "site root for root-relative links (/x.html); default: the input directory (for a list of "
                         "files: their MkDocs docs_dir, else the git work tree's top, else their common directory)")
    base_url: OptionalHttpUrl = _key("", INPUT, "URL the site is published at; links under it are checked as local files")
    exclude_path: list[str] = _key(list, INPUT, "regex of paths not to read (repeatable)", factory=True)
    gitignore: bool = _key(True, INPUT, "skip files matched by .gitignore (a directory named as an input is never hidden)")
    generator: GeneratorName = _key("auto", INPUT, "which generator builds the site, for its rules: mkdocs, properdocs, zensical, "
                                    "or auto (the config's name, then the build steps and dependencies that name one)")
    host: HostingName = _key("auto", INPUT, "who serves the built site, for what only the host decides (`/page` for page.html, its "
                             "redirect files): github-pages, netlify, cloudflare (they serve /page), vercel (with cleanUrls), "
                             "plain (a file server: it does not), or auto (what the project says: .nojekyll, netlify.toml, "
                             "_redirects, the site's URL, ...; else plain)")
    trust_project_code: bool = _key(False, INPUT, "let rendering run the checked project's own code, as `mkdocs build` does "
                                    "(YAML tags that call functions, extensions and names imported from the working tree); "
                                    "only for a repository you trust. Command line only, never from a config file")
    # filtering
    exclude: list[str] = _key(list, FILTER, "regex of links not to check: URLs as written, internal links as written or by site path (repeatable)", factory=True)
    include: list[str] = _key(list, FILTER, "regex of links to check even when excluded, matched as exclude is (repeatable)", factory=True)
    include_fragments: bool = _key(True, FILTER, "check #fragments against the target's ids")
    accept: list[str] = _key(lambda: ["200..=299"], FILTER, "HTTP statuses that count as ok, e.g. '200..=299, 429'", factory=True)
    remap: list[str] = _key(list, FILTER, "'REGEX REPLACEMENT' rewrite applied to every request, and to internal links as written or by site path (repeatable)", factory=True)
    allow_private: bool = _key(False, FILTER, "check links to loopback/private/link-local addresses")
    # network
    offline: bool = _key(False, NETWORK, "check only internal links and fragments; never touch the network")
    max_concurrency: Count = _key(64, NETWORK, "requests in flight at once, over all hosts")
    host_concurrency: Count = _key(8, NETWORK, "connections to one host at once (a guarantee)")
    request_interval: Seconds = _key(0.0, NETWORK, "seconds between two requests to one host")
    timeout: RequestSeconds = _key(20.0, NETWORK, "seconds for one request (at most 300)")
    max_retries: Retries = _key(2, NETWORK, "retries for timeouts, resets and 5xx (at most 10)")
    max_redirects: Redirects = _key(10, NETWORK, "longest redirect chain followed (at most 20)")
    user_agent: HeaderValue = _key("linkfix (+https://pypi.org/project/linkfix/)", NETWORK, "User-Agent header")
    hosts: dict[HostName, HostSettings] = _key(dict, NETWORK, "per-host settings: {host: {concurrency, request_interval, headers}} (JSON on the command line)", factory=True)
    blocked_is_broken: bool = _key(False, NETWORK, "report bot-blocked links (403/429/999) as broken")
    network_probe: NetworkProbe = _key("example.com", NETWORK, "a host name that must resolve before 'host name not found' "
                                       "counts as a dead link, or a URL that must answer before any request; '' for neither")
    network_down: NetworkDownPolicy = _key("fail", NETWORK, "when the network is down: fail (stop, exit 2) or warn (external "
                                           "links reported not checked; internal links still checked)")
    # cache
    cache: bool = _key(True, CACHE, "keep results between runs")
    cache_dir: str = _key(".linkfix-cache", CACHE, "where the cache lives (relative to the config file)")
    max_cache_age: Duration = _key("1d", CACHE, "how long an ok result stays fresh (e.g. 30m, 12h, 2d)")
    cache_url: CacheUrl = _key("", CACHE, "a Redis server that many runs share results, one check per URL and per-host limits "
                               "through, e.g. redis://cache.internal:6379/0 (rediss:// for TLS); user and password from "
                               "LINKFIX_CACHE_USERNAME and LINKFIX_CACHE_PASSWORD. Command line only, never from a config file")
    # recovery
    suggest: bool = _key(False, RECOVERY, "find replacements for broken links (internal ones from the project itself, offline too)")
    archive: list[ArchiveSettings] = _key(lambda: [WaybackSettings()], RECOVERY, "archive providers (JSON list on the command line)", factory=True)
    search: list[SearchSettings] = _key(lambda: [SiteSettings()], RECOVERY, "search providers (JSON list on the command line)", factory=True)
    expansion_terms: Whole = _key(10, RECOVERY, "terms used to expand the anchor-text query")
    hits_per_query: Count = _key(10, RECOVERY, "search results taken from each query")
    similarity: Fraction = _key(0.9, RECOVERY, "similarity to the archived copy that counts as the same page")
    max_queries: Whole = _key(20, RECOVERY, "search queries per broken link")
    max_fetches: Whole = _key(20, RECOVERY, "candidate pages fetched per broken link")
    max_seconds: PositiveSeconds = _key(30.0, RECOVERY, "seconds spent recovering one broken link")
    archive_seconds: Seconds = _key(60.0, RECOVERY, "seconds a run waits for the archive's rate limits; lookups past them are deferred to a later run")
    archive_wait: bool = _key(False, RECOVERY, "wait for every archive lookup at the archive's pace (a one-off audit), never defer one")
    # output
    format: list[str] = _key(lambda: ["text"], OUTPUT, "report format(s): text, json, markdown, html, sarif, junit, github (repeatable)", factory=True)
    output: list[str] = _key(list, OUTPUT, "file for each --format, in the same order; '-' or none is stdout (repeatable)", factory=True)
    # fixing
    min_confidence: Fraction = _key(0.0, FIX, "apply suggestions at or above this confidence (0: the calibrated default)")
    confirm_runs: Count = _key(1, FIX, "runs a link must have been broken in before it is rewritten")
    confirm_days: Days = _key(0.0, FIX, "days between the first and the latest broken run before a rewrite")

    # Not keys: where the file was found, so relative paths in it mean what they say.
    config_dir: str = field(default=".", metadata={"internal": True})

    def __post_init__(self) -> None:
        # Code and tests may pass plain mappings for the nested settings; the run always sees
        # the typed ones (checked like a file's, ConfigError naming the key).
        for name in NESTED:
            value = getattr(self, name)
            if not _all_typed(value):
                setattr(self, name, typed(value, name))

    @classmethod
    def key_fields(cls) -> list[dataclasses.Field[Any]]:
        """The fields that are configuration keys (not the internal ones), in declaration order."""
        return [f for f in dataclasses.fields(cls) if not f.metadata.get("internal")]

    def host_settings(self, host: str) -> HostSettings:
        """The `hosts` settings of `host` as the HTTP client spells it (`linkfix.urls.normalise_host`),
        however the config spells it; none set when it has none."""
        for name, settings in self.hosts.items():
            if normalise_host(str(name)) == host:
                return settings
        return HostSettings()

    def path(self, value: str) -> Path:
        """A path from the config, relative to the config file's directory."""
        p = Path(value).expanduser()
        return p if p.is_absolute() else Path(self.config_dir) / p


NESTED = ("hosts", "archive", "search")  # keys whose values hold typed settings


def typed(value: Any, name: str) -> Any:
    """Key `name`'s value converted to its declared type (ConfigError when it does not fit)."""
    try:
        return convert(value, key_types()[name], name)
    except Invalid as exc:
        raise ConfigError(str(exc)) from None


def _all_typed(value: Any) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return isinstance(value, (dict, list)) and all(isinstance(item, Settings) for item in items)


@functools.cache
def key_types() -> dict[str, Any]:
    """Each key's declared type, with its constraints (typing.Annotated kept)."""
    hints = typing.get_type_hints(Config, include_extras=True)
    return {f.name: hints[f.name] for f in Config.key_fields()}


FlagKind = Literal["bool", "int", "float", "duration", "str", "list", "json"]


def key_kind(name: str) -> FlagKind:
    """How the command line spells a key's value: a switch, a number, a string, a repeatable
    string, or JSON (nested settings)."""
    kind = key_types()[name]
    if duration_unit(kind):
        return "duration"
    while typing.get_origin(kind) is typing.Annotated:
        kind = typing.get_args(kind)[0]
    if kind is bool:
        return "bool"
    if kind is int:
        return "int"
    if kind is float:
        return "float"
    if kind is str:
        return "str"
    if kind == list[str]:
        return "list"
    return "json"
