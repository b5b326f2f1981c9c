"""Pure judgement: an HTTP answer (or a network failure) -> a Status with a short reason.

No I/O here, so every rule is unit-testable without a server. `http.py` does the talking and
asks this module what the answer means and what to do next (retry, fall back to GET, wait).
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..model import AnyReason, Reason, Redirect, Status
from ..urls import is_site_root

PERMANENT_REDIRECTS = frozenset({301, 308})
REDIRECTS = frozenset({301, 302, 303, 307, 308})
GONE = frozenset({404, 410})
# Statuses that mean "try again later": retried with backoff, then reported as ERROR.
RETRYABLE = frozenset({500, 502, 503, 504, 520, 521, 522, 523, 524, 408})
# Answers to HEAD that say nothing about the page: ask again with GET.
HEAD_UNRELIABLE = frozenset({400, 403, 404, 405, 406, 409, 410, 500, 501, 502, 503, 999})
# Hosts known to answer HEAD wrongly (405, 404, 403 or an empty 200) while GET works.
GET_ONLY_HOSTS = frozenset(
    {
        "www.amazon.com",
        "amazon.com",
        "www.linkedin.com",
        "linkedin.com",
        "medium.com",
        "twitter.com",
        "x.com",
        "www.npmjs.com",
        "npmjs.com",
        "www.reddit.com",
    }
)
# The longest Retry-After honoured: a longer one is not waited for, the answer is final at once.
MAX_RETRY_AFTER = 60.0
CHALLENGE_STATUSES = frozenset({401, 403, 429, 503, 999})  # answers an anti-bot wall may give

_BOT_HEADERS = ("cf-mitigated", "x-datadome", "x-amzn-waf-action", "x-px-block", "x-sucuri-block")
_BOT_BODY = re.compile(
    r"captcha|cf-chl|challenge-platform|just a moment\.\.\.|attention required|"
    r"are you a robot|are you human|bot detection|access denied|px-captcha|ddos-guard|"
    r"verify you are human|unusual traffic",
    re.IGNORECASE,
)
_NOT_FOUND_URL = re.compile(r"(?:^|[/_.\-=?&])(?:404|not[-_]?found|page[-_]?not[-_]?found|error404)(?:$|[/_.\-=?&])", re.IGNORECASE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    status: Status
    reason: AnyReason
    detail: str = ""


def is_bot_challenge(status: int, headers: Mapping[str, str], body: str = "") -> bool:
    """An anti-bot wall: the page may well exist, we just cannot see it."""
    if status == 999:  # LinkedIn's "request denied"
        return True
    if status not in CHALLENGE_STATUSES:
        return False
    lowered = {k.lower(): v for k, v in headers.items()}
    if any(name in lowered for name in _BOT_HEADERS):
        return True
    server = lowered.get("server", "").lower()
    if status in (403, 503) and server in ("cloudflare", "ddos-guard", "akamaighost", "sucuri/cloudproxy"):
        return True
    return bool(body) and bool(_BOT_BODY.search(body[:20000]))


def head_is_trusted(host: str) -> bool:
    """False for hosts whose HEAD answers are known to be wrong: go straight to GET."""
    return host.lower() not in GET_ONLY_HOSTS


def should_retry_with_get(status: int) -> bool:
    """HEAD answers that must be confirmed with GET before they count."""
    return status in HEAD_UNRELIABLE


def is_retryable(status: int) -> bool:
    return status in RETRYABLE or status == 429


def parse_retry_after(value: str | None, *, now: float | None = None, cap: float = MAX_RETRY_AFTER) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date), capped."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return min(float(value), cap)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    delta = when.timestamp() - (time.time() if now is None else now)
    return min(max(delta, 0.0), cap)


def judge_status(
    status: int,
    headers: Mapping[str, str],
    *,
    accept: frozenset[int],
    blocked_is_broken: bool = False,
    body: str = "",
) -> Verdict:
    """The meaning of a final (non-redirect) HTTP status."""
    if status in accept:
        return Verdict(status=Status.OK, reason=Reason.http(status))
    if is_bot_challenge(status, headers, body):
        return _blocked(Reason.BOT_CHALLENGE, f"HTTP {status}: an anti-bot challenge answered", blocked_is_broken)
    if status in (401, 403, 407, 429, 999):
        return _blocked(Reason.http(status), f"HTTP {status}: the server refused to show the page to a robot", blocked_is_broken)
    if status in GONE:
        return Verdict(status=Status.BROKEN, reason=Reason.http(status), detail=f"HTTP {status}: the page is gone")
    if 500 <= status <= 599 or status in RETRYABLE:
        return Verdict(status=Status.ERROR, reason=Reason.http(status), detail=f"HTTP {status}: server error (after retries)")
    if 400 <= status <= 499:
        return Verdict(status=Status.BROKEN, reason=Reason.http(status), detail=f"HTTP {status}")
    if 200 <= status <= 299:
        # 2xx outside `accept`: the user said it does not count.
        return Verdict(status=Status.BROKEN, reason=Reason.http(status), detail=f"HTTP {status} is not in accept")
    return Verdict(status=Status.ERROR, reason=Reason.http(status), detail=f"unexpected HTTP status {status}")


def _blocked(reason: AnyReason, detail: str, blocked_is_broken: bool) -> Verdict:
    if blocked_is_broken:
        return Verdict(status=Status.BROKEN, reason=reason, detail=detail)
    return Verdict(status=Status.BLOCKED, reason=reason, detail=detail)


def is_permanent(chain: tuple[Redirect, ...]) -> bool:
    return bool(chain) and all(hop.status in PERMANENT_REDIRECTS for hop in chain)


def judge_redirect_target(original: str, final: str) -> Verdict | None:
    """A redirect that ends on the home page or on a not-found URL hides a dead page."""
    if is_site_root(final) and not is_site_root(original):
        return Verdict(status=Status.BROKEN, reason=Reason.REDIRECT_TO_HOME, detail=f"redirected to the site's home page {final}")
    path_and_query = urlsplit(final)._replace(scheme="", netloc="", fragment="").geturl()
    if _NOT_FOUND_URL.search(path_and_query) and not _NOT_FOUND_URL.search(
        urlsplit(original)._replace(scheme="", netloc="", fragment="").geturl()
    ):
        return Verdict(status=Status.BROKEN, reason=Reason.REDIRECT_TO_404, detail=f"redirected to a not-found page {final}")
    return None


def judge_network_error(kind: Reason, detail: str) -> Verdict:
    """Failures without an HTTP answer. `kind` is the code the transport derived."""
    if kind == Reason.DNS:
        return Verdict(status=Status.BROKEN, reason=Reason.DNS, detail=detail or "the host name does not exist")
    if kind == Reason.TIMEOUT:
        return Verdict(status=Status.TIMEOUT, reason=Reason.TIMEOUT, detail=detail or "no answer in time")
    if kind == Reason.INVALID_URL:
        return Verdict(status=Status.BROKEN, reason=Reason.INVALID_URL, detail=detail)
    if kind == Reason.REQUEST_BUDGET:  # not sent: the runner's limit, like --offline
        return Verdict(status=Status.EXCLUDED, reason=Reason.REQUEST_BUDGET, detail=detail)
    return Verdict(status=Status.ERROR, reason=kind, detail=detail)


def backoff_delay(attempt: int, *, base: float, cap: float = 30.0, jitter: float = 0.0) -> float:
    """Exponential backoff; `jitter` in [0, 1) is the random fraction drawn by the caller."""
    return min(cap, base * 2.0**attempt) * (1.0 + jitter)
