"""Results shared by the runs of a shared store, and one fetch per URL at a time among them.

A URL this run has no fresh record of is looked up in the store before it is queued for its
host. A record there is taken on this run's own terms (`adopt`): fresh only as long as this
run's `max_cache_age` allows, whoever wrote it, and then kept in the local cache too, so the
run still has it if the store goes away. Otherwise the run claims the URL: the claim's holder
checks it and stores its answer (record and page ids); a run that finds the URL claimed by a
live run waits for that answer instead of asking the host again, and takes it even when it is
not a result to reuse later (an error): two runs that ask at once get one answer. A claim whose
holder died (its `alive` key expired), a holder that stored no answer, or a store gone down:
the waiter checks the URL itself.

Records are keyed by the URL (normalised, as the local cache is) and the settings that decide
its verdict (`profile`): two projects that check a URL the same way share one entry; one that
sends its own headers to a host, accepts other statuses or rewrites requests has its own.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from ...config import Config
from ...config.load import parse_accept
from ...model import CheckResult
from ...store.cache import Cache, keep_seconds, result_ttl
from ...store.records import UrlRecord, decode_result
from ...store.shared import DONE, SharedStore, name
from ...store.values import MISS, dumps, loads
from ...urls import hostname, normalise_url
from .fragments import IDS_NAMESPACE
from .url_check import Outcome

log = logging.getLogger(__name__)

RECORD_BYTES = 65_536  # a record is a few hundred bytes; one this long was not written by linkfix
IDS_BYTES = 4 * 1024 * 1024  # a page's kept ids (fragments.KEPT_ID_CHARS), escaped, with room
WAIT_POLL = 4.0  # a waiter looks again this often without a wake-up (a lost message, a dead holder)
WAIT_LIMIT = 600.0  # a claim waited on this long is checked here all the same
IDS_MIN_SECONDS = 3600.0  # as url_check keeps them: an hour at least


class SharedResults:
    def __init__(self, config: Config, cache: Cache, store: SharedStore) -> None:
        self.config = config
        self.cache = cache
        self.store = store
        self.waited = 0  # URLs whose answer came from another run's check (for the log)
        self._profiles: dict[str, str] = {}  # host name -> profile

    def profile(self, url: str) -> str:
        """What decides the verdict on `url` besides its answers: two runs whose profiles
        differ never read each other's records (header values go into a hash, never the store)."""
        host = hostname(url)
        found = self._profiles.get(host)
        if found is None:
            config = self.config
            settings = {"accept": sorted(parse_accept(config.accept)), "blocked_is_broken": config.blocked_is_broken,
                        "user_agent": config.user_agent, "max_redirects": config.max_redirects, "remap": config.remap,
                        "headers": sorted(config.host_settings(host).headers.items())}
            found = self._profiles[host] = name(json.dumps(settings, sort_keys=True))[:16]
        return found

    async def outcome(self, url: str, *, want_ids: bool, known: Callable[[], Outcome | None],
                      check: Callable[[], Awaitable[Outcome]]) -> Outcome:
        """`url`'s outcome: from the store when a run has the answer, from `check()` (this run's
        own requests) when this run holds its claim or the store cannot help. `known()` is the
        outcome the local cache gives once a record is adopted (None: requests are needed)."""
        if not await self.store.open():
            return await check()
        try:
            key = name(self.profile(url), normalise_url(url))
        except ValueError:  # a URL the checker will refuse (invalid): nothing to share
            return await check()
        items = [(key, RECORD_BYTES), *([("ids:" + key, IDS_BYTES)] if want_ids else [])]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_LIMIT
        seen: str | None = None  # the record's text at the last look
        looked = claimed = False
        while True:
            texts = await self.store.read(items)
            text = texts.get(key)
            if text is not None and text != seen:  # there from before, or a new answer
                found = self._answer(url, text, texts.get("ids:" + key), known, new=looked)
                if found is not None:
                    if claimed:  # the answer came just before the claim: give it up
                        await self.store.finish(key, [])
                    return found
            if claimed:  # and no answer came in meanwhile
                return await self._checked(url, key, check)
            seen, looked = text, True
            claimed = bool(await self.store.claim(key))
            if claimed:
                continue  # one more look: a run may have stored its answer between the look and the claim
            if not self.store.up or loop.time() > deadline:
                return await check()
            await self.store.woken(DONE, key, WAIT_POLL)

    def _answer(self, url: str, text: str, ids_text: str | None, known: Callable[[], Outcome | None], *, new: bool) -> Outcome | None:
        """The outcome a stored record gives: a fresh one answers as the local cache would;
        one `new` since this run first looked (another run's check of this round) answers even
        when it is not for reuse (an error)."""
        adopted = self._adopt(url, text, ids_text)
        if adopted is None:
            return None
        try:
            found = known()
        except Exception:  # a damaged local record: as good as none (as HttpChecker treats it)
            found = None
        answer, fresh = adopted
        if found is None and new and not fresh:
            found = Outcome(result=answer)
        self.waited += found is not None and new
        return found

    async def _checked(self, url: str, key: str, check: Callable[[], Awaitable[Outcome]]) -> Outcome:
        """`check()` under this run's claim; its answer stored, the claim given up, whatever happens."""
        before = self.cache.record(url)
        try:
            return await check()
        finally:
            after = self.cache.record(url)
            rows = [] if after is before or after.result is None else self._rows(url, key, after)
            await self.store.finish(key, rows)

    def _rows(self, url: str, key: str, record: UrlRecord) -> list[tuple[str, str, float]]:
        rows = [(key, dumps(record.encode()), keep_seconds(record))]
        ids = self.cache.get(IDS_NAMESPACE, normalise_url(url))
        if ids is not None:
            rows.append(("ids:" + key, dumps(ids), max(record.fresh_until - time.time(), IDS_MIN_SECONDS)))
        return rows

    def _adopt(self, url: str, text: str, ids_text: str | None) -> tuple[CheckResult, bool] | None:
        """Take the store's record of `url` into the local cache, on this run's terms: (its
        result, whether it is fresh); None when the text is not a record of this URL."""
        try:
            record = UrlRecord.decode(loads(text))
            result = decode_result(record.result, from_cache=True)
            if result is None or normalise_url(result.url) != normalise_url(url):
                return None
            now = time.time()
            ttl = result_ttl(result.status, self.cache.max_age)
            # Never fresher than this run's own rules make it, whatever the writer's were (or
            # its clock: a checked_at in the future counts from now).
            fresh_until = min(record.fresh_until, result.checked_at + ttl, now + ttl) if ttl > 0 else 0.0
            local = decode_result(self.cache.record(url).result)
            if local is None or local.checked_at <= result.checked_at:
                self.cache.adopt(url, replace(record, fresh_until=fresh_until))
                ids = MISS if ids_text is None else loads(ids_text)
                if ids is not MISS and fresh_until > now:  # its shape is checked where it is read (fragments.decode_record)
                    self.cache.set(IDS_NAMESPACE, normalise_url(url), ids, fresh_until - now)
            return result, fresh_until > now
        except Exception as exc:  # a record that breaks a decoder is garbage: no record
            log.debug("shared cache: record of %s unusable: %r", url, exc)
            return None
