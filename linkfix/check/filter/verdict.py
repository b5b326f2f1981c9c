"""What the filter says of a link: checked, or not, with a closed reason and a sentence in words."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ...model import AnyReason, CheckResult, Reason, Status


class Decision(StrEnum):
    """Whether a link is checked, and if not, the kind of reason (closed)."""

    CHECKED = "checked"  # looked up in the site, or requested
    IGNORED = "ignored"  # a person said so where the link is: an ignore comment, an ignore attribute, an ignore file
    EXCLUDED = "excluded"  # an `exclude` pattern matches it (and no `include` one)
    OFFLINE = "offline"  # an external URL, and the run is --offline
    PRIVATE = "private"  # its host is a loopback, private or cloud metadata address
    UNSUPPORTED = "unsupported"  # a scheme linkfix does not check (mailto:, tel:, javascript:, ...)
    UNVERIFIED = "unverified"  # its target cannot be known here (made of an included file's text)
    INVALID = "invalid"  # no URL can be read from it: broken without a request


# The status of a link each decision leaves unchecked.
_STATUS = {
    Decision.IGNORED: Status.EXCLUDED,
    Decision.EXCLUDED: Status.EXCLUDED,
    Decision.OFFLINE: Status.EXCLUDED,
    Decision.PRIVATE: Status.EXCLUDED,
    Decision.UNSUPPORTED: Status.UNSUPPORTED,
    Decision.UNVERIFIED: Status.UNVERIFIED,
    Decision.INVALID: Status.BROKEN,
}
# Statuses of links that are not checked at all: what `--dump` leaves out and reports only count.
NOT_CHECKED = frozenset({Status.EXCLUDED, Status.UNSUPPORTED})


@dataclass(frozen=True, slots=True)
class Verdict:
    """The filter's answer for one link or URL. `reason` is the code reports carry, `why` the
    sentence they show."""

    decision: Decision
    reason: AnyReason = Reason.NONE
    why: str = ""

    @property
    def checked(self) -> bool:
        return self.decision is Decision.CHECKED

    @property
    def status(self) -> Status:
        """The status of the link when it is not checked (OK stands for "it is checked")."""
        return _STATUS.get(self.decision, Status.OK)

    def result(self, url: str, *, checked_at: float = 0.0) -> CheckResult:
        """The result of the unchecked link to `url`."""
        assert not self.checked, "a checked link's result is its check's"
        return CheckResult(url=url, status=_STATUS[self.decision], reason=self.reason, detail=self.why, checked_at=checked_at)


CHECKED = Verdict(Decision.CHECKED)
OFFLINE = Verdict(Decision.OFFLINE, Reason.OFFLINE, "external link not checked (--offline)")
OUTSIDE_BUILD_OFFLINE = Verdict(Decision.OFFLINE, Reason.OUTSIDE_BUILD,
                                "under the site's URL but not part of this build (another language, version or deployment); "
                                "checked as an external URL when online")
