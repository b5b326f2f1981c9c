"""What a reviewer can do about a finding that comes with no suggestion to accept, in a sentence.

Chosen by what is known of the finding (its status, why, where it points), never by guessing:
a missing page of the project, a missing id, a dead page elsewhere, a site that refused the
check, one that did not answer, one only the built site can tell about.
"""

from __future__ import annotations

from ..inputs.walk import MARKDOWN_SUFFIXES
from ..model import LinkResult, Reason, Scope, Status

_EXTERNAL_BROKEN = ("No replacement was found. Look for the page on its site (or in a search engine), "
                    "link the archived copy, or remove the link.")

_HINTS = {
    Status.BLOCKED: "The site refused an automated check: open the link in a browser. If it works, a pattern "
                    "under `exclude` in the configuration stops checking it.",
    Status.TIMEOUT: "The site did not answer in time: run the check again later, or raise `timeout` for it.",
    Status.ERROR: "The server failed or the connection did: run the check again later. If it lasts, the site "
                  "may be gone: look for the page elsewhere.",
    Status.UNVERIFIED: "Only the built site can tell: check the built HTML (`linkfix check site/`) or build with "
                       "the linkfix MkDocs plugin.",
}


def what_to_do(item: LinkResult) -> str:
    """One or two sentences for a finding without a suggestion ('' for a redirect, which says
    its own)."""
    result = item.result
    if result.status is Status.REDIRECTED:
        return ""
    if result.status is not Status.BROKEN:
        return _HINTS.get(result.status, "")
    reason = result.reason
    if reason == Reason.MISSING_FRAGMENT:
        listed = " (listed above)" if "its ids:" in result.detail else ""
        return f"The page exists but has no such id: pick one of its ids{listed} or link the page without the #fragment."
    if reason == Reason.OUTSIDE_ROOT:
        return "The link climbs above the site's root: write it relative to a page inside the site."
    if item.scope is Scope.INTERNAL:
        said = ("No page of the project was found to replace it: restore the file, point the link at the page "
                "that took its place, or remove the link.")
        if item.link.span.path.lower().endswith(tuple(MARKDOWN_SUFFIXES)) and not item.suggestions:
            said += " (A page renamed with `git mv` is found when the check runs with `--suggest` in the repository.)"
        return said
    if item.archived is not None:
        return ("No live replacement was found. Link the archived copy (below), look for the page on its site, "
                "or remove the link.")
    if reason == Reason.DNS:
        return "The host name no longer exists: the site is gone or moved. Link the archived copy, or remove the link."
    return _EXTERNAL_BROKEN
