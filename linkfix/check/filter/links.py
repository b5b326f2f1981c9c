"""The one filter of a run: whether each link is checked, and if not, why (see the package)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ...config import Config
from ...config.patterns import RepositoryPattern, repository_pattern
from ...formats.silence import silencing
from ...model import Link, Reason, Scope, Silenced
from ...urls import origin, request_host, split
from ..remap import Remap
from ..targets import Target
from .ignore_files import IgnorePattern, ignore_patterns
from .verdict import CHECKED, OFFLINE, OUTSIDE_BUILD_OFFLINE, Decision, Verdict

# (the link as written, the URL resolved from it, its target, whether MkDocs leaves it as written) -> its target, filtered
LinkRules = Callable[[str, str, Target, bool], Target]
Resolve = Callable[[str, bool], Target]

_SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")
_MEMO_SIZE = 50_000  # strings whose exclude match is remembered (a site repeats its links on every page)


class LinkFilter:
    """Every decision of a run on whether a link is checked. Built once per stage from the
    config (`for_run` reads the ignore files too); asked by the resolution of a page's links
    (`rules_for`, `silenced`, `scheme`, `beside_the_build`, `included_text`), by the HTTP
    checker before a request (`request`), by the gathering of results offline (`offline`)
    and by `--dump`."""

    def __init__(self, config: Config, ignores: tuple[IgnorePattern, ...] = ()) -> None:
        self.offline = config.offline
        self._allow_private = config.allow_private
        self.ignores = ignores
        self._exclude = tuple(repository_pattern(p, origin="the config's exclude") for p in config.exclude)
        self._include = tuple(repository_pattern(p, origin="the config's include") for p in config.include)
        self._remap = Remap(config.remap)
        self._by_origin: dict[str, Verdict] = {}  # what the scheme and host alone decide (see request)
        self._excluded_memo: dict[str, RepositoryPattern | None] = {}  # a string -> the exclude pattern that matches it
        self._included_memo: dict[str, bool] = {}
        self._schemes: dict[str, Verdict] = {}

    @classmethod
    def for_run(cls, config: Config) -> LinkFilter:
        """The filter of a check: the config's rules and the ignore files beside it."""
        return cls(config, ignore_patterns(config))

    # -- a page's links, as they are resolved ------------------------------------------------------------
    def rules_for(self, resolve: Resolve, site_target: Callable[[str], Target]) -> LinkRules | None:
        """The rules a page's link meets once resolved (`resolve`: the page's resolver;
        `site_target`: the target of a path from the site root), or None when there are none
        (no ignore file, exclude pattern or remap rule: a page's links are then what they resolve to).

        In turn: an ignore file's pattern, searched for in the link as written and in its target,
        makes it ignored. An internal link (a file of the site) is then excluded as an external
        URL is, by an `exclude` pattern (and no `include` one) searched for in the link as written
        or in its target (the path from the site root `--dump` prints), then remapped: the
        `remap` rules rewrite the link as written when it is written as a path (relative or
        root-relative; a full URL's rules are its requests'), which is then resolved as if
        written so, else its target, which stays a path from the site root unless the rules
        make a full URL of it."""
        if not (self.ignores or self._exclude or self._remap):
            return None

        def rules(written: str, url: str, target: Target, as_written: bool) -> Target:
            for rule in self.ignores:
                if rule.pattern.matches(written, otherwise=False) or rule.pattern.matches(target.resolved, otherwise=False):
                    return _with(target, Verdict(Decision.IGNORED, Reason.IGNORED, f"ignored by {rule.source} ({rule.pattern.pattern})"))
            if target.scope is not Scope.INTERNAL:
                return target
            if self._exclude:
                pattern = self._excluded(written) or self._excluded(target.resolved)
                if pattern is not None and not (self._included(written) or self._included(target.resolved)):
                    return _with(target, _excluded_by(pattern))
            if self._remap:
                return self._remapped(url, target, as_written, resolve, site_target)
            return target

        return rules

    def silenced(self, link: Link, target: Target, silenced: tuple[Silenced, ...]) -> Target:
        """`target`, or an ignored one when an ignore comment covers the link's line, or an
        element carrying an ignore attribute holds it, in its page's own source."""
        if link.span.path != link.page.path:  # written in an included file: the page's comments do not reach it
            return target
        covering = silencing(silenced, link.span.line, link.span.start)
        if covering is None:
            return target
        if covering.start >= 0:
            why = f"ignored by the attribute of {covering.comment} on line {covering.line}"
        else:
            why = f"ignored by the comment <!-- {covering.comment} --> on line {covering.line}"
        return _with(target, Verdict(Decision.IGNORED, Reason.IGNORED, why))

    def scheme(self, name: str) -> Verdict:
        """A link of a scheme other than http(s): not checked."""
        verdict = self._schemes.get(name)
        if verdict is None:
            verdict = self._schemes[name] = Verdict(Decision.UNSUPPORTED, Reason.scheme(name), f"{name}: links are not checked")
        return verdict

    def beside_the_build(self) -> Verdict:
        """A URL on the site's host that this build does not hold: checked as an external URL
        (CHECKED), or not when offline."""
        return OUTSIDE_BUILD_OFFLINE if self.offline else CHECKED

    @staticmethod
    def included_text(link: Link) -> Target:
        """A link extraction found must not be checked (`Link.unverified` says why): unverified,
        not even resolved."""
        verdict = Verdict(Decision.UNVERIFIED, Reason.INCLUDED_TEXT, link.unverified)
        return Target(scope=Scope.EXTERNAL, resolved=link.url, result=verdict.result(link.url))

    # -- an external URL, before it is requested ---------------------------------------------------------
    def request(self, url: str) -> Verdict:
        """Whether `url` may be requested: not offline, a scheme and host that are fetched
        (after remap), no exclude pattern (unless an include one) matching it as written."""
        if self.offline:
            return OFFLINE
        # What depends on the scheme and host alone is decided once per origin (a warm run asks
        # this for every URL, and splitting each one showed up in profiles), unless remap rules
        # may send a URL elsewhere.
        key = origin(url) if not self._remap else ""
        verdict = self._by_origin.get(key) if key else None
        if verdict is None:
            verdict = self._by_host(url)
            if key:
                self._by_origin[key] = verdict
        if not verdict.checked:
            return verdict
        if self._exclude:
            pattern = self._excluded(url)
            if pattern is not None and not self._included(url):
                return _excluded_by(pattern)
        return CHECKED

    def _by_host(self, url: str) -> Verdict:
        """What `url`'s scheme and host (after remap) decide."""
        # Here: netsafety brings aiohttp (and asyncio), which an offline check never imports.
        from ..netsafety import allowed, classify_host, refusal

        try:
            parts = split(url)
            written_host = parts.hostname or ""
            parts.port  # noqa: B018 - raises ValueError on a malformed port
        except ValueError as exc:
            return Verdict(Decision.INVALID, Reason.INVALID_URL, str(exc))
        if parts.scheme.lower() not in ("http", "https"):
            if not parts.scheme:
                return Verdict(Decision.UNSUPPORTED, Reason.NO_SCHEME, "no scheme: not a URL that can be requested")
            return self.scheme(parts.scheme)
        if not written_host:
            return Verdict(Decision.INVALID, Reason.INVALID_URL, "no host name")
        try:
            # The host the client will connect to: `１２７。０。０。１` is 127.0.0.1.
            reach = classify_host(request_host(self._remap.request(url)))
        except ValueError as exc:
            return Verdict(Decision.INVALID, Reason.INVALID_URL, str(exc))
        if not allowed(reach, allow_private=self._allow_private):
            reason, why = refusal(reach, written_host)
            return Verdict(Decision.PRIVATE, reason, why)
        return CHECKED

    # -- the patterns ------------------------------------------------------------------------------------
    def _excluded(self, text: str) -> RepositoryPattern | None:
        """The first exclude pattern found in `text` (one that runs away excludes nothing)."""
        memo = self._excluded_memo
        if text in memo:
            return memo[text]
        found = next((p for p in self._exclude if p.matches(text, otherwise=False)), None)
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[text] = found
        return found

    def _included(self, text: str) -> bool:
        """Whether an include pattern is found in `text` (one that runs away includes)."""
        if not self._include:
            return False
        memo = self._included_memo
        found = memo.get(text)
        if found is None:
            found = any(p.matches(text, otherwise=True) for p in self._include)
            if len(memo) >= _MEMO_SIZE:
                memo.clear()
            memo[text] = found
        return found

    def _remapped(self, url: str, target: Target, as_written: bool, resolve: Resolve, site_target: Callable[[str], Target]) -> Target:
        """An internal link's target after the remap rules (see rules_for)."""
        if not _is_full_url(url):
            rewritten = self._remap.request(url)
            if rewritten != url:
                return resolve(rewritten, as_written)
        rewritten = self._remap.request(target.resolved)
        if rewritten == target.resolved:
            return target
        return resolve(rewritten, False) if _is_full_url(rewritten) else site_target(rewritten)


def _is_full_url(url: str) -> bool:
    """A URL with a scheme (or `//host`), not a path."""
    return url.startswith("//") or _SCHEME.match(url) is not None


def _excluded_by(pattern: RepositoryPattern) -> Verdict:
    return Verdict(Decision.EXCLUDED, Reason.EXCLUDED, f"matches an exclude pattern ({pattern.pattern})")


def _with(target: Target, verdict: Verdict) -> Target:
    return replace(target, result=verdict.result(target.resolved))
