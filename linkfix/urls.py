"""URL identity, in one place: what host a request goes to, what counts as the same URL.

The HTTP client (aiohttp) parses URLs with yarl, which applies IDNA/UTS-46 to host names: full-
width digits, ideographic full stops and enclosed alphanumerics become the ASCII they stand for
(`http://１２７。０。０。１/` is a request to 127.0.0.1). Every decision about a host (is it
private? which politeness state, which headers?) is taken on that same spelling, never on the
text as written.
"""

from __future__ import annotations

import functools

import yarl


@functools.lru_cache(maxsize=16384)  # pure; asked for every URL and every redirect hop
def request_host(url: str) -> str:
    """The host a request to `url` connects to, as the HTTP client spells it (lower case, IDNA
    for names, compressed IPv6 without brackets); '' when the URL has none. Raises ValueError
    when the client could not request the URL at all."""
    return yarl.URL(url).raw_host or ""


def normalise_host(host: str) -> str:
    """`host` (from a URL, without brackets) as the HTTP client would send it: ASCII is only
    lower-cased; anything else goes through yarl's IDNA/UTS-46 encoding."""
    if host.isascii():
        return host.lower()
    try:
        return yarl.URL.build(scheme="http", host=host).raw_host or ""
    except ValueError:  # no client could request it: judge the text as it is
        return host.lower()
