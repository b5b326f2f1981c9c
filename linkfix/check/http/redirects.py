"""Redirect chains, followed by hand: every hop recorded, every target judged before it is
requested (safety, loops, length), and the cookies the chain earns kept for that chain only.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urljoin

import aiohttp
import yarl

from ...config import Config
from ...model import Reason, Redirect, Status
from ...urls import hostname, normalise_url, request_host, split
from .. import policy
from ..netsafety import allowed, classify_host, refusal
from .hosts import CONTINUE, HostScheduler, Method, ReadLimit
from .transport import Answer, Extra, Transport

Chain = tuple[Answer, tuple[Redirect, ...], policy.Verdict | None]


class Redirects:
    def __init__(self, config: Config, hosts: HostScheduler, transport: Transport) -> None:
        self.config = config
        self._hosts = hosts
        self._transport = transport

    async def follow(
        self, url: str, method: Method, read: ReadLimit, *, priority: int = CONTINUE, extra: Extra = None, retries: int | None = None
    ) -> Chain:
        """Request `url`, following redirects by hand. Returns the last answer, the chain, and a
        verdict when the chain itself decides (loop, too long, forbidden or odd target).
        `extra` is (host, headers): headers sent to that host only, hop by hop; `retries`
        overrides `max_retries`."""
        chain: list[Redirect] = []
        cookies = ChainCookies()
        seen = {(normalise_url(url), "")}
        current = url
        while True:
            answer = await self._hosts.attempt(method, current, read, priority, _with_cookies(extra, current, cookies), retries)
            cookies.take(current, answer.headers)
            method, priority = answer.method, CONTINUE  # later hops keep the method, finish first
            location = answer.header_map.get("Location", "") if answer.status in policy.REDIRECTS else ""
            if not location:
                return answer, tuple(chain), None
            try:
                following = self._transport.remap(urljoin(current, location.strip()))
                following_host = request_host(following)  # as the client will spell it
            except ValueError:
                return answer, tuple(chain), policy.Verdict(status=Status.BROKEN, reason=Reason.BAD_REDIRECT, detail=f"unusable Location {location!r}")
            chain.append(Redirect(url=current, status=answer.status, location=following))
            scheme = split(following).scheme.lower()
            if scheme not in ("http", "https") or not following_host:
                return answer, tuple(chain), policy.Verdict(status=Status.ERROR, reason=Reason.BAD_REDIRECT, detail=f"redirect to unsupported URL {following}")
            key = (normalise_url(following), cookies.header_for(following))
            if key in seen:
                return answer, tuple(chain), policy.Verdict(status=Status.BROKEN, reason=Reason.REDIRECT_LOOP, detail=f"redirect loop back to {following}")
            if len(chain) > self.config.max_redirects:
                return answer, tuple(chain), policy.Verdict(
                    status=Status.BROKEN, reason=Reason.TOO_MANY_REDIRECTS, detail=f"more than {self.config.max_redirects} redirects"
                )
            reach = classify_host(following_host)
            if not allowed(reach, allow_private=self.config.allow_private):
                reason, detail = refusal(reach, following_host)
                return answer, tuple(chain), policy.Verdict(status=Status.EXCLUDED, reason=reason, detail=f"redirect to {following}: {detail}")
            seen.add(key)
            current = following
            if answer.status == 303 and method != "HEAD":
                method = "GET"


def _with_cookies(extra: Extra, url: str, cookies: ChainCookies) -> Extra:
    """`extra` for one hop, plus the Cookie header the chain so far has earned there."""
    header = cookies.header_for(url)
    if not header:
        return extra
    host = hostname(url)
    headers = dict(extra[1]) if extra is not None and extra[0] == host else {}
    headers["Cookie"] = header
    return host, headers


class _Jar(aiohttp.CookieJar):
    @classmethod
    def _parse_date(cls, date_str: str) -> int | None:
        # aiohttp 3.14 reads an Expires of the epoch itself (the usual way to delete a cookie,
        # "Thu, 01 Jan 1970 00:00:00 GMT") as 0, which it then takes for "no date": the cookie
        # would be kept for the session. One second later is just as expired.
        when = super()._parse_date(date_str)
        return 1 if when == 0 else when


class ChainCookies:
    """The only cookies the checker keeps: those set during one redirect chain.

    Some sites answer a first visit with a redirect to the same page plus a Set-Cookie ("do you
    take cookies?"), and serve the page once the cookie comes back. Without cookies that is an
    endless redirect; a cookie jar shared by every request, on the other hand, costs a tenth of
    each request's CPU and lets one page's cookies change how another page answers. So cookies
    live for one chain: set by a hop, sent on the later hops they apply to, then forgotten.

    Which hops they apply to is aiohttp's CookieJar's business (RFC 6265: domain and path
    matching, Secure, expiry, a bounded Cookie header); the jar is made at the chain's first
    Set-Cookie, so a chain without cookies (nearly all of them) costs nothing.
    """

    __slots__ = ("_jar",)

    def __init__(self) -> None:
        self._jar: aiohttp.CookieJar | None = None

    def take(self, url: str, headers: Mapping[str, str] | None) -> None:
        """Remember the Set-Cookie headers of an answer from `url`."""
        getall = getattr(headers, "getall", None)
        lines = getall("Set-Cookie", ()) if getall is not None else ()
        if not lines:
            return
        if self._jar is None:
            # unsafe: a host written as an IP address keeps its cookies too (a test server, an
            # intranet page); the chain's requests went there already.
            self._jar = _Jar(unsafe=True)
        self._jar.update_cookies_from_headers(list(lines), yarl.URL(url))

    def header_for(self, url: str) -> str:
        """The Cookie header for a request to `url` ('' when no cookie applies). It is also
        what tells a revisit with new cookies from a redirect loop."""
        if self._jar is None:
            return ""
        return "; ".join(f"{name}={morsel.coded_value}" for name, morsel in self._jar.filter_cookies(yarl.URL(url)).items())
