"""A run's request budget: at most so many requests, over every HTTP client the run opens.

A crawl reads pages a stranger serves, and each page decides how many links there are to
check: one page with 200,000 links would be 100,000 requests (the per-file link cap). The
runner sets the budget (`check --crawl --crawl-requests N`); past it, nothing more is sent, and
what was left is reported as not checked, with the reason (`Reason.REQUEST_BUDGET`).
"""

from __future__ import annotations


class RequestBudget:
    def __init__(self, limit: int, *, setting: str) -> None:
        """`limit` requests at most; `setting` names where the runner sets it (for messages)."""
        self.limit = limit
        self.setting = setting
        self.sent = 0
        self.refused = 0  # requests not sent because the budget was spent

    def take(self) -> bool:
        """Count one request about to be sent; False (and it must not be sent) when none is left."""
        if self.sent >= self.limit:
            self.refused += 1
            return False
        self.sent += 1
        return True

    @property
    def spent(self) -> bool:
        return self.sent >= self.limit

    @property
    def detail(self) -> str:
        return f"not checked: the run's request budget ({self.setting} {self.limit}) was spent"
