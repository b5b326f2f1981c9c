"""The only cookies the checker keeps: those set during one redirect chain.

Some sites answer a first visit with a redirect to the same page plus a Set-Cookie ("do you
take cookies?"), and serve the page once the cookie comes back. Without cookies that is an
endless redirect; a cookie jar shared by every request, on the other hand, costs a tenth of each
request's CPU and lets one page's cookies change how another page answers. So cookies live for
one chain: set by a hop, sent on the later hops they apply to, then forgotten.

Which hops they apply to is aiohttp's CookieJar's business (RFC 6265: domain and path matching,
Secure, expiry, a bounded Cookie header); the jar is made at the chain's first Set-Cookie, so a
chain without cookies (nearly all of them) costs nothing.
"""

from __future__ import annotations

from typing import Mapping

import aiohttp
import yarl


class _Jar(aiohttp.CookieJar):
    @classmethod
    def _parse_date(cls, date_str: str) -> int | None:
        # aiohttp 3.14 reads an Expires of the epoch itself (the usual way to delete a cookie,
        # "Thu, 01 Jan 1970 00:00:00 GMT") as 0, which it then takes for "no date": the cookie
        # would be kept for the session. One second later is just as expired.
        when = super()._parse_date(date_str)
        return 1 if when == 0 else when


class ChainCookies:
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
