"""A plain web site of the demo: pages, redirects, robots.txt + sitemap.xml, and the answer every
other path gets (a real 404, a soft-404's 200, or a bot challenge's 403), as real sites answer."""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from aiohttp import web


class Unknown(Enum):
    """What a path the site has no page for answers."""

    NOT_FOUND = "404"  # an honest 404 page
    SOFT_404 = "soft-404"  # 200 with a "page not found" page: the status says nothing
    CHALLENGE = "challenge"  # every path: a Cloudflare-style bot challenge (403), even real pages


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    status: int
    body: str = ""
    content_type: str = "text/html"
    headers: Mapping[str, str] = field(default_factory=dict)

    def response(self) -> web.Response:
        # aiohttp leaves the body out of the answer to a HEAD request.
        return web.Response(status=self.status, text=self.body, content_type=self.content_type, headers=dict(self.headers))


def layout(host: str, title: str, main: str) -> str:
    """A small, complete HTML page of `host`."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)} - {html.escape(host)}</title></head>\n<body>\n"
        f'<nav><a href="/">Home</a></nav>\n<main>\n{main}\n</main>\n</body></html>\n'
    )


def not_found_page(host: str, path: str) -> str:
    return layout(host, "Page not found", "<h1>Page not found</h1>\n"
                  f"<p>Sorry, we couldn't find the page <code>{html.escape(path)}</code>. It may have been moved or deleted.</p>")


CHALLENGE_PAGE = (
    '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body>'
    "<h1>Checking if the site connection is secure</h1>"
    "<noscript>Enable JavaScript and cookies to continue</noscript>"
    '<script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script></body></html>'
)
SITEMAP_XMLNS = "http://www.sitemaps.org/schemas/sitemap/0.9"
CHALLENGE_HEADERS = {"Server": "cloudflare", "cf-mitigated": "challenge", "cf-ray": "8a1b2c3d4e5f6789-FRA"}


class StaticSite:
    """One host's fixed answers by path (the query string is ignored)."""

    def __init__(self, host: str, *, unknown: Unknown = Unknown.NOT_FOUND) -> None:
        self.host = host
        self.unknown = unknown
        self.answers: dict[str, Answer] = {}

    def page(self, path: str, body: str, *, status: int = 200, content_type: str = "text/html") -> StaticSite:
        self.answers[path] = Answer(status=status, body=body, content_type=content_type)
        return self

    def redirect(self, path: str, location: str, *, status: int = 301) -> StaticSite:
        self.answers[path] = Answer(status=status, headers={"Location": location})
        return self

    def publish_sitemap(self) -> StaticSite:
        """robots.txt naming a sitemap.xml that lists every page answering 200."""
        paths = [p for p, a in self.answers.items() if a.status == 200 and a.content_type == "text/html"]
        urls = "".join(f"<url><loc>https://{self.host}{html.escape(p)}</loc></url>" for p in paths)
        sitemap = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_XMLNS}">{urls}</urlset>\n'
        self.page("/sitemap.xml", sitemap, content_type="application/xml")
        robots = f"User-agent: *\nAllow: /\nSitemap: https://{self.host}/sitemap.xml\n"
        self.page("/robots.txt", robots, content_type="text/plain")
        return self

    async def __call__(self, request: web.Request) -> web.StreamResponse:
        if self.unknown is Unknown.CHALLENGE:
            return Answer(status=403, body=CHALLENGE_PAGE, headers=CHALLENGE_HEADERS).response()
        answer = self.answers.get(request.path)
        if answer is None:
            status = 200 if self.unknown is Unknown.SOFT_404 else 404
            answer = Answer(status=status, body=not_found_page(self.host, request.path))
        return answer.response()
