"""linkfix on the real moves, two ways.

one_run: the whole docs tree in one `linkfix.pipeline.run_check` (what `linkfix check --suggest
-f json` does, in-process so that the simulated web's resolver can be handed over), with the
shipped recovery settings: the archive client-limited as linkfix limits it, the server limited
as the Internet Archive does. Each recovery's counters (its own seconds and requests, its wait
for the archive and its share of archive requests) come from run_check's `on_recovery` hook;
`archive_wait` makes the run wait for every archive lookup, `cache_dir` keeps what the archive
answered for the next run.

per_case: one Recoverer, the cases one after another, each link taken from linkfix's own
extraction of the case's file and checked by linkfix's checker first. Every candidate the
recoverer considered is recorded from its public trace (`Recoverer.recover_traced`): URL, how
it was found, whether it was fetched and what came back, its features, its confidence under
the shipped weights and the gate's verdict. For analysis the archive lookups are made to wait
rather than be skipped (`requests_per_minute` 28, just under the archive's 30, and
`max_seconds` 150); the one-run mode measures the shipped behaviour. With a cache directory
(`cache_dir`) every remote answer is kept between runs: a second run asks the archive nothing
and takes minutes (for iterating on ranking; figures come from a cold run).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag

from linkfix.check.http import HttpChecker
from linkfix.config import Config, validate
from linkfix.formats.markdown import extract_markdown
from linkfix.model import Evidence, Link, LinkKind, LinkResult, Page, Scope, Span
from linkfix.pipeline import run_check
from linkfix.recover import recoverer as recover_flow
from linkfix.recover.anchors import analyse_anchor
from linkfix.recover.trace import CandidateTrace
from linkfix.store.cache import Cache
from linkfix_simweb.realmoves.dataset import MoveCase
from linkfix_simweb.realmoves.web import RealWeb

from .docs_tree import Written, dead_url

log = logging.getLogger(__name__)

PER_CASE_ARCHIVE = {"requests_per_minute": 28}
PER_CASE_MAX_SECONDS = 150.0


@dataclass(slots=True)
class OneRun:
    results: dict[str, LinkResult]  # case id -> its link's result
    wall: float
    recover_seconds: dict[str, float]  # dead URL -> seconds its own recovery took
    requests_sent: int = 0
    timed_out: bool = False
    stats: Any = None  # linkfix.recover.run.RunStats


def _config(real: RealWeb, **extra: Any) -> Config:
    archive = extra.pop("archive", None)
    config = Config(**real.config_overrides(archive=archive), gitignore=False, **{"cache": False, **extra})
    validate(config)
    return config


async def one_run(real: RealWeb, written: list[Written], docs_dir: Path, *, timeout: float, archive_wait: bool = False,
                  cache_dir: Path | None = None, archive_seconds: float | None = None) -> OneRun:
    extra: dict[str, Any] = {"archive_wait": archive_wait}
    if archive_seconds is not None:
        extra["archive_seconds"] = archive_seconds
    if cache_dir is not None:
        extra.update(cache=True, cache_dir=str(cache_dir))
    config = _config(real, **extra)
    stats: list[Any] = []
    started = time.monotonic()
    timed_out = False
    try:
        report = await asyncio.wait_for(run_check([str(docs_dir)], config, resolver=real.web.resolver,
                                                  on_recovery=stats.append), timeout)
    except TimeoutError:
        timed_out, report = True, None
    wall = time.monotonic() - started
    by_url = {urldefrag(dead_url(w.case, w.parent))[0]: w.case.id for w in written}
    results: dict[str, LinkResult] = {}
    for lr in report.results if report is not None else ():
        case_id = by_url.get(urldefrag(lr.link.url)[0])
        if case_id is not None and lr.scope is Scope.EXTERNAL:
            results[case_id] = lr
    run_stats = stats[0] if stats else None
    seconds = {s.url: s.seconds for s in run_stats.links} if run_stats is not None else {}
    return OneRun(results=results, wall=wall, recover_seconds=seconds, timed_out=timed_out, stats=run_stats)


# -- per case ---------------------------------------------------------------------------------


@dataclass(slots=True)
class CaseRun:
    case: MoveCase
    parent: bool
    check_status: str = ""
    check_reason: str = ""
    anchor: str = ""
    weak_anchor: bool = False
    archived: bool = False
    suggestions: list[dict[str, Any]] = field(default_factory=list)
    candidates: list[dict[str, Any]] = field(default_factory=list)
    stage: str = ""  # gate | exact: which step returned
    requests: int = 0
    seconds: float = 0.0
    error: str = ""


def _link_for(written: Written | None, case: MoveCase) -> Link:
    """The case's link as linkfix extracts it from the case's file; a link with no text and no
    page for a case without a linking page (recovery then has only the URL and the archive)."""
    if written is not None:
        text = written.path.read_text(encoding="utf-8")
        wanted = dead_url(case, written.parent)
        for link in extract_markdown(text, str(written.path)).links:
            if link.url == wanted:
                return link
    span = Span(path="(no parent)", line=1, column=1, start=0, end=len(case.old_url))
    return Link(url=case.old_url, kind=LinkKind.INLINE, span=span, page=Page(path="(no parent)"))


def _candidate(c: CandidateTrace, real: RealWeb) -> dict[str, Any]:
    """One traced candidate as the dump keeps it (real URLs, not the loopback ones)."""
    return {
        "url": real.canonical(c.url), "final_url": real.canonical(c.final_url), "method": c.method, "provider": c.provider,
        "query": c.query, "rank": c.rank, "hits": c.found_by, "fetched": c.fetched, "page_status": c.status, "title": c.title,
        "features": dict(c.features), "confidence": c.confidence, "verdict": c.verdict, "reason": c.reason, "section": c.section,
        "named_section": c.named_section,
    }


async def per_case(real: RealWeb, cases: list[MoveCase], written: list[Written], *, orphans: bool,
                   deadline: float, cache_dir: Path | None = None, archive: dict[str, Any] | None = None) -> list[CaseRun]:
    """`archive`: linkfix's archive settings (default PER_CASE_ARCHIVE, the public archive's pace)."""
    config = _config(real, archive=PER_CASE_ARCHIVE if archive is None else archive, max_seconds=PER_CASE_MAX_SECONDS)
    by_case = {w.case.id: w for w in written}
    cache = Cache(cache_dir, max_age=30 * 86400) if cache_dir is not None else Cache(None)
    with cache:  # closing flushes what the run learned to the cache directory
        return await _per_case(real, cases, by_case, config, cache, orphans=orphans, deadline=deadline)


async def _per_case(real: RealWeb, cases: list[MoveCase], by_case: dict[str, Written], config: Config, cache: Cache, *,
                    orphans: bool, deadline: float) -> list[CaseRun]:
    runs: list[CaseRun] = []
    async with HttpChecker(config, cache, resolver=real.web.resolver) as client:
        recoverer = recover_flow.Recoverer(config=config, client=client, cache=cache, link_times={})
        for case in cases:
            w = by_case.get(case.id)
            if w is None and not orphans:
                continue
            run = CaseRun(case=case, parent=w is not None)
            runs.append(run)
            if time.monotonic() > deadline:
                run.error = "benchmark deadline reached"
                continue
            link = _link_for(w, case)
            run.anchor = link.anchor_text
            run.weak_anchor = analyse_anchor(link.anchor_text).weak
            before, started = client.requests_sent, time.monotonic()
            try:
                check = await client.check(urldefrag(link.url)[0])
                run.check_status, run.check_reason = check.status.value, check.reason
                lr = LinkResult(link=link, resolved=link.url, scope=Scope.EXTERNAL, result=check)
                if recover_flow.wants_recovery(lr):
                    trace = await asyncio.wait_for(recoverer.recover_traced(lr), PER_CASE_MAX_SECONDS + 30)
                    recoverer.learn(lr.resolved, trace.suggestions)
                    run.archived = trace.archived is not None
                    run.stage = trace.stage
                    run.suggestions = [
                        {"url": real.canonical(s.url), "confidence": s.confidence, "method": s.method, "score": s.score,
                         "hold": str(s.evidence.get(Evidence.HOLD, "")), "features": dict(s.evidence.get(Evidence.FEATURES, {}))}
                        for s in trace.suggestions
                    ]
                    run.candidates = [_candidate(c, real) for c in trace.candidates]
            except TimeoutError:
                run.error = "recovery timed out"
            run.requests, run.seconds = client.requests_sent - before, time.monotonic() - started
            log.info("%s: %d candidates, %d suggestions, %.1f s", case.id, len(run.candidates), len(run.suggestions), run.seconds)
    return runs
