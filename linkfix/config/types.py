"""The value types of configuration keys, with their constraints, and the per-host settings.

Each constrained type says in `extra["expects"]` how an error message names it when the
constraint alone would read badly ("a string matching ^[^\\x00-...]"); plain numbers are
described from their bounds (see `convert.describe`).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, UnsetType

from .durations import DURATION_PATTERN, DURATION_UNIT

Count = Annotated[int, Meta(ge=1)]  # where 0 means nothing useful (connections, runs)
Whole = Annotated[int, Meta(ge=0)]
# Durations: a number in the key's unit, or a string with its own ('10s', '36h': durations.py),
# read before the constraint is checked; the schema takes both. They are finite and bounded: a
# file in the checked repository may set them, and `.inf` (YAML's infinity) would hold a host,
# a request or a broken link's recovery for ever.
_DURATION_SCHEMA = {"pattern": DURATION_PATTERN}  # schema.py adds the string type
MAX_SECONDS = 3600
Seconds = Annotated[float, Meta(ge=0, le=MAX_SECONDS, extra={DURATION_UNIT: "s", "expects": "a number of seconds from 0 to 3600 or a duration "
                                                                                        "such as 500ms, 10s, 2m (at most 1h)"},
                                 extra_json_schema=_DURATION_SCHEMA)]
PositiveSeconds = Annotated[float, Meta(gt=0, le=MAX_SECONDS, extra={DURATION_UNIT: "s", "expects": "a number of seconds > 0 and <= 3600 or a "
                                                                                                "duration such as 500ms, 10s, 2m (at most 1h)"},
                                         extra_json_schema=_DURATION_SCHEMA)]
RequestSeconds = Annotated[float, Meta(gt=0, le=300, extra={DURATION_UNIT: "s", "expects": "a number of seconds > 0 and <= 300 or a duration "
                                                                                       "such as 500ms, 10s, 2m (at most 5m)"},
                                        extra_json_schema=_DURATION_SCHEMA)]  # one request: five minutes at most
Days = Annotated[float, Meta(ge=0, le=3650, extra={DURATION_UNIT: "d", "expects": "a number of days from 0 to 3650 or a duration such as 12h, 2d, 1w"},
                              extra_json_schema=_DURATION_SCHEMA)]
Fraction = Annotated[float, Meta(ge=0, le=1)]
# Retries and redirects multiply the requests one link costs: a URL gets at most
# (1 + retries) x (1 + redirects) of them, each at most `timeout` long.
Retries = Annotated[int, Meta(ge=0, le=10)]
Redirects = Annotated[int, Meta(ge=0, le=20)]  # what browsers follow (Chrome, Firefox: 20)

# Headers of the connection and the message's framing are linkfix's (and the HTTP client's) to
# set: a configured Host would send a request for one site to another's address (and past the
# address checks, which judge the URL's host); Content-Length or Transfer-Encoding would frame
# the request wrongly (request smuggling through a proxy); Proxy-* would speak to the user's proxy.
RESERVED_HEADERS = ("Host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Proxy-Connection",
                    "Proxy-Authorization", "TE", "Trailer", "Upgrade", "Expect")


def _any_case(name: str) -> str:
    """`name` as a regex matching it in any letter case (no inline flags: JSON schema regexes
    are ECMA 262, which editors read without them)."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in name)


# RFC 9110 token, not one of RESERVED_HEADERS; a value may hold any text but control characters:
# a CR or LF in a header would end it early (every request then fails, or carries a header of
# the config's making).
HeaderName = Annotated[str, Meta(pattern=rf"^(?!(?:{'|'.join(map(_any_case, RESERVED_HEADERS))})$)[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
                                 extra={"expects": "an HTTP header name (letters, digits, - and !#$%&'*+.^_`|~) other than "
                                                   + ", ".join(RESERVED_HEADERS) + ", which linkfix sets itself"})]
HeaderValue = Annotated[str, Meta(pattern=r"^[^\x00-\x08\x0a-\x1f\x7f-\x9f]*$",
                                  extra={"expects": "text without control characters (no CR, LF or other control codes)"})]
# The names per-host settings are looked up by: a URL's host, without scheme, port or path.
# International names (bücher.example, full-width letters) are hosts too: the checker looks
# them up as the HTTP client spells them (linkfix.urls.normalise_host).
HostName = Annotated[str, Meta(pattern=r"^(?:[^\s/?#@:\[\]\\.-](?:[^\s/?#@:\[\]\\]*[^\s/?#@:\[\]\\.-])?|[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*)$",
                               extra={"expects": "a host name such as docs.example.com (no scheme, port or path)"})]
HttpUrl = Annotated[str, Meta(pattern=r"^https?://[^\s/?#]+\S*$", extra={"expects": "an http(s):// URL"})]
OptionalHttpUrl = Annotated[str, Meta(pattern=r"^(?:https?://[^\s/?#]+\S*)?$", extra={"expects": "an http(s):// URL or ''"})]
# network_probe: a host name that must resolve, an http(s) URL that must answer, or '' (off).
NetworkProbe = Annotated[str, Meta(pattern=r"^(?:https?://[^\s/?#]+\S*|[^\s/?#@:\[\]\\.-](?:[^\s/?#@:\[\]\\]*[^\s/?#@:\[\]\\.-])?)?$",
                                   extra={"expects": "a host name, an http(s):// URL, or ''"})]
NetworkDownPolicy = Annotated[str, Meta(pattern=r"^(?:fail|warn)$", extra={"expects": "fail or warn"})]
GeneratorName = Annotated[str, Meta(pattern=r"^(?:auto|mkdocs|properdocs|zensical)$", extra={"expects": "auto, mkdocs, properdocs or zensical"})]
HostingName = Annotated[str, Meta(pattern=r"^(?:auto|github-pages|netlify|cloudflare|vercel|plain)$",
                                  extra={"expects": "auto, github-pages, netlify, cloudflare, vercel or plain"})]
# A duration kept as written (max_cache_age: '1d'), read where it is used by durations.parse_duration.
Duration = Annotated[str, Meta(extra={DURATION_UNIT: "s", "expects": "a duration such as 30m, 12h, 2d (a bare number: seconds)"},
                               extra_json_schema=_DURATION_SCHEMA)]
EnvName = Annotated[str, Meta(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", extra={"expects": "an environment variable name"})]


class Settings(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, frozen=True):
    """Nested settings (a host's, a provider's), read through their typed attributes."""


# Subclasses say frozen=True again: msgspec inherits it, type checkers (dataclass_transform) do not.
# A host's settings: unset keys are UNSET, so that code can tell "not given" (take the global
# key's value) from a value; `get` reads them that way.
class HostSettings(Settings, frozen=True):
    concurrency: Annotated[Count, Meta(description="connections to this host at once (default: host_concurrency)")] | UnsetType = UNSET
    request_interval: Annotated[Seconds, Meta(description="seconds between two requests to this host (default: request_interval)")] | UnsetType = UNSET
    headers: Annotated[dict[HeaderName, HeaderValue], Meta(description="extra request headers sent to this host only")] = {}

    def get(self, key: str, default: Any = None) -> Any:
        """The value of `key`, or `default` (the global key's value) when it is not set."""
        value = getattr(self, key, UNSET)
        return default if value is UNSET else value
# cache_url: a Redis server (redis://, rediss:// for TLS, unix:// for a socket), or '' for none. No
# user or password in it: a URL is shown in logs and written in workflow files; they come from the
# environment (store/shared.py).
CacheUrl = Annotated[str, Meta(pattern=r"^(?:(?:rediss?|unix)://[^\s@]+)?$",
                               extra={"expects": "a redis://, rediss:// or unix:// URL without a user or password (those come from "
                                                 "LINKFIX_CACHE_USERNAME and LINKFIX_CACHE_PASSWORD), or ''"})]
