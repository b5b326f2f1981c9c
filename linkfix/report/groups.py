"""Findings grouped by target, for the formats a person reads (text, markdown, html, github).

One missing page linked from 1,451 places is one thing to fix, not 1,451: a group is every
occurrence of one (target, status, reason). The target is the checked URL or site path
(`LinkResult.resolved`) without its #fragment, except where the fragment is what is wrong (a
missing or build-time id): `changelog.html#a` and `changelog.html#b` to a missing page are one
group; `glossary.html#a` and `glossary.html#b`, two missing ids of a page that exists, are two.

JSON, SARIF and JUnit keep every occurrence: each carries the target, status and reason, so a
reader can group them the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..model import LinkResult, Reason, Status

#: Reasons whose target is the URL with its fragment (the id is what is missing).
FRAGMENT_REASONS = frozenset({Reason.MISSING_FRAGMENT, Reason.BUILD_TIME_ID})

#: Places a terse format shows per group before "and N more".
SHOWN_PLACES = 5

#: The order groups come in: what fails a run first.
STATUS_ORDER = (Status.BROKEN, Status.ERROR, Status.TIMEOUT, Status.BLOCKED, Status.UNVERIFIED, Status.REDIRECTED)


@dataclass(frozen=True, slots=True, kw_only=True)
class Group:
    """Every occurrence of one (target, status, reason), in file order."""

    target: str
    status: Status
    reason: str
    items: tuple[LinkResult, ...]

    @property
    def first(self) -> LinkResult:
        return self.items[0]

    @property
    def count(self) -> int:
        return len(self.items)

    @property
    def places(self) -> list[Place]:
        """Its places, each once, in file order: a reference definition used three times is
        three links at one place (the definition's), listed once with its uses."""
        found: dict[tuple[str, int, int], list[LinkResult]] = {}
        for item in self.items:
            found.setdefault(_position(item), []).append(item)
        return [Place(item=items[0], uses=len(items)) for items in found.values()]


@dataclass(frozen=True, slots=True, kw_only=True)
class Place:
    """One place of a group's links: its first link, and how many links are there."""

    item: LinkResult
    uses: int

    @property
    def uses_note(self) -> str:
        """'used 3 times: the reference definition [ref]' ('' for a place of one link)."""
        if self.uses == 1:
            return ""
        reference = self.item.link.reference
        return f"used {self.uses} times" + (f": the reference definition [{reference}]" if reference else " at this place")


def target_of(item: LinkResult) -> str:
    """What a link's finding is about: its checked target, with the fragment only when the
    fragment is what is wrong."""
    if item.result.reason in FRAGMENT_REASONS:
        return item.resolved
    return item.resolved.partition("#")[0] or item.resolved


def place(item: LinkResult) -> str:
    """'docs/a.md:3:14'."""
    span = item.link.span
    return f"{span.path}:{span.line}:{span.column}"


def group_results(items: Iterable[LinkResult]) -> list[Group]:
    """`items` grouped by (target, status, reason): by status (broken first), then the largest
    group first, then by the first place; each group's places in file order."""
    found: dict[tuple[Status, str, str], list[LinkResult]] = {}
    for item in items:
        found.setdefault((item.result.status, str(item.result.reason), target_of(item)), []).append(item)
    groups = [
        Group(target=target, status=status, reason=reason, items=tuple(sorted(members, key=_position)))
        for (status, reason, target), members in found.items()
    ]
    return sorted(groups, key=lambda g: (_rank(g.status), -g.count, _position(g.first)))


def _position(item: LinkResult) -> tuple[str, int, int]:
    span = item.link.span
    return (span.path, span.line, span.column)


def _rank(status: Status) -> int:
    return STATUS_ORDER.index(status) if status in STATUS_ORDER else len(STATUS_ORDER)
