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
recoverer considered is recorded before its gate by wrapping the instance's `_gate` and
`_finish` (they receive the `found` table): URL, how it was found, whether it was fetched and
what came back, its features and its confidence under the shipped weights. For analysis the
archive lookups are made to wait rather than be skipped (`requests_per_minute` 28, just under
the archive's 30, and `max_seconds` 150); the one-run mode measures the shipped behaviour.
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
from linkfix.extract.markdown import extract_markdown
from linkfix.model import Link, LinkKind, LinkResult, Page, Scope, Span
from linkfix.pipeline import run_check
from linkfix.recover import calibration
from linkfix.recover import pipeline as recover_pipeline
from linkfix.recover.anchors import analyse_anchor
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


def _entry(entry: Any) -> dict[str, Any]:
    page = entry.page
    features = dict(entry.features)
    first = entry.hits[0] if entry.hits else None
    return {
        "url": entry.url,
        "final_url": page.url if page is not None else "",
        "method": entry.method,
        "fetched": entry.fetched,
        "page_status": page.status if page is not None else None,
        "title": page.title if page is not None else (first.title if first else ""),
        "prescore": round(entry.prescore, 6),
        "hits": len(entry.hits),
        "query": first.query if first else "",
        "provider": first.provider if first else "",
        "flags": dict(entry.flags),
        "features": features,
        "confidence": round(calibration.confidence(features), 6) if features else None,
    }


def _instrument(recoverer: Any, record: dict[str, Any]) -> None:
    """Record the `found` table each time the recoverer reaches its gate or finishes early."""
    gate, finish = recoverer._gate, recoverer._finish

    async def gate_hook(found, ref, capture, copy):
        record.update(stage="gate", found=[_entry(f) for f in found.values()], copy=bool(ref.copy_terms))
        return await gate(found, ref, capture, copy)

    def finish_hook(found, ref):
        record.update(stage="exact", found=[_entry(f) for f in found.values()], copy=bool(ref.copy_terms))
        return finish(found, ref)

    recoverer._gate, recoverer._finish = gate_hook, finish_hook


async def per_case(real: RealWeb, cases: list[MoveCase], written: list[Written], *, orphans: bool,
                   deadline: float) -> list[CaseRun]:
    config = _config(real, archive=PER_CASE_ARCHIVE, max_seconds=PER_CASE_MAX_SECONDS)
    by_case = {w.case.id: w for w in written}
    cache = Cache(None)
    runs: list[CaseRun] = []
    async with HttpChecker(config, cache, resolver=real.web.resolver) as client:
        recoverer = recover_pipeline.Recoverer(config=config, client=client, cache=cache, link_times={})
        record: dict[str, Any] = {}
        _instrument(recoverer, record)
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
            record.clear()
            before, started = client.requests_sent, time.monotonic()
            try:
                check = await client.check(urldefrag(link.url)[0])
                run.check_status, run.check_reason = check.status.value, check.reason
                lr = LinkResult(link=link, resolved=link.url, scope=Scope.EXTERNAL, result=check)
                if recover_pipeline.wants_recovery(lr):
                    suggestions, archived = await asyncio.wait_for(recoverer.recover(lr), PER_CASE_MAX_SECONDS + 30)
                    recoverer.learn(lr.resolved, suggestions)
                    run.archived = archived is not None
                    run.suggestions = [
                        {"url": real.canonical(s.url), "confidence": s.confidence, "method": s.method, "score": s.score,
                         "features": dict(s.evidence.get("features", {}))}
                        for s in suggestions
                    ]
            except TimeoutError:
                run.error = "recovery timed out"
            run.requests, run.seconds = client.requests_sent - before, time.monotonic() - started
            run.stage = record.get("stage", "")
            run.candidates = [dict(c, url=real.canonical(c["url"]), final_url=real.canonical(c["final_url"]))
                              for c in record.get("found", [])]
            log.info("%s: %d candidates, %d suggestions, %.1f s", case.id, len(run.candidates), len(run.suggestions), run.seconds)
    return runs
