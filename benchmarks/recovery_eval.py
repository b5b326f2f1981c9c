"""Evaluation of recovery on the simulated web: does linkfix find where dead content went?

    python benchmarks/recovery_eval.py                 # all cases, 50 ms latency per response

The synthetic corpus covers the unit-level cases well ("none" answers, moves to other hosts,
rewrites); the calibration is fitted on real moves instead (benchmarks/recovery_real.py, the
primary recovery benchmark), since synthetic moves do not look like real ones.

The web and its cases come from `fixtures/linkfix_simweb/corpus.py` (real prose from the Python
3.11 documentation over several sites, an archive speaking the Wayback APIs, a SearXNG-style
search engine; each case a dead link with a known answer or "none"). Each dead URL is first
checked by linkfix's own checker (its real status, redirect chain), then recovered by the
pipeline, one link after another in one run (so site indexes and learned rewrites carry over,
as in a real run). Requests and seconds are counted for recovery alone.

Printed, per case type and overall: success@1 and @10 and MRR on answerable cases, precision
and coverage of suggestions at or above the auto-fix confidence, "none" cases with a suggestion
above it, requests and seconds per broken link; beside the papers' headline figures.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "fixtures"))

from linkfix.check.http import HttpChecker  # noqa: E402
from linkfix.config import Config  # noqa: E402
from linkfix.model import Candidate, CheckResult, Link, LinkKind, LinkResult, Page, Scope, Span  # noqa: E402
from linkfix.recover import calibration  # noqa: E402
from linkfix.recover.recoverer import Recoverer, wants_recovery  # noqa: E402
from linkfix.store.cache import Cache  # noqa: E402
from linkfix_simweb import SimWeb  # noqa: E402
from linkfix_simweb.corpus import Case, build_web, is_correct  # noqa: E402

PAPERS = (
    ("Martinez-Romo & Araujo 2010", "74% of 748 real broken links recovered (top 110); ~17 s per link"),
    ("Klein & Nelson 2014", "up to 77% top-ranked (title + lexical signature combined); ~70% single method"),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    case: Case
    check: CheckResult
    suggestions: tuple[Candidate, ...]
    requests: int
    seconds: float


def case_split(case: Case) -> int:
    """0 = fit half, 1 = report half: a hash of the case id, stable and blind to the answer."""
    return int(hashlib.sha256(case.id.encode()).hexdigest(), 16) % 2


def parent_text(docs_dir: Path, case: Case) -> str:
    path = docs_dir / case.parent_path
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return case.context
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # markdown links -> their text


def link_result(case: Case, check: CheckResult, docs_dir: Path) -> LinkResult:
    page = Page(path=case.parent_path, title=case.parent_title, text=parent_text(docs_dir, case))
    span = Span(path=case.parent_path, line=1, column=1, start=0, end=len(case.dead_url))
    link = Link(url=case.dead_url, kind=LinkKind.INLINE, span=span, page=page, anchor_text=case.anchor, context=case.context)
    return LinkResult(link=link, resolved=case.dead_url, scope=Scope.EXTERNAL, result=check)


async def run(latency: float, limit: int | None, only: str = "") -> list[Outcome]:
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with SimWeb(latency=latency) as web:
            ev = build_web(web, latency=latency, docs_dir=Path(tmp) / "docs")
            overrides = ev.config_overrides()
            # The stand-in archive has no published rate limit to respect.
            overrides["archive"] = [dict(a, requests_per_minute=0) for a in overrides["archive"]]
            config = Config(**overrides)
            cache = Cache(None)
            async with HttpChecker(config, cache, resolver=web.resolver) as client:
                recoverer = Recoverer(config=config, client=client, cache=cache, link_times=ev.link_times)
                cases = [c for c in ev.cases if only in c.id or only in c.type]
                cases = cases[:limit] if limit else cases
                for case in cases:
                    check = await client.check(case.dead_url)
                    lr = link_result(case, check, ev.docs_dir)
                    before, started = client.requests_sent, time.monotonic()
                    suggestions: tuple[Candidate, ...] = ()
                    if wants_recovery(lr):
                        suggestions, _ = await recoverer.recover(lr)
                        recoverer.learn(lr.resolved, suggestions)
                    outcomes.append(Outcome(
                        case=case,
                        check=check,
                        suggestions=tuple(replace(s, url=ev.canonical(s.url)) for s in suggestions),
                        requests=client.requests_sent - before,
                        seconds=time.monotonic() - started,
                    ))
    return outcomes


# -- metrics ------------------------------------------------------------------------------


def rank_of(outcome: Outcome) -> int | None:
    for i, suggestion in enumerate(outcome.suggestions, 1):
        if is_correct(outcome.case, suggestion.url):
            return i
    return None


def summarise(outcomes: list[Outcome], threshold: float) -> dict[str, float]:
    answerable = [o for o in outcomes if o.case.answer is not None]
    nones = [o for o in outcomes if o.case.answer is None]
    ranks = [rank_of(o) for o in answerable]
    top = [o for o in outcomes if o.suggestions and o.suggestions[0].confidence >= threshold]
    top_correct = [o for o in top if is_correct(o.case, o.suggestions[0].url)]
    n = len(answerable) or 1
    return {
        "cases": len(outcomes),
        "answerable": len(answerable),
        "success@1": sum(1 for r in ranks if r == 1) / n,
        "success@10": sum(1 for r in ranks if r is not None and r <= 10) / n,
        "mrr": sum(1 / r for r in ranks if r) / n,
        "auto": len(top),
        "precision@auto": len(top_correct) / len(top) if top else 1.0,
        "coverage@auto": sum(1 for o in top_correct if o.case.answer is not None) / n,
        "none_above": sum(1 for o in nones if any(s.confidence >= threshold for s in o.suggestions)),
        "requests_median": statistics.median(o.requests for o in outcomes) if outcomes else 0,
        "requests_mean": statistics.fmean(o.requests for o in outcomes) if outcomes else 0,
        "seconds_median": statistics.median(o.seconds for o in outcomes) if outcomes else 0,
        "seconds_mean": statistics.fmean(o.seconds for o in outcomes) if outcomes else 0,
    }


def _cell(m: dict[str, float], key: str) -> str:
    """A rate of a group, or '-' when the group has no answerable case."""
    return f"{m[key]:7.2f}" if m["answerable"] > 0 else f"{'-':>7}"


def print_table(outcomes: list[Outcome], threshold: float, title: str) -> dict[str, float]:
    print(f"\n{title} (auto-fix confidence >= {threshold:.2f})")
    header = f"{'type':<17}{'n':>4}{'s@1':>7}{'s@10':>7}{'MRR':>7}{'auto':>6}{'prec':>7}{'cover':>7}{'none>':>6}{'req med':>8}{'req avg':>8}{'s med':>7}{'s avg':>7}"
    print(header)
    print("-" * len(header))
    types = sorted({o.case.type for o in outcomes})
    rows = [(t, [o for o in outcomes if o.case.type == t]) for t in types] + [("overall", outcomes)]
    overall: dict[str, float] = {}
    for name, group in rows:
        m = summarise(group, threshold)
        print(
            f"{name:<17}{m['cases']:>4}{_cell(m, 'success@1')}{_cell(m, 'success@10')}{_cell(m, 'mrr')}{m['auto']:>6}"
            f"{m['precision@auto']:7.2f}{_cell(m, 'coverage@auto')}{m['none_above']:>6}"
            f"{m['requests_median']:8.0f}{m['requests_mean']:8.1f}{m['seconds_median']:7.2f}{m['seconds_mean']:7.2f}"
        )
        overall = m
    return overall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.05, help="seconds added to every simulated response")
    parser.add_argument("--cases", type=int, default=0, help="only the first N cases (0: all)")
    parser.add_argument("--only", default="", help="only cases whose id or type contains this text")
    parser.add_argument("--json", type=Path, help="write per-case outcomes to this file")
    parser.add_argument("--verbose", action="store_true", help="print each case's top suggestion")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    started = time.monotonic()
    outcomes = asyncio.run(run(args.latency, args.cases or None, args.only))
    elapsed = time.monotonic() - started
    threshold = calibration.DEFAULT_AUTOFIX_CONFIDENCE
    if args.verbose:
        for o in outcomes:
            top = o.suggestions[0] if o.suggestions else None
            mark = "ok " if top and is_correct(o.case, top.url) else ("-- " if o.case.answer is None else "XX ")
            print(f"{mark}{o.case.type:<16} {o.case.dead_url} [{o.check.status.value}/{o.check.reason}] anchor={o.case.anchor!r}")
            print(f"     answer {o.case.answer}  rank {rank_of(o)}")
            for s in o.suggestions[:3]:
                print(f"     {s.confidence:.3f} {s.method:<10} {s.url}")
    print(f"Recovery evaluation: {len(outcomes)} cases, {args.latency * 1000:.0f} ms per response, "
          f"{elapsed:.1f} s in all; calibration: {calibration.FIT_NOTE}")
    overall = print_table(outcomes, threshold, "all cases, shipped calibration")
    half = [o for o in outcomes if case_split(o.case) == 1]
    print_table(half, threshold, "one fixed half of the cases (as earlier synthetic calibrations reported)")
    print("\nfor comparison (papers' headline figures, real web, different corpora):")
    for who, what in PAPERS:
        print(f"  {who:<30} {what}")
    print(f"  {'linkfix (this run)':<30} success@1 {overall['success@1']:.0%}, success@10 {overall['success@10']:.0%} "
          f"of answerable cases; median {overall['seconds_median']:.2f} s, {overall['requests_median']:.0f} requests per link")
    if args.json:
        args.json.write_text(json.dumps([
            {"id": o.case.id, "type": o.case.type, "dead": o.case.dead_url, "answer": o.case.answer,
             "check": o.check.status.value, "requests": o.requests, "seconds": round(o.seconds, 3),
             "suggestions": [{"url": s.url, "confidence": s.confidence, "method": s.method, "evidence": s.evidence} for s in o.suggestions]}
            for o in outcomes
        ], indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
