"""Recovery on real moves: linkfix against the naive baselines, on the real-moves simulated web.

    python benchmarks/recovery_real.py                       # every mode, one after another
    python benchmarks/recovery_real.py --mode baselines --save b.json
    python benchmarks/recovery_real.py --mode one-run --save a.json
    python benchmarks/recovery_real.py --mode per-case --dump cands.jsonl --save p.json
    python benchmarks/recovery_real.py --combine b.json a.json p.json   # the comparison table
    python benchmarks/recovery_real.py --combine b.json b-new.json l.json  # a method saved twice: the union of its cases
    python benchmarks/recovery_real.py --from-dump cands.jsonl           # LOSO + diagnosis again
    python benchmarks/recovery_real.py --from-dump cands.jsonl --save l.json   # + held-out ranking for --combine
    python benchmarks/recovery_real.py --mode per-case --no-copy --dump nocopy.jsonl   # the archive keeps no copy
    python benchmarks/recovery_real.py --from-dump cands.jsonl nocopy.jsonl --refit --write  # fit on every site,
                                                                         # both kinds of recovery; write the
                                                                         # constants into calibration.py
    python benchmarks/recovery_real.py --mode per-case --cache DIR ...  # keep remote answers between runs

The web is the development set `../shared/recovery-dev` (skipped with a message when absent)
served by `linkfix_simweb.realmoves` with the Internet Archive's real limits (30 search
requests a minute, 8 playbacks a second, 429 + Retry-After, firewall blocks). Modes:

  baselines  B2, B3f, B5 (realbench/baselines.py; a case without an archived copy is a miss), and
             A1, A1p, which need no copy (realbench/nocopy_baselines.py: the anchor; the paper's
             anchor + parent-page-term queries).
  one-run    every case's first linking page in one docs tree, one `run_check` with the shipped
             settings; wall time, archived copies got, requests per archive endpoint, blocks.
  per-case   one recovery per case (also cases without a linking page, with an empty anchor,
             for analysis), every candidate considered recorded from linkfix's trace (`--dump`);
             reliability tables, leave-one-site-out refit of linkfix's calibration (its held-out
             ranking saved as method `linkfix-loso`), weight stability, failure classes.

Scored as the dataset's README says (realbench/scoring.py). Each mode stops by itself: every
run is bounded by `--timeout` seconds (default 2 h), each link by linkfix's own budgets.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for entry in (ROOT, ROOT / "fixtures", ROOT / "benchmarks"):
    sys.path.insert(0, str(entry))

from realbench import diagnose, fitting, loso, stored  # noqa: E402
from realbench.baselines import run_baselines  # noqa: E402
from realbench.cache_stamp import StaleCache, claim  # noqa: E402
from realbench.client import Client  # noqa: E402
from realbench.docs_tree import write_tree  # noqa: E402
from realbench.linkfix_runs import one_run, per_case  # noqa: E402
from realbench.nocopy_baselines import run_nocopy_baselines  # noqa: E402
from realbench.scoring import Ranked, figures, found_at_all_text, median, method_table, reliability_text, same_page, site_table  # noqa: E402

from linkfix.model import Evidence, Method  # noqa: E402
from linkfix.recover import calibration  # noqa: E402
from linkfix_simweb import SimWeb  # noqa: E402
from linkfix_simweb.realmoves import build_real_web, dataset_dir, dataset_dirs, load_dataset  # noqa: E402

THRESHOLD = calibration.DEFAULT_AUTOFIX_CONFIDENCE
B5_THRESHOLD = 0.9


def _ranked_json(rows: list[Ranked]) -> list[dict[str, Any]]:
    return [{"case": r.case.id, "urls": list(r.urls), "confidences": list(r.confidences), "ran": r.ran, "note": r.note, "held": r.held}
            for r in rows]


def _ranked_from_json(items: list[dict[str, Any]], cases: dict[str, Any]) -> list[Ranked]:
    return [Ranked(case=cases[i["case"]], urls=tuple(i["urls"]), confidences=tuple(i["confidences"]), ran=i["ran"], note=i.get("note", ""),
                   held=bool(i.get("held"))) for i in items if i["case"] in cases]


def _linkfix_ranked(case, suggestions: list[tuple[str, float]], ran: bool, note: str = "", held: bool = False) -> Ranked:
    return Ranked(case=case, urls=tuple(u for u, _ in suggestions), confidences=tuple(c for _, c in suggestions), ran=ran, note=note,
                  held=held)


def print_methods(methods: dict[str, list[Ranked]]) -> None:
    print(method_table("success and ranking, every method", methods, THRESHOLD).render())


def _archive_report(real) -> None:
    print("\narchive requests by endpoint (server side: ok / 429 / reset):")
    for endpoint, counts in real.gate.counts().items():
        print(f"  {endpoint:<10} " + "  ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    print(f"firewall blocks: {len(real.gate.bans)}" + "".join(f"\n  {b}" for b in real.gate.bans))
    print("requests per host:", ", ".join(f"{h}={real.web.stats(h).requests}" for h in real.hosts if real.web.stats(h).requests))


async def run_modes(args: argparse.Namespace) -> dict[str, Any]:
    for kept in (args.cache, args.cache_dir):
        if kept is not None:
            claim(kept, dataset_dirs())  # a cache filled from another data set ranks against pages it no longer has
    dataset = load_dataset(*dataset_dirs())
    cases = [c for c in dataset.cases if not args.sites or c.site in args.sites]
    cases = cases[: args.cases] if args.cases else cases
    sites = {s.site: s for s in dataset.sites}
    saved: dict[str, Any] = {"methods": {}}
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        written = write_tree(cases, docs)
        print(f"{len(cases)} cases, {sum(1 for c in cases if c.parents)} with a linking page "
              f"({len(written)} files, first parent each; {sum(w.fell_back for w in written)} links appended), "
              f"{sum(1 for c in cases if c.has_copy)} with an old page to archive")
        async with SimWeb() as web:
            started = time.monotonic()
            served = None if args.serve_every_site else sorted({c.site for c in cases})
            real = build_real_web(web, dataset, sites=served, render_cache=args.render_cache, copies=not args.no_copy)
            print(f"simulated web built in {time.monotonic() - started:.1f} s: {len(real.sites)} sites, "
                  f"{len(real.captures)} captures, archive limits {real.gate.limits}"
                  + ("; NO archived copy of any old page (--no-copy)" if args.no_copy else ""))
            if args.mode in ("all", "baselines"):
                real.gate.reset(), web.reset_stats()
                started = time.monotonic()
                async with Client(real) as client:
                    methods = await asyncio.wait_for(run_baselines(client, cases, sites), args.timeout)
                    methods.update(await asyncio.wait_for(run_nocopy_baselines(client, cases), args.timeout))
                print(f"\n== baselines: {time.monotonic() - started:.0f} s; client requests {dict(client.counts)}")
                _archive_report(real)
                print_methods(methods)
                b5 = figures(methods["B5"], B5_THRESHOLD)
                print(f"B5 at cosine >= {B5_THRESHOLD}: {b5.auto} cases, precision "
                      f"{b5.precision if b5.precision is not None else float('nan'):.2f}, coverage {b5.coverage:.2f}")
                print(found_at_all_text({"A1p": methods["A1p"]}))
                saved["methods"].update({k: _ranked_json(v) for k, v in methods.items()})
            if args.mode in ("all", "one-run"):
                for number in range(1, args.runs + 1):
                    real.gate.reset(), web.reset_stats()
                    run = await one_run(real, written, docs, timeout=args.timeout, archive_wait=args.wait_for_archive,
                                        cache_dir=args.cache_dir, archive_seconds=args.archive_seconds)
                    rows = []
                    for case in cases:
                        lr = run.results.get(case.id)
                        got = [(real.canonical(s.url), s.confidence) for s in lr.suggestions if s.method != Method.ARCHIVE] if lr else []
                        held = _top_held((s.method, str(s.evidence.get(Evidence.HOLD, ""))) for s in lr.suggestions) if lr else False
                        rows.append(_linkfix_ranked(case, got, ran=lr is not None, note="" if lr else "no linking page", held=held))
                    label = f"one run{f' #{number}' if args.runs > 1 else ''}"
                    print(f"\n== {label}: wall {run.wall:.0f} s{' (TIMED OUT)' if run.timed_out else ''}"
                          f"{' (--wait-for-archive)' if args.wait_for_archive else ''}"
                          f"{f' (cache {args.cache_dir})' if args.cache_dir else ''}; {len(run.results)} links checked")
                    _one_run_report(run, cases, real, web)
                    _archive_report(real)
                    print_methods({"linkfix-1run": rows})
                    saved["methods"]["linkfix-1run"] = _ranked_json(rows)
                    with_copy = [c for c in cases if c.has_copy and c.id in run.results]
                    saved.setdefault("one_runs", []).append({
                        "wall": run.wall, "got_copy": sum(1 for c in with_copy if run.results[c.id].archived is not None
                                                          and not run.results[c.id].archive_deferred),
                        "with_copy": len(with_copy), "archive": real.gate.counts(), "bans": len(real.gate.bans)})
            if args.mode in ("all", "per-case"):
                real.gate.reset(), web.reset_stats()
                started = time.monotonic()
                runs = await per_case(real, cases, written, orphans=not args.skip_orphans, deadline=started + args.timeout,
                                      cache_dir=args.cache)
                dump = [_dump_line(r) for r in runs]
                if args.dump:
                    args.dump.write_text("".join(json.dumps(d) + "\n" for d in dump), encoding="utf-8")
                rows = [_linkfix_ranked(r.case, [(s["url"], s["confidence"]) for s in r.suggestions if s["method"] != "archive"],
                                        ran=r.parent and not r.error, note=r.error,
                                        held=_top_held((s["method"], s["hold"]) for s in r.suggestions)) for r in runs]
                print(f"\n== per case: {time.monotonic() - started:.0f} s; median {median(r.seconds for r in runs):.1f} s "
                      f"and {median(r.requests for r in runs):.0f} requests per broken link; archived copy got for "
                      f"{sum(r.archived for r in runs if r.case.has_copy)} of {sum(1 for r in runs if r.case.has_copy)}")
                _archive_report(real)
                print_methods({"linkfix-case": rows})
                saved["methods"]["linkfix-case"] = _ranked_json(rows)
                saved["methods"].update(analyse([dump])["methods"])
    return saved


def _one_run_report(run, cases, real, web) -> None:
    """Copies got of those that exist, deferrals, seconds and requests per broken link."""
    with_copy = [c for c in cases if c.has_copy and c.id in run.results]
    # Got: the capture is known and its lookup settled (a deferred copy fetch is not "got").
    got_copy = sum(1 for c in with_copy if run.results[c.id].archived is not None and not run.results[c.id].archive_deferred)
    deferred = sum(1 for lr in run.results.values() if lr.archive_deferred)
    total_requests = sum(web.stats(h).requests for h in real.hosts)
    print(f"archived copy got for {got_copy} of {len(with_copy)} cases that have one "
          f"({'every one' if got_copy == len(with_copy) else 'NOT every one'}); archive lookups deferred: {deferred}; "
          f"{total_requests / max(1, len(run.results)):.1f} requests per broken link (mean, server side, all hosts)")
    stats = run.stats
    if stats is None or not stats.links:
        return
    links = stats.links
    own = [s.seconds for s in links]
    waited = [s.archive_wait for s in links if s.archive]
    print(f"per broken link ({len(links)} recovered): median {median(own):.1f} s own recovery, "
          f"median {median(s.seconds + s.archive_wait for s in links):.1f} s with the wait for the archive "
          f"(median wait {median(waited) if waited else 0.0:.1f} s); median {median(s.requests for s in links):.0f} requests "
          f"(mean {sum(s.requests for s in links) / len(links):.1f}) and "
          f"{sum(s.archive_requests for s in links) / len(links):.2f} archive requests per link (mean); "
          f"archive states {dict(sorted(Counter(s.archive or 'not needed' for s in links).items()))}")
    a = stats.archive
    print(f"linkfix's archive counters: requests {a.requests}; lookups from the store {a.stored}; "
          f"deferred {a.deferred}; {a.waited:.0f} s waited for the limits")
def _top_held(suggestions: Iterable[tuple[str, str]]) -> bool:
    """Is linkfix's best guess (the first suggestion that is not the archived copy) held for
    review? `suggestions`: (method, the gate's hold reason) of each, best first."""
    return next((bool(hold) for method, hold in suggestions if method != Method.ARCHIVE), False)


def _dump_line(r) -> dict[str, Any]:
    c = r.case
    return {
        "case": c.id, "site": c.site, "generator": c.generator, "old_url": c.old_url, "truth": c.new_url, "truth_fragment": c.new_fragment,
        "old_title": c.old_title, "new_title": c.new_title, "has_copy": c.has_copy, "parent": r.parent,
        "target_existed_before_move": c.target_existed_before_move, "target_shared": bool(c.raw.get("target_shared_with_other_old_pages")),
        "anchor": r.anchor, "weak_anchor": r.weak_anchor, "check": [r.check_status, r.check_reason], "archived": r.archived,
        "stage": r.stage, "seconds": round(r.seconds, 3), "requests": r.requests, "error": r.error,
        "suggestions": r.suggestions, "candidates": r.candidates,
    }


def analyse(dumps: list[list[dict[str, Any]]], *, refit: bool = False, write: bool = False) -> dict[str, Any]:
    """Reliability, leave-one-site-out refit and failure classes from per-case dumps (one, or
    several runs of the same cases, e.g. with and without the archived copy: each site held out
    of all of them at once, the fit on all the others); the held-out ranking of each dump as
    method `linkfix-loso` (the first) or `linkfix-loso-nocopy` / `linkfix-loso-N` (for --combine)."""
    dump = [dict(d, case=f"{d['case']}{_tag(k)}") for k, one in enumerate(dumps) for d in one]
    pairs = [(c["confidence"], same_page(c.get("final_url") or c["url"], d["truth"]))
             for d in dump if d["parent"] for c in d["candidates"] if c.get("confidence") is not None]
    print(reliability_text("reliability, shipped weights, every ranked candidate (cases with a linking page)", pairs))
    tops = [(s["confidence"], same_page(s["url"], d["truth"])) for d in dump if d["parent"]
            for s in d["suggestions"][:1] if s["method"] != "archive"]
    print(reliability_text("reliability, shipped weights, top suggestion per case", tops))
    ran = [d for d in dump if d["parent"]]
    cases, rows = loso.cases_of(ran), loso.candidate_rows(ran)
    saved: dict[str, Any] = {"methods": {}}
    if len({c.site for c in cases}) < 2 or not rows:
        print("\nleave-one-site-out: needs cases with a linking page on two sites or more")
        print(diagnose.summary(dump))
        return saved
    print(loso.leave_one_site_out(cases, rows, fit=loso.shipped, predict=loso.predict_linkfix, threshold=THRESHOLD)
          .render().replace("leave-one-site-out", "shipped weights, ranking the candidate pool", 1))
    result = loso.leave_one_site_out(cases, rows, fit=loso.fit_linkfix, predict=loso.predict_linkfix, threshold=THRESHOLD)
    print(result.render())
    held = result.held_out_confidence
    print(reliability_text("reliability, held-out (leave-one-site-out), every ranked candidate",
                           [(held[id(r)], r.right) for r in rows]))
    top_pairs = []
    by_case: dict[str, list[loso.Row]] = {}
    for row in rows:
        by_case.setdefault(row.case_id, []).append(row)
    for members in by_case.values():
        best = max(members, key=lambda r: (held[id(r)], r.url))
        top_pairs.append((held[id(best)], best.right))
    print(reliability_text("reliability, held-out (leave-one-site-out), top candidate per case", top_pairs))
    print(loso.weight_stability(result.models))
    print(loso.gate_rules_per_site(cases, rows, held, THRESHOLD))
    known = {c.id: c for c in load_dataset(*dataset_dirs()).cases}
    for k, one in enumerate(dumps):
        name = _method_name(k, one)
        tag = _tag(k)
        items = _held_out_ranking([dict(d, case=d["case"] + tag) for d in one], rows, held)
        saved["methods"][name] = [dict(item, case=item["case"].removesuffix(tag)) for item in items]
        print(site_table({name: _ranked_from_json(saved["methods"][name], known)}, THRESHOLD, linkfix=name,
                         title=f"leave-one-site-out, per site, cases with a linking page, {name} (baselines: --combine)"))
        one_ran = [d for d in one if d["parent"]]
        found = sum(1 for d in one_ran if any(same_page(c.get("final_url") or c["url"], d["truth"]) for c in d["candidates"]))
        print(f"\ntruth found at all, among the candidates linkfix read ({name}, cases with a linking page; Martinez-Romo & "
              f"Araujo: 0.74): {found} of {len(one_ran)}, {found / len(one_ran) if one_ran else 0.0:.2f}")
    print(diagnose.summary(dump))
    if refit:
        model = loso.fit_linkfix(rows)
        runs = " and ".join(_method_name(k, one).removeprefix("linkfix-loso").lstrip("-") or "with the archived copy"
                            for k, one in enumerate(dumps)).replace("nocopy", "without it")
        note = (f"choice model (conditional logit) and logistic calibration fitted on {len(rows)} ranked candidates of {len(by_case)} "
                f"recoveries of real moves with a linking page ({len({c.site for c in cases})} sites; {runs}; every candidate, "
                f"right and wrong, before any cut)")
        block = fitting.constants_block(model, threshold=THRESHOLD, note=note)
        print("\nfitted on every site:\n" + block)
        if write:
            path = Path(calibration.__file__)
            text = path.read_text(encoding="utf-8")
            start, end = text.index("# BEGIN FITTED CONSTANTS"), text.index("# END FITTED CONSTANTS") + len("# END FITTED CONSTANTS")
            path.write_text(text[:start] + block + text[end:], encoding="utf-8")
            print(f"written to {path}")
    return saved


def _tag(k: int) -> str:
    """What tells the cases of the k-th dump apart from the same cases of the others."""
    return f"@{k}" if k else ""


def _method_name(k: int, dump: list[dict[str, Any]]) -> str:
    if not k:
        return "linkfix-loso"
    return "linkfix-loso-nocopy" if not any(d.get("archived") for d in dump) else f"linkfix-loso-{k + 1}"


def _held_out_ranking(dump: list[dict[str, Any]], rows: list[loso.Row], held: dict[int, float]) -> list[dict[str, Any]]:
    """Each case's candidates ranked by their held-out confidence, as a saved method."""
    by_case: dict[str, list[loso.Row]] = {}
    for row in rows:
        by_case.setdefault(row.case_id, []).append(row)
    out = []
    for d in dump:
        ranked = loso._dedup(sorted(by_case.get(d["case"], []), key=lambda r: (-held[id(r)], r.url)))
        confidences = [held[id(r)] for r in ranked]
        hold = loso.gate_hold(ranked, confidences) if ranked else ""
        out.append({"case": d["case"], "urls": [r.answer for r in ranked][:10], "confidences": confidences[:10],
                    "ran": bool(d["parent"]), "note": "" if d["parent"] else "no linking page", "held": bool(hold)})
    return out


def saved_methods(paths: list[Path]) -> dict[str, list[dict[str, Any]]]:
    """Each method's saved answers; a method saved in several runs (the baselines of some sites,
    then of the sites added since) is one method over the union of their cases, a case saved
    twice counting once (the later run)."""
    merged: dict[str, dict[str, dict[str, Any]]] = {}
    for path in paths:
        for name, items in json.loads(path.read_text(encoding="utf-8"))["methods"].items():
            merged.setdefault(name, {}).update((item["case"], item) for item in items)
    return {name: list(items.values()) for name, items in merged.items()}


def combine(paths: list[Path]) -> None:
    dataset = load_dataset(*dataset_dirs())
    cases = {c.id: c for c in dataset.cases}
    methods = {name: _ranked_from_json(items, cases) for name, items in saved_methods(paths).items()}
    only = lambda s: s in ("all", "with parents") or s.startswith(("mkdocs", "sphinx"))  # noqa: E731
    print(method_table("linkfix vs the naive baselines", methods, THRESHOLD, only=only).render())
    baselines = tuple(name for name in ("B2", "B3f", "B5", "A1", "A1p") if name in methods)
    for name in ("linkfix-loso", "linkfix-loso-nocopy", "linkfix-case", "linkfix-1run"):
        if name in methods:
            print(site_table(methods, THRESHOLD, linkfix=name, baselines=baselines, title=f"{name}, per site, cases with a linking page"))
    print(found_at_all_text({name: rows for name, rows in methods.items() if name in ("A1p", "linkfix-case", "linkfix-1run")}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("all", "baselines", "one-run", "per-case"), default="all")
    parser.add_argument("--dump", type=Path, help="per-case: write every candidate considered (JSONL)")
    parser.add_argument("--save", type=Path, help="write each method's ranked answers (JSON) for --combine")
    parser.add_argument("--combine", type=Path, nargs="+", help="print one table from saved runs and stop")
    parser.add_argument("--from-dump", type=Path, nargs="+",
                        help="analyse per-case dumps (reliability, LOSO, diagnosis) and stop; several (e.g. a --no-copy run "
                             "beside a run with the copy): each site held out of all, the fit on all the others")
    parser.add_argument("--cases", type=int, default=0, help="only the first N cases")
    parser.add_argument("--sites", nargs="*", default=[], help="only these sites (as cases name them)")
    parser.add_argument("--serve-every-site", action="store_true",
                        help="with --sites: serve every site of the set all the same (search answers from other sites, as in a full run)")
    parser.add_argument("--no-copy", action="store_true",
                        help="the archive kept no copy of any old page (it answers 'no capture'): recovery without the copy")
    parser.add_argument("--skip-orphans", action="store_true", help="per-case: skip cases without a linking page")
    parser.add_argument("--timeout", type=float, default=7200.0, help="seconds a mode may run at most")
    parser.add_argument("--wait-for-archive", action="store_true", help="one-run: archive_wait (every lookup waited for)")
    parser.add_argument("--cache-dir", type=Path, help="one-run: keep linkfix's cache here (persistent across --runs)")
    parser.add_argument("--archive-seconds", type=float, help="one-run: linkfix's archive_seconds (default: its own)")
    parser.add_argument("--runs", type=int, default=1, help="one-run: run this many times (with --cache-dir: warm runs)")
    parser.add_argument("--cache", type=Path, help="per-case: keep every remote answer in this cache directory between runs")
    parser.add_argument("--render-cache", type=Path, default=Path.home() / ".cache" / "linkfix" / "realmoves-render",
                        help="keep the simulated sites' rendered pages here between runs (keyed by the sources and the renderer)")
    parser.add_argument("--refit", action="store_true", help="with --from-dump: fit the calibration on every site and print it")
    parser.add_argument("--write", action="store_true", help="with --refit: write the constants into linkfix/recover/calibration.py")
    parser.add_argument("--store-rows", type=Path, help="with --from-dump: write the ranked candidates (numbers and ids only) for "
                                                        "the guarding test, e.g. tests/recover/data/realmoves_rows.jsonl.gz")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    if dataset_dir() is None:
        print("recovery-dev set not found (../shared/recovery-dev or $LINKFIX_RECOVERY_DEV): nothing to measure")
        return 0
    if args.combine:
        combine(args.combine)
        return 0
    if args.from_dump:
        dumps = [[json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()] for path in args.from_dump]
        saved = analyse(dumps, refit=args.refit, write=args.write)
        if args.store_rows:
            print(f"\n{stored.store_rows(dumps[0], args.store_rows)} cases with their ranked candidates written to {args.store_rows}")
        if args.save:
            args.save.write_text(json.dumps(saved), encoding="utf-8")
        return 0
    try:
        saved = asyncio.run(run_modes(args))
    except StaleCache as exc:
        print(f"recovery_real.py: {exc}", file=sys.stderr)
        return 2
    if args.save:
        args.save.write_text(json.dumps(saved), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
