"""A run's link results, made as its documents are read, and only what the reports need kept.

Each link is checked as soon as what decides it is known: an internal link at once, or, with a
#fragment, once the page it points into is read (its ids); an external link when the checker
has answered (offline: at once). A link checked is let go of, and so is its result when no report
lists it: then it is only counted (`Report.counted`). Holding every link's record to the end
made four copies of a site take 3.4x the memory of one (issue 26).

Results come out in the order of the links, whichever is checked first: a link checked later
holds its place in the list.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..model import NAV_TAG, CheckResult, Link, LinkResult, Reason, Scope, Status
from .filter import NOT_CHECKED, OFFLINE
from .local import LocalChecker
from .targets import Target

# A link waiting for this "page" waits for the end of the reading: no page read has this name.
_THE_END = ""

# An external link's result offline (the filter's verdict), copied for each URL.
_OFFLINE = OFFLINE.result("")

# (its place in the results, the link, where it points)
_Waiting = tuple[int, Link, Target]


# A result no report lists one by one, as (status, scope): an internal link that works, a link
# not checked (excluded, an unsupported scheme). An external link that works stays: the reports
# say how many external results came from the cache. A set, not a function: it is asked of every
# link of a run, and a call per link was 8% of a site's check.
ONLY_COUNTED = frozenset({(Status.OK, Scope.INTERNAL)} | {(status, scope) for status in NOT_CHECKED for scope in Scope})


class Gathered:
    """The results of one run's links. `keep_all`: keep every link's result (the JSON and
    JUnit reports list every link; recovery reads them all), else only those ONLY_COUNTED
    does not take."""

    def __init__(self, local: LocalChecker, *, offline: bool, known: Mapping[str, CheckResult], keep_all: bool) -> None:
        self._local = local
        self._offline = offline
        self._known = known
        self._keep_all = keep_all
        self._items: list[LinkResult | None] = []  # None: a link still waiting, or one only counted
        self._waiting: dict[str, list[_Waiting]] = {}  # page (root-relative) -> links waiting for its ids
        self._external: list[_Waiting] = []  # waiting for the checker's answers
        self._files: dict[str, str | None] = {}  # a link's path -> the site file it names
        self.counted: Counter[Status] = Counter()
        self.excluded_reasons: Counter[str] = Counter()  # why the links only counted as excluded were

    def add(self, links: Sequence[Link], targets: Sequence[Target]) -> None:
        """The links of a page just read (its Page already among the checker's pages) and
        where each points. A link is asked of `links` only when its result is kept or waits
        (a scanned page's Links are made on demand: formats.html.scanned)."""
        local, counted, items, keep_all = self._local, self.counted, self._items, self._keep_all
        excluded = self.excluded_reasons
        fragments = local.config.include_fragments
        for index, target in enumerate(targets):
            result = target.result
            if result is None:
                if target.scope is Scope.EXTERNAL:
                    if not self._offline:
                        items.append(None)
                        self._external.append((len(items) - 1, links[index], target))
                        continue
                    result = self._known.get(target.resolved)
                    if result is None:
                        if not keep_all:  # not checked (offline): only counted
                            counted[Status.EXCLUDED] += 1
                            excluded[Reason.OFFLINE] += 1
                            continue
                        result = replace(_OFFLINE, url=target.resolved)
                else:
                    page = self._waits_for(target) if fragments else None
                    if page is not None:
                        items.append(None)
                        self._waiting.setdefault(page, []).append((len(items) - 1, links[index], target))
                        continue
                    result = local.check(target)
            # Asked before the link is made, or a LinkResult: most links of a site end here.
            if keep_all or (result.status, target.scope) not in ONLY_COUNTED:
                items.append(self._item(links[index], target, result))
            else:  # (inline: most links of a site are only counted, and a call per link shows)
                counted[result.status] += 1
                if result.status is Status.EXCLUDED:
                    excluded[result.reason] += 1

    def page_read(self, rel: str) -> None:
        """The page at `rel` is read: the links waiting for its ids are checked."""
        for place, link, target in self._waiting.pop(rel, ()):
            self._keep_waited(place, link, target, self._local.check(target))

    def finish(self, external: Mapping[str, CheckResult]) -> list[LinkResult]:
        """Every result kept, in the order of the links: the links still waiting checked
        (a page that was not among the inputs is read now), the external ones from `external`."""
        for waiting in self._waiting.values():
            for place, link, target in waiting:
                self._keep_waited(place, link, target, self._local.check(target))
        self._waiting.clear()
        for place, link, target in self._external:
            self._keep_waited(place, link, target, external.get(target.resolved) or replace(_OFFLINE, url=target.resolved))
        self._external.clear()
        items, self._items = self._items, []
        return [item for item in items if item is not None]

    def _waits_for(self, target: Target) -> str | None:
        """The page not read yet whose ids checking the internal `target` needs (None: it can
        be checked now). Checking it earlier would read that page twice (LocalChecker.page_ids)."""
        if not self._local.config.include_fragments:
            return None
        path, _, fragment = target.resolved.partition("#")
        if path in self._files:
            found = self._files[path]
        else:
            found = self._files[path] = self._local.find_file(path)
        if found is None:
            # mkdocs-redirects may send it to a page whose ids are needed (its map's entry may
            # name a #fragment even when the link names none)
            mkdocs = self._local.project.mkdocs
            return _THE_END if mkdocs is not None and mkdocs.redirects else None
        return None if not fragment or found in self._local.pages else found

    def _keep_waited(self, place: int, link: Link, target: Target, result: CheckResult) -> None:
        """The result of a link that waited, at its `place` among the results (or only counted)."""
        if self._keep_all or (result.status, target.scope) not in ONLY_COUNTED:
            self._items[place] = self._item(link, target, result)
        else:
            self._count(result)

    def _count(self, result: CheckResult) -> None:
        """A result only counted: its status, and why, for an excluded one (the text report says)."""
        self.counted[result.status] += 1
        if result.status is Status.EXCLUDED:
            self.excluded_reasons[result.reason] += 1

    def _item(self, link: Link, target: Target, result: CheckResult) -> LinkResult:
        # Nothing here makes a result only counted (a rewritten page's broken link is unverified).
        if link.page.rewrites(link) and result.status is Status.BROKEN and target.scope is Scope.INTERNAL:
            result = self._local.rewritten(result, link.page)
        if link.tag == NAV_TAG and result.status is Status.BROKEN and target.scope is Scope.INTERNAL:
            from .mkdocs_nav import nav_broken  # (nav entries: only a family project's runs have them)

            result = nav_broken(self._local, result, link.url)
        if link.template:  # where the target came from: the template, its data item (or why not rendered)
            result = replace(result, detail=f"{result.detail} ({link.template})" if result.detail else link.template)
        return LinkResult(link=link, resolved=target.resolved, scope=target.scope, result=result)
