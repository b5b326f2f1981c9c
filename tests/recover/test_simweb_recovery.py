"""recover_all end to end: linkfix's own HTTP client against the simulated evaluation web
(Wayback CDX/id_ archive, SearXNG JSON search, sitemaps, MkDocs and Sphinx search indexes)."""

from pathlib import Path

from linkfix.check.http import HttpChecker
from linkfix.config import Config
from linkfix.model import Link, LinkKind, LinkResult, Page, Scope, Span
from linkfix.recover import recover_all
from linkfix.recover.calibration import DEFAULT_AUTOFIX_CONFIDENCE
from linkfix.store.cache import Cache
from linkfix_simweb.corpus import build_web, is_correct


def one_case_per_type(cases):
    chosen = {}
    for case in cases:
        chosen.setdefault(case.type, case)
    return list(chosen.values())


async def test_recovery_on_the_simulated_web(simweb, tmp_path: Path):
    ev = build_web(simweb, latency=0.0, docs_dir=tmp_path / "docs")
    overrides = ev.config_overrides()
    overrides["archive"] = [dict(a, requests_per_minute=0) for a in overrides["archive"]]
    config = Config(**overrides)
    cases = one_case_per_type(ev.cases)
    cache = Cache(None)
    async with HttpChecker(config, cache, resolver=simweb.resolver) as client:
        results = []
        for case in cases:
            check = await client.check(case.dead_url)
            page = Page(path=case.parent_path, title=case.parent_title, text=case.context)
            span = Span(path=case.parent_path, line=1, column=1, start=0, end=len(case.dead_url))
            link = Link(url=case.dead_url, kind=LinkKind.INLINE, span=span, page=page, anchor_text=case.anchor, context=case.context)
            results.append(LinkResult(link=link, resolved=case.dead_url, scope=Scope.EXTERNAL, result=check))
        out = await recover_all(results, config=config, client=client, cache=cache, link_times=ev.link_times)
    assert [r.link for r in out] == [r.link for r in results]
    right = 0
    for case, lr in zip(cases, out):
        urls = [ev.canonical(s.url) for s in lr.suggestions]
        top = lr.suggestions[0] if lr.suggestions else None
        if case.answer is None:
            assert all(s.confidence < DEFAULT_AUTOFIX_CONFIDENCE for s in lr.suggestions), case.id
            continue
        if top is not None and top.confidence >= DEFAULT_AUTOFIX_CONFIDENCE and not top.evidence.get("hold"):
            assert is_correct(case, urls[0]), (case.id, urls[0])  # what would be auto-applied is right
        right += bool(urls) and is_correct(case, urls[0])
        if case.archived and case.type == "archive-only":
            assert lr.archived is not None and "archive" in [s.method for s in lr.suggestions]
    answerable = sum(1 for c in cases if c.answer is not None)
    assert right >= 0.8 * answerable
