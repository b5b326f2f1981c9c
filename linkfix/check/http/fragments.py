"""`#fragment` links into remote pages: what is kept of a page's ids, and what a fragment's
answer is.

A page may hold any number of ids (a stranger's page of 8 MiB holds 600,000 of them), and a run
may link to many such pages, so a run keeps of a page only what its fragment links need:
- when the page is read, every fragment asked of it by then is decided against all its ids;
  the run keeps only the ids that answer them (`PageIds.found`);
- the cache keeps the page's ids for fragments asked later (this run's later links, or the next
  run's), at most KEPT_IDS of them and KEPT_ID_CHARS characters (the first in sorted order);
- a fragment asked later is decided against those: present, or absent from a page whose ids
  were all kept, is exact; absent from a page over the cap is unverified, and says so.
A later run reads such a page again rather than answer from a partial record (`from_cache`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal
from urllib.parse import unquote

from ...formats.html import extract_html
from ...model import CheckResult, Reason, Status

IDS_NAMESPACE = "ids"
KEPT_IDS = 10_000  # ids of one page kept (real pages have a few hundred; a long spec a few thousand)
KEPT_ID_CHARS = 200_000  # and characters, so that the cache's record of a page stays small


@dataclass(frozen=True, slots=True, kw_only=True)
class PageIds:
    """What a run knows of a page's ids: for each fragment it `asked` about, whether the page
    has it (`found` holds the spellings of those it has, see `spellings`). `kept` is set when
    the answer came from ids kept in part: the first `kept` of the page's `total`."""

    asked: frozenset[str]
    found: frozenset[str] = frozenset()
    kept: int | None = None
    total: int = 0

    def answers(self, fragment: str) -> bool:
        return fragment in self.asked


def page_ids(html: str, url: str) -> frozenset[str]:
    """Fragment targets of a page: element ids and <a name> anchors (the HTML extractor's)."""
    return frozenset(extract_html(html, url, want_text=False).page.ids)


def fragment_always_ok(fragment: str) -> bool:
    """Fragments every browser honours without an id: the top of page, text directives."""
    return fragment.lower() in ("top", "") or fragment.startswith(":~:")


def spellings(fragment: str) -> tuple[str, ...]:
    """The ids that satisfy `#fragment`: as written, percent-decoded, and GitHub's rendering
    (ids as "user-content-x", scrolled to from "#x" by a script)."""
    decoded = unquote(fragment)
    return fragment, decoded, f"user-content-{decoded}"


def ids_for(asked: Collection[str], ids: Collection[str], *, kept: int | None = None, total: int = 0) -> PageIds:
    """The PageIds for fragments `asked` of a page whose ids (all of them, or the `kept` first
    of `total`) are `ids`."""
    found = frozenset(spelling for fragment in asked for spelling in spellings(fragment) if spelling in ids)
    return PageIds(asked=frozenset(asked), found=found, kept=kept, total=total)


def judge_fragment(result: CheckResult, fragment: str, ids: PageIds | None) -> CheckResult:
    """`result` (its URL's) for the link with `#fragment`: broken when the page lacks the id,
    unverified when that cannot be told (the page's ids were not all kept)."""
    if ids is None or result.status not in (Status.OK, Status.REDIRECTED) or fragment_always_ok(fragment):
        return result
    if ids.found.intersection(spellings(fragment)):
        return result
    decoded = unquote(fragment)
    if not ids.answers(fragment):  # the checker asks again before it judges: not expected
        return replace(result, status=Status.UNVERIFIED, reason=Reason.TOO_MANY_IDS, detail=f"the page's ids were not read for {decoded!r}")
    if ids.kept is not None:
        return replace(result, status=Status.UNVERIFIED, reason=Reason.TOO_MANY_IDS,
                       detail=f"the page has {ids.total:,} ids, more than the {ids.kept:,} linkfix keeps, and {decoded!r} is not among "
                              "those kept (it was asked after the page was read)")
    return replace(result, status=Status.BROKEN, reason=Reason.MISSING_FRAGMENT, detail=f"the page has no element with id {decoded!r}")


def kept_record(ids: Iterable[str] | None) -> dict[str, Any]:
    """The cache's record of a page's ids: the first KEPT_IDS (sorted; at most KEPT_ID_CHARS
    characters), with the page's total when that is more. {"ids": None}: not an HTML page."""
    if ids is None:
        return {"ids": None}
    every = sorted(ids)
    kept: list[str] = []
    chars = 0
    for ident in every:
        chars += len(ident)
        if len(kept) >= KEPT_IDS or chars > KEPT_ID_CHARS:
            break
        kept.append(ident)
    return {"ids": kept} if len(kept) == len(every) else {"ids": kept, "of": len(every)}


def decode_record(data: Any) -> tuple[frozenset[str], int | None] | Literal[False] | None:
    """(ids, total when only some were kept) as the cache holds them; None for "not an HTML
    page"; False for a miss, or for anything not in that shape (the cache's bytes are not ours
    to trust)."""
    if not isinstance(data, dict) or "ids" not in data:
        return False
    ids, total = data["ids"], data.get("of")
    if ids is None:
        return None
    if not (isinstance(ids, list) and all(type(i) is str for i in ids)):
        return False
    if total is not None and not (type(total) is int and total > len(ids)):
        return False
    return frozenset(ids), total
