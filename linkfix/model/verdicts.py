"""What a check says of one target: the closed Status set, and why (the Reason codes and the two
open families, an HTTP status code and a URL scheme)."""

from __future__ import annotations

import re
from enum import StrEnum


class Status(StrEnum):
    """The closed set of outcomes for one checked target."""

    OK = "ok"
    REDIRECTED = "redirected"  # works, but through a redirect chain (see CheckResult.redirects)
    BROKEN = "broken"  # 404/410, DNS name not found, soft-404, missing fragment/file, escapes root
    BLOCKED = "blocked"  # 403/429/999, bot challenge: unverifiable, not broken by default
    TIMEOUT = "timeout"
    ERROR = "error"  # 5xx after retries, TLS, connection refused/reset
    EXCLUDED = "excluded"  # by config (exclude regex, private address, --offline)
    UNSUPPORTED = "unsupported"  # scheme we do not check
    # Could not be verified without building the site: the target is made at build time (an
    # id a `:::` block renders, a URL a template fills in). Not failing; reported and counted.
    UNVERIFIED = "unverified"


#: Statuses that make `linkfix check` exit 1.
FAILING = frozenset({Status.BROKEN})


class Reason(StrEnum):
    """Why a target has its status: the short code reports and the JSON carry. A closed set.

    A str, so it compares, hashes and serialises as the very strings reports always had. Two
    families are open, and are no members: an HTTP status (`Reason.http(404)`, an `HttpReason`
    "404"; the status class is the result's `status`, the number its `http_status`) and the
    scheme of a link that is not checked (`Reason.scheme("mailto")`, a `SchemeReason`).
    `CheckResult.reason` holds any of the three (`AnyReason`); `parse_reason` reads one back.
    """

    NONE = ""
    # redirected
    PERMANENT = "permanent"  # every hop 301/308
    TEMPORARY = "temporary"
    MKDOCS_REDIRECT = "mkdocs-redirect"
    HOST_REDIRECT = "host-redirect"  # the site's host redirects it (vercel.json, _redirects, netlify.toml)
    # broken
    DNS = "dns"  # the host name does not exist
    SOFT_404 = "soft-404"
    MISSING_FRAGMENT = "missing-fragment"
    MISSING_FILE = "missing-file"
    NO_SOURCE = "no-source"  # an image with no source (`<img src="">`, or neither src nor srcset)
    OUTSIDE_ROOT = "outside-root"
    INVALID_URL = "invalid-url"
    BAD_REDIRECT = "bad-redirect"
    REDIRECT_LOOP = "redirect-loop"
    TOO_MANY_REDIRECTS = "too-many-redirects"
    REDIRECT_TO_HOME = "redirect-to-home"
    REDIRECT_TO_404 = "redirect-to-404"
    # blocked
    BOT_CHALLENGE = "bot-challenge"
    # timeout, error: no HTTP answer (also the codes of a failed exchange)
    TIMEOUT = "timeout"
    DNS_ERROR = "dns-error"  # resolving failed for another reason than "no such name"
    TLS = "tls"
    CONNECTION = "connection"
    NO_ROUTE = "no-route"  # connecting failed: this machine has no route to the network
    RESET = "reset"
    PROTOCOL = "protocol"
    ERROR = "error"
    INTERNAL = "internal"  # linkfix itself failed on this URL
    NETWORK_DOWN = "network-down"  # not checked: the network is down (network_down: warn)
    # excluded, unsupported
    OFFLINE = "offline"
    OUTSIDE_BUILD = "outside-build"  # under the site's URL, not in this build, not checked (offline)
    EXCLUDED = "excluded"  # matches an exclude pattern
    IGNORED = "ignored"  # an ignore comment or attribute in its source, or a pattern of an ignore file (.linkfixignore, .lycheeignore)
    REQUEST_BUDGET = "request-budget"  # not sent: the run's request budget was spent (--crawl-requests)
    PRIVATE_ADDRESS = "private-address"
    METADATA_ADDRESS = "metadata-address"
    NO_SCHEME = "no-scheme"
    # unverified (only the site's build can tell)
    BUILD_TIME_ID = "build-time-id"  # a fragment into a page whose build makes more ids (`:::` blocks, a hook)
    TEMPLATE = "template"  # the target is template text (`{{ ... }}`) a macros plugin fills in
    BUILD_TIME_FILE = "build-time-file"  # a file the build may make (a plugin, hook or script; a theme not installed here)
    REWRITTEN_AT_BUILD = "rewritten-at-build"  # a link on a page the build rewrites before rendering (a hook)
    INCLUDED_TEXT = "included-text"  # the target is made of an included file's text spliced into the page's: never fetched
    TOO_MANY_IDS = "too-many-ids"  # a fragment into a remote page with more ids than linkfix keeps (check.http.fragments)

    @staticmethod
    def http(status: int) -> HttpReason:
        """The reason for an HTTP status: its code ("404")."""
        return HttpReason(str(status))

    @staticmethod
    def scheme(name: str) -> SchemeReason:
        """The reason for a link whose scheme is not checked: the scheme ("mailto")."""
        return SchemeReason(name.lower())


class HttpReason(str):
    """The reason of a verdict on an HTTP answer: its status code, three digits ("404")."""

    __slots__ = ()

    def __new__(cls, value: str) -> HttpReason:
        if not (len(value) == 3 and value.isascii() and value.isdigit()):
            raise ValueError(f"not an HTTP status code: {value!r:.40}")
        return super().__new__(cls, value)


_SCHEME_NAME = re.compile(r"[a-z][a-z0-9+.-]*")


class SchemeReason(str):
    """The reason of a link that is not checked for its scheme: the scheme, lower case ("mailto")."""

    __slots__ = ()

    def __new__(cls, value: str) -> SchemeReason:
        if not _SCHEME_NAME.fullmatch(value):
            raise ValueError(f"not a URL scheme: {value!r:.40}")
        return super().__new__(cls, value)


#: What `CheckResult.reason` holds: a declared code or one of the two open families.
AnyReason = Reason | HttpReason | SchemeReason
_REASONS: dict[str, Reason] = {reason.value: reason for reason in Reason}


def parse_reason(value: str) -> AnyReason:
    """The reason `value` spells, as a report or the cache wrote it: a declared code, three
    digits, or a scheme's shape (lower case). ValueError for any other text."""
    declared = _REASONS.get(value)
    if declared is not None:
        return declared
    return HttpReason(value) if value[:1].isdigit() else SchemeReason(value)
