"""One URL's check: whether it needs a request at all (`refusal`: the filter's word, check/filter),
which requests (HEAD or GET, a GET to confirm a HEAD, a soft-404 comparison, the page's ids for
#fragments: `fragments`), and what their answers mean (`policy` decides; this module asks)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Set
from dataclasses import dataclass, replace

from ...config import Config, parse_accept
from ...model import CheckResult, Reason, Redirect, Status
from ...store.cache import Cache
from ...urls import hostname, normalise_url, sibling_key
from .. import policy
from ..filter import LinkFilter
from .fragments import IDS_NAMESPACE, PageIds, ids_for, kept_record, page_ids
from .hosts import START, Host
from .network import NetworkWatch
from .probes import Soft404Probes
from .redirects import Redirects
from .transport import PAGE_BYTES, SNIFF_BYTES, Answer, Transport

# A HEAD 404/410 is confirmed with a GET (some servers answer HEAD wrongly), until this many
# GETs in one directory of a host agreed and none disagreed: after that the directory's HEAD
# 404s are believed. Per directory, because a site's HEAD handling differs by route, not by page.
HEAD_GONE_SAMPLE = 3
_HEAD_MISLEADS = -1


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """A URL's result plus the ids of its page when they were read (for #fragment checks)."""

    result: CheckResult
    ids: PageIds | None = None  # None: not an HTML page, or not read
    read_ids: bool = False  # the page was fetched for its ids (so None means "not HTML")

    def answers(self, fragment: str) -> bool:
        """Whether this outcome can judge `#fragment` (else the page's ids must be looked up again)."""
        if self.result.status not in (Status.OK, Status.REDIRECTED):
            return True
        return self.read_ids and (self.ids is None or self.ids.answers(fragment))


class UrlCheck:
    def __init__(
        self, config: Config, cache: Cache, transport: Transport, redirects: Redirects, network: NetworkWatch, *,
        want_ids: Mapping[str, Set[str]], ids_read: set[str],
    ) -> None:
        self.config = config
        self.cache = cache
        self.probes = Soft404Probes(cache, redirects)
        self._transport = transport
        self._redirects = redirects
        self._network = network
        self._want_ids = want_ids  # normalised URL -> the fragments submitted targets ask of its page (the front's)
        self._ids_read = ids_read  # normalised URLs whose page this run read for its ids (the front's)
        self._accept = parse_accept(config.accept)
        self.filter = LinkFilter(config)  # which URLs are requested
        self._head_gone: dict[str, int] = {}  # sibling key -> HEAD 404s a GET confirmed, or _HEAD_MISLEADS

    # -- no request -------------------------------------------------------------------------------
    def refusal(self, url: str) -> CheckResult | None:
        """A result that needs no request (the filter's: offline, unsupported scheme, excluded,
        forbidden address, unparseable)."""
        verdict = self.filter.request(url)
        return None if verdict.checked else verdict.result(url, checked_at=time.time())

    # -- the requests -------------------------------------------------------------------------------
    async def request(self, url: str, key: str, target: str, host: Host, *, want_ids: bool) -> Outcome:
        """The requests one URL (not in the cache) needs, and their verdict. `key` is its
        normalised form, `target` where its requests go (after remap), `host` the target's."""
        head_trusted = policy.head_is_trusted(hostname(target))
        probe_key = sibling_key(target)

        reads_ids = [want_ids]
        # A URL that failed (error, timeout) in the last run too gets one try, and a GET: backing
        # off and retrying is for passing trouble, and a HEAD's 5xx would be asked again by GET.
        previous = self.cache.last_result(url)
        failed_before = previous is not None and previous.status in (Status.ERROR, Status.TIMEOUT)
        retries = 0 if failed_before else None
        lenient = self.probes.lenient

        def choose() -> str:
            # Decided when the request gets its slot, not when the URL was queued: by then a
            # probe may have shown that this directory needs GET anyway, or a fragment link to
            # this URL may have turned up.
            reads_ids[0] = want_ids or key in self._want_ids
            return "GET" if reads_ids[0] or probe_key in lenient or failed_before or not head_trusted or host.prefers_get else "HEAD"

        def read() -> int:  # asked after choose(), for every hop of this URL
            return PAGE_BYTES if reads_ids[0] else SNIFF_BYTES

        answer, chain, stop = await self._redirects.follow(target, choose, read, priority=START, retries=retries)
        headed = answer.method == "HEAD"
        if headed and stop is None and answer.status and policy.should_retry_with_get(answer.status) and not self._believe_head(answer):
            if answer.status in (405, 501):
                host.head_ok = False  # the host does not do HEAD: save a request on its next URLs
            head = answer
            answer, chain, stop = await self._redirects.follow(target, "GET", read, retries=retries)
            if head.status in policy.GONE and stop is None and answer.status:
                self._learn_head_gone(head, agreed=answer.status in policy.GONE)
        want_ids = reads_ids[0]
        result = self._judge(url, answer, chain, stop)
        every_id: frozenset[str] | None = None  # the page's, only while this answer is judged
        ids: PageIds | None = None
        if result.status in (Status.OK, Status.REDIRECTED) and answer.status == 200 and answer.is_html:
            result, answer = await self.probes.judge(result, answer, got_body=answer.method == "GET")
            if want_ids and result.status is not Status.BROKEN:
                every_id = page_ids(answer.text(), answer.url)
                ids = ids_for(self._want_ids.get(key, ()), every_id)  # all fragments asked so far, against every id
        if headed:
            host.heads += 1
            host.heads_wasted += answer.method == "GET"
        if not (result.reason == Reason.DNS and not self._network.answered):
            # A name that fails while no host has answered yet may be a dead network, not a dead
            # link: only remember it once the network has shown it works.
            self.cache.put_result(url, result)
        read_ids = want_ids and answer.method == "GET" and result.status in (Status.OK, Status.REDIRECTED)
        if read_ids:
            self._ids_read.add(key)
            # For fragments asked later; {"ids": None} remembers "not an HTML page" so the next
            # run does not fetch it again.
            self.cache.set(IDS_NAMESPACE, key, kept_record(every_id), _ids_ttl(result, self.cache.max_age))
        return Outcome(result=result, ids=ids, read_ids=read_ids)

    def _believe_head(self, answer: Answer) -> bool:
        """Whether a HEAD's 404/410 stands without a GET (see HEAD_GONE_SAMPLE)."""
        return answer.status in policy.GONE and self._head_gone.get(sibling_key(answer.url), 0) >= HEAD_GONE_SAMPLE

    def _learn_head_gone(self, head: Answer, *, agreed: bool) -> None:
        key = sibling_key(head.url)
        seen = self._head_gone.get(key, 0)
        if seen != _HEAD_MISLEADS:
            self._head_gone[key] = seen + 1 if agreed else _HEAD_MISLEADS

    # -- what the answers mean ----------------------------------------------------------------------------
    def _judge(self, url: str, answer: Answer, chain: tuple[Redirect, ...], stop: policy.Verdict | None) -> CheckResult:
        verdict, http_status = self._verdict(answer, chain, stop)
        return CheckResult(
            url=url,
            status=verdict.status,
            reason=verdict.reason,
            detail=verdict.detail,
            http_status=http_status,
            redirects=chain,
            final_url=answer.url if chain else "",
            permanent=policy.is_permanent(chain),
            checked_at=time.time(),
        )  # built once: dataclasses.replace per step showed up in profiles

    def _verdict(self, answer: Answer, chain: tuple[Redirect, ...], stop: policy.Verdict | None) -> tuple[policy.Verdict, int | None]:
        """What the exchange means, and the HTTP status to report with it (None: no answer)."""
        if stop is not None:
            return stop, None
        if answer.error in (Reason.PRIVATE_ADDRESS, Reason.METADATA_ADDRESS):  # caught at DNS or connection
            return policy.Verdict(status=Status.EXCLUDED, reason=answer.error, detail=answer.detail), None
        if answer.status == 0:
            return policy.judge_network_error(answer.error, answer.detail), None
        # Only an anti-bot answer needs its body read (markers); decoding every body costs.
        body = answer.text()[:20000] if answer.body and answer.status in policy.CHALLENGE_STATUSES else ""
        verdict = policy.judge_status(
            answer.status, answer.header_map, accept=self._accept, blocked_is_broken=self.config.blocked_is_broken, body=body
        )
        if answer.retry_after() > policy.MAX_RETRY_AFTER and verdict.status is not Status.OK:
            asked = answer.header_map.get("Retry-After", "").strip()
            verdict = replace(verdict, detail=f"{verdict.detail} (it asks to wait {asked}: longer than linkfix waits, {policy.MAX_RETRY_AFTER:.0f} s)")
        if chain and verdict.status is Status.OK and normalise_url(answer.url) == normalise_url(chain[0].url):
            return verdict, answer.status  # back where it started (a cookie round trip): no redirect for the reader
        if chain and verdict.status is Status.OK:
            hidden = policy.judge_redirect_target(chain[0].url, answer.url)
            if hidden is not None:
                return hidden, answer.status
            kind = Reason.PERMANENT if policy.is_permanent(chain) else Reason.TEMPORARY
            return policy.Verdict(status=Status.REDIRECTED, reason=kind, detail=f"{kind} redirect to {answer.url}"), answer.status
        return verdict, answer.status


def _ids_ttl(result: CheckResult, max_age: float) -> float:
    # At least an hour, whatever max_cache_age says: the record also answers this run's
    # fragments asked after the page was read (ids are used only with a fresh result).
    return max(max_age if result.status is Status.OK else max_age / 4, 3600.0)
