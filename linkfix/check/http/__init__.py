"""External URL checking: one aiohttp session, polite per host, redirects by hand, cached.

checker (HttpChecker: the front) -> url_check (one URL's requests and verdict) -> redirects
(chains, per-chain cookies) -> hosts (per-host runners, pacing, retries; admission) ->
transport (session, connection guard, one exchange); network (network down is not link rot),
probes (soft-404 probing). `policy` and `soft404` (one level up) are the pure judgement.
"""

from .budget import RequestBudget
from .checker import HttpChecker, Progress
from .fragments import page_ids
from .transport import PAGE_BYTES, SNIFF_BYTES, Fetched

__all__ = ["PAGE_BYTES", "SNIFF_BYTES", "Fetched", "HttpChecker", "Progress", "RequestBudget", "page_ids"]
