"""The only cookies the checker keeps: those set during one redirect chain.

Some sites answer a first visit with a redirect to the same page plus a Set-Cookie ("do you
take cookies?"), and serve the page once the cookie comes back. Without cookies that is an
endless redirect; a cookie jar shared by every request, on the other hand, costs a tenth of each
request's CPU and lets one page's cookies change how another page answers. So cookies live for
one chain: set by a hop, sent on the later hops that domain-match them, then forgotten.
"""

from __future__ import annotations

from http.cookies import CookieError, SimpleCookie
from typing import Mapping

MAX_COOKIES = 50  # per chain: a hostile server must not grow the Cookie header without bound


class ChainCookies:
    def __init__(self) -> None:
        # (domain, host_only, name) -> value
        self._cookies: dict[tuple[str, bool, str], str] = {}

    def take(self, hostname: str, headers: Mapping[str, str] | None) -> None:
        """Remember the Set-Cookie headers of an answer from `hostname`."""
        getall = getattr(headers, "getall", None)
        if getall is None:
            return
        for line in getall("Set-Cookie", ()):
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(line)
            except CookieError:
                continue  # a malformed cookie is ignored, as browsers do
            for name, morsel in jar.items():
                domain = morsel["domain"].lstrip(".").lower()
                if domain and not _domain_matches(hostname, domain):
                    continue  # a host may not set cookies for another site
                key = (domain or hostname, not domain, name)
                if morsel["max-age"] in ("0", "-1"):
                    self._cookies.pop(key, None)
                elif len(self._cookies) < MAX_COOKIES or key in self._cookies:
                    self._cookies[key] = morsel.value

    def header_for(self, hostname: str) -> str:
        """The Cookie header for a request to `hostname` ('' when none applies)."""
        return "; ".join(f"{name}={value}" for (domain, host_only, name), value in sorted(self._cookies.items())
                         if (hostname == domain if host_only else _domain_matches(hostname, domain)))

    def state(self, hostname: str) -> str:
        """What a request to `hostname` would carry: a revisit with new cookies is no loop."""
        return self.header_for(hostname)


def _domain_matches(hostname: str, domain: str) -> bool:
    return hostname == domain or hostname.endswith("." + domain)
