"""`remap` rules, and the way back: from the address requested to the address the docs name.

A `remap` rule ('REGEX REPLACEMENT') sends the requests for a link elsewhere: a staging host, a
local mirror, the test web on 127.0.0.x. The checker requests the rewritten URL and follows its
redirects there, so a redirect's final URL is in that request space: `http://127.0.0.2:8080/new`
for a link written `https://docs.example/old`. What is written back into the docs (a fix, a
suggestion) must be in the document's space: `https://docs.example/new`.

The rules are regular expressions and have no inverse in general. `Remap.document` maps back by
what the run saw: each URL requested gives a pair of bases (the written URL and its rewrite,
without the path segments they end with in common), and a request-space URL under a request
base is put under the matching written base, but only when remapping the result gives the
request-space URL again (so the translation is exact, never a guess).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from urllib.parse import urlsplit

from ..config.patterns import RunawayPattern, repository_pattern
from ..model import Candidate, CheckResult, Redirect

_ORIGIN = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*")


class Remap:
    def __init__(self, rules: Sequence[str]) -> None:
        self._rules = [(repository_pattern(pattern, origin="the config's remap"), replacement)
                       for pattern, replacement in (rule.split(maxsplit=1) for rule in rules)]
        self._bases: dict[str, str] = {}  # request-space base -> document-space base

    def __bool__(self) -> bool:
        return bool(self._rules)

    def request(self, url: str) -> str:
        """The URL requested for `url` (every rule applied in turn, as the checker does)."""
        for pattern, replacement in self._rules:
            try:
                url = pattern.sub(replacement, url)
            except RunawayPattern:  # the rule is not applied: the URL is requested as written
                continue
        return url

    def learn(self, urls: Iterable[str]) -> None:
        """Remember the bases of URLs written in the docs (document space)."""
        for url in urls:
            requested = self.request(url)
            if requested != url:
                bases = _bases(url, requested)
                if bases is None:
                    continue
                known = self._bases.get(bases[1])
                # Several written forms may share one request base (`^https?://`): https wins.
                if known is None or (known.startswith("http:") and bases[0].startswith("https:")):
                    self._bases[bases[1]] = bases[0]

    def document(self, url: str) -> str:
        """`url`, met in request space (a redirect's target), in document space; unchanged when
        no base learned maps it back exactly."""
        if not self._rules or not url:
            return url
        for request_base in sorted(self._bases, key=len, reverse=True):
            if url == request_base or (url.startswith(request_base) and url[len(request_base)] in "/?#"):
                written = self._bases[request_base] + url[len(request_base):]
                if self.request(written) == url:
                    return written
        return url

    def candidates(self, suggestions: Iterable[Candidate]) -> tuple[Candidate, ...]:
        """Candidates found through rewritten requests (a redirect's target, a link on a page
        read there) named as the docs name them; one per URL (the most confident)."""
        if not self._rules:
            return tuple(suggestions)
        kept: dict[str, Candidate] = {}
        for candidate in suggestions:
            candidate = replace(candidate, url=self.document(candidate.url))
            if candidate.url not in kept or candidate.confidence > kept[candidate.url].confidence:
                kept[candidate.url] = candidate
        return tuple(sorted(kept.values(), key=lambda c: -c.confidence))

    def result(self, result: CheckResult) -> CheckResult:
        """A check result with its final URL, redirect chain and detail in document space."""
        if not self._rules or not (result.final_url or result.redirects):
            return result
        final = self.document(result.final_url)
        hops = tuple(Redirect(url=self.document(h.url), status=h.status, location=self.document(h.location)) for h in result.redirects)
        detail = result.detail.replace(result.final_url, final) if result.final_url else result.detail
        return replace(result, final_url=final, redirects=hops, detail=detail)


def _bases(written: str, requested: str) -> tuple[str, str] | None:
    """(written base, requested base): both URLs without the path segments (and query) they
    end with in common. None when either is no absolute URL."""
    origin_w, origin_r = _ORIGIN.match(written), _ORIGIN.match(requested)
    if origin_w is None or origin_r is None:
        return None
    try:
        urlsplit(written), urlsplit(requested)
    except ValueError:
        return None
    rest_w, rest_r = written[origin_w.end():].split("#")[0], requested[origin_r.end():].split("#")[0]
    parts_w, parts_r = rest_w.split("/"), rest_r.split("/")
    common = 0
    while common < min(len(parts_w), len(parts_r)) - 1 and parts_w[-1 - common] == parts_r[-1 - common]:
        common += 1
    keep_w = "/".join(parts_w[: len(parts_w) - common]) if common else rest_w
    keep_r = "/".join(parts_r[: len(parts_r) - common]) if common else rest_r
    return origin_w.group(0) + keep_w, origin_r.group(0) + keep_r
