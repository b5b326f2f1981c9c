"""URL identity, in one place: what host a request goes to, and when two URLs are "the same".

Several questions look alike and have different answers on purpose; each has one function:

* `normalise_url`: the cache key. Lower-case scheme and host, no default port, no fragment,
  canonical %XX; two spellings of one resource share a record.
* `page_key`: the crawler's identity of a page (fragment dropped, scheme and host lower-cased,
  an empty path is "/"); `authority`: the host[:port] a crawl stays on.
* `request_host` / `normalise_host`: the host a request really connects to. The HTTP client
  (aiohttp) parses URLs with yarl, which applies IDNA/UTS-46 to host names: full-width digits,
  ideographic full stops and enclosed alphanumerics become the ASCII they stand for
  (`http://１２７。０。０。１/` is a request to 127.0.0.1). Every decision about a host (is it
  private? which politeness state, which headers?) is taken on that spelling, never on the text
  as written.
* `origin`, `route`, `sibling_key`: the parts of a URL the checker groups requests by.
* `same_site`, `is_site_root`, `is_home_page`: what recovery and the redirect rules ask.
"""

from __future__ import annotations

import functools
import posixpath
import re
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")


# -- the cache key ------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=65536)  # pure, and called several times per URL per run
def normalise_url(url: str) -> str:
    """Cache key: lower-case scheme and host, no default port, no fragment, canonical %XX."""
    # Most URLs are written in normal form already: recognising that is a fifth of splitting
    # and joining them (a warm run asks this for every URL once).
    plain = _PLAIN_URL.fullmatch(url)
    if plain is not None and (plain.group(3) is None or int(plain.group(3)) != DEFAULT_PORTS[plain.group(1)]):
        return url
    return _normalise_slowly(url)


# Lower-case http(s), lower-case host name (not ending in a dot), a port without leading zero,
# a path from "/", no %, no fragment, a query only when it is not empty.
_PLAIN_URL = re.compile(r"(https?)://([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::([1-9][0-9]{0,4}))?/[^\s#%?]*(?:\?[^\s#%]+)?")


def _normalise_slowly(url: str) -> str:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # malformed port or IPv6 literal: key on the text itself
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    netloc = host
    if parts.username is not None:
        userinfo = parts.username + (f":{parts.password}" if parts.password is not None else "")
        netloc = f"{userinfo}@{host}"
    if port is not None and port != DEFAULT_PORTS.get(scheme):
        netloc += f":{port}"
    path = _normalise_percent(parts.path) or ("/" if scheme in DEFAULT_PORTS else "")
    query = _normalise_percent(parts.query)
    return urlunsplit(SplitResult(scheme, netloc, path, query, ""))


def _normalise_percent(text: str) -> str:
    def fix(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    return _PERCENT.sub(fix, text)


# -- the crawler's identities -----------------------------------------------------------------------
def page_key(url: str) -> str:
    """The crawl's identity of a page: fragment dropped, scheme/host lower-cased, empty path '/'
    (the query and any %XX are kept as written: a crawl follows what the site links to)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


def authority(url: str) -> str:
    """host[:port] of `url`, lower-case, without the scheme's default port (what a crawl stays
    on whichever scheme a page is linked with)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    port = parts.port
    if port is None or (parts.scheme, port) in (("http", 80), ("https", 443)):
        return host
    return f"{host}:{port}"


# -- the host a request goes to -----------------------------------------------------------------------
# A URL is split by several steps of its check (refusal, host slots, headers, proxy, redirects);
# Python 3.11's urlsplit is not memoised, and splitting showed up in profiles. Pure.
split = functools.lru_cache(maxsize=16384)(urlsplit)


@functools.lru_cache(maxsize=16384)  # pure; asked for every URL and every redirect hop
def request_host(url: str) -> str:
    """The host a request to `url` connects to, as the HTTP client spells it (lower case, IDNA
    for names, compressed IPv6 without brackets); '' when the URL has none. Raises ValueError
    when the client could not request the URL at all."""
    import yarl  # here: a run without external links never needs it (a tenth of a one-page check's start-up)

    return yarl.URL(url).raw_host or ""


def hostname(url: str) -> str:
    """`request_host`, or '' for a URL the client could not request."""
    try:
        return request_host(url)
    except ValueError:
        return ""


def normalise_host(host: str) -> str:
    """`host` (from a URL, without brackets) as the HTTP client would send it: ASCII is only
    lower-cased; anything else goes through yarl's IDNA/UTS-46 encoding."""
    if host.isascii():
        return host.lower()
    import yarl

    try:
        return yarl.URL.build(scheme="http", host=host).raw_host or ""
    except ValueError:  # no client could request it: judge the text as it is
        return host.lower()


# -- how the checker groups URLs ----------------------------------------------------------------------
def origin(url: str) -> str:
    """`scheme://host[:port]` of a URL written that way (scheme lower-cased, the rest as
    written), else '': a cheap key for what depends on the scheme and host alone."""
    scheme, sep, rest = url.partition("://")
    if not sep or not scheme.isalpha():
        return ""
    return f"{scheme.lower()}://{rest[:_first_of(rest, '/?#')]}"


def route(url: str) -> str:
    """`url` up to its last '/' before any query or fragment: the route it belongs to, cheaply
    (server trouble clusters by route)."""
    return url[: url.rfind("/", 0, _first_of(url, "?#")) + 1]


def _first_of(text: str, marks: str) -> int:
    """Where the first of `marks` is in `text`, or its length (cheaper than a regex or urlsplit)."""
    end = len(text)
    for mark in marks:
        found = text.find(mark, 0, end)
        if found >= 0:
            end = found
    return end


@functools.lru_cache(maxsize=16384)  # pure; asked for every URL checked and every probe
def sibling_key(url: str) -> str:
    """scheme://host + the directory `url`'s siblings share (a directory URL's siblings are the
    directories next to it), without a trailing slash: what one soft-404 probe stands for."""
    parts = urlsplit(url)
    path = parts.path or "/"
    directory = posixpath.dirname(path.rstrip("/")) if path.endswith("/") else posixpath.dirname(path)
    return f"{parts.scheme}://{parts.netloc.lower()}{directory or '/'}"


# -- what recovery and the redirect rules ask --------------------------------------------------------------
def same_site(a: str, b: str) -> bool:
    """Both URLs on one host, `www.` or not."""
    ha = (urlsplit(a).hostname or "").removeprefix("www.")
    hb = (urlsplit(b).hostname or "").removeprefix("www.")
    return bool(ha) and ha == hb


@functools.lru_cache(maxsize=16384)  # pure; asked for every 200 page (soft-404 step)
def is_site_root(url: str) -> bool:
    """The site's root itself ('/' without a query): a redirect there hides a dead page, and a
    catch-all host's root is no soft-404."""
    parts = urlsplit(url)
    return parts.path in ("", "/") and not parts.query


_HOME_PATHS = frozenset({"", "/", "/index.html", "/index.htm", "/index.php", "/home", "/home/"})


def is_home_page(url: str) -> bool:
    """The root or one of the usual names of a home page (index.html, /home): rarely a good
    replacement for a dead deep link (though maintainers do redirect there)."""
    parts = urlsplit(url)
    return parts.path.lower() in _HOME_PATHS and not parts.query


_PAGE_SUFFIXES = (".html", ".htm", ".php", ".aspx", ".asp", ".md")


def page_name(url: str) -> str:
    """The last path segment, lower-case, without its file extension ('' for a directory's
    index): the part of a URL that usually survives a move ("/v1/install.html" -> "install")."""
    path = urlsplit(url).path
    if path.lower().endswith(("/index.html", "/index.htm")):
        path = path.rsplit("/", 1)[0]
    last = unquote(path.rstrip("/").rsplit("/", 1)[-1]).lower()
    for suffix in _PAGE_SUFFIXES:
        last = last.removesuffix(suffix)
    return "" if last in ("", "index") else last


def page_identity(url: str) -> str:
    """One name for the URLs of one page, as a reader sees it: `normalise_url` without a
    trailing `index.html` and without a trailing slash ("https://x.org/a/", "https://x.org/a",
    "https://x.org/a/index.html" are one page)."""
    key = normalise_url(url.partition("#")[0])
    for suffix in ("/index.html", "/index.htm"):
        if key.lower().endswith(suffix):
            key = key[: -len(suffix) + 1]
    return key.rstrip("/")


def directory_of(url: str) -> str:
    """The directory a page's URL names: itself for a directory URL ("a/b/", "a/b/index.html"
    -> "a/b/"), else its parent ("a/b.html" -> "a/")."""
    parts = urlsplit(url)
    path = parts.path or "/"
    if path.lower().endswith(("/index.html", "/index.htm")):
        path = path.rsplit("/", 1)[0] + "/"
    if not path.endswith("/"):
        path = path.rsplit("/", 1)[0] + "/"
    return f"{parts.scheme}://{parts.netloc}{path}"


def is_above(url: str, dead: str) -> bool:
    """`url` is the home page or a directory page above `dead` on the same site: where
    maintainers send a page merged into its section, and where catch-all redirects land."""
    if not same_site(url, dead):
        return False
    if is_home_page(url):
        return not is_home_page(dead)
    folder = urlsplit(directory_of(url)).path
    if not (urlsplit(url).path.endswith("/") or urlsplit(url).path.lower().endswith(("/index.html", "/index.htm"))):
        return False
    target = urlsplit(dead).path
    return target.startswith(folder) and len(target.rstrip("/")) > len(folder.rstrip("/"))
