"""Cache micro-benchmark: what a cold run writes and a warm run reads, for one or two source trees.

    python benchmarks/store.py [--against OLD_TREE] [--runs 5] [--urls 10000] [--docs DIR]

Phases, each timed in a fresh child process through the public API both trees share
(`Cache`, `extract.documents.remember_outcome/cached_outcome`):

* write: 10,000 URL results put (90% ok, 5% broken, 5% redirected) and the cache closed;
* read: the cache opened, the URLs looked up a document's worth (40) at a time, as the pipeline
  does (`preload`, then `get_result` per URL), and closed;
* docs-write / docs-read: the extraction of every markdown file under DIR stored, then read back.

With `--against`, the two trees run interleaved (A, B, A, B, ...) and the medians are compared;
for the previous store: `git worktree add /tmp/old <commit>` and `--against /tmp/old`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = r'''
import json, sys, time
from pathlib import Path
phase, cache_dir, urls, docs = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
import diskcache  # imported before the clock starts, whenever a tree imports it
from linkfix.store.cache import Cache
from linkfix.model import CheckResult, Redirect, Status

def url(i):
    return f"https://host{i % 40}.example.test/section-{i % 97}/page-{i}.html"

started, cpu = time.perf_counter(), time.process_time()
if phase == "write":
    with Cache(cache_dir, run_id="bench") as cache:
        for i in range(urls):
            if i % 20 == 0:
                result = CheckResult(url=url(i), status=Status.BROKEN, reason="404", http_status=404, checked_at=time.time())
            elif i % 20 == 1:
                hop = Redirect(url=url(i), status=301, location=url(i) + "/")
                result = CheckResult(url=url(i), status=Status.REDIRECTED, http_status=200, redirects=(hop,),
                                     final_url=url(i) + "/", permanent=True, checked_at=time.time())
            else:
                result = CheckResult(url=url(i), status=Status.OK, http_status=200, checked_at=time.time())
            cache.put_result(url(i), result)
elif phase == "read":
    found = 0
    with Cache(cache_dir, run_id="bench-2") as cache:
        for start in range(0, urls, 40):
            batch = [url(i) for i in range(start, min(start + 40, urls))]
            cache.preload(batch)
            found += sum(cache.get_result(u) is not None for u in batch)
    assert found == urls, found
else:
    from linkfix.extract.documents import cached_outcome, extract_file, extraction_key, remember_outcome
    files = sorted(Path(docs).rglob("*.md"))
    outcomes = [extract_file(p, False) for p in files] if phase == "docs-write" else None
    started, cpu = time.perf_counter(), time.process_time()
    with Cache(cache_dir) as cache:
        for i, path in enumerate(files):
            key = extraction_key(path, False)
            if outcomes is not None:
                remember_outcome(cache, key, outcomes[i])
            else:
                assert cached_outcome(cache, key) is not None, path
print(json.dumps([time.perf_counter() - started, time.process_time() - cpu]))
'''

PHASES = ("write", "read", "docs-write", "docs-read")
CLOCKS = ("wall", "cpu")  # CPU time as well: on a shared machine it drifts less than the wall clock


def run_phase(tree: Path, phase: str, cache_dir: Path, urls: int, docs: Path) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", CHILD, phase, str(cache_dir), str(urls), str(docs)],
                         env=env, cwd=tree, capture_output=True, text=True, check=True)
    wall, cpu = json.loads(out.stdout)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", type=Path, help="another source tree (e.g. a worktree of an older commit)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--urls", type=int, default=10_000)
    parser.add_argument("--docs", type=Path, default=REPO / "fixtures", help="markdown files to extract and cache")
    args = parser.parse_args()
    trees = {"this": REPO, **({"against": args.against.resolve()} if args.against else {})}
    times: dict[tuple[str, str, str], list[float]] = {(name, phase, clock): [] for name in trees for phase in PHASES for clock in CLOCKS}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            for name, tree in trees.items():  # interleaved: drift on a shared machine hits both alike
                cache_dir = Path(tmp) / f"{name}-{run}"
                for phase in PHASES:
                    for clock, value in zip(CLOCKS, run_phase(tree, phase, cache_dir, args.urls, args.docs)):
                        times[(name, phase, clock)].append(value)
    print(f"{args.urls} URL records, markdown files of {args.docs}; median of {args.runs} runs (min-max), ms")
    for clock in CLOCKS:
        print(f"{clock}:")
        for phase in PHASES:
            cells = []
            for name in trees:
                values = times[(name, phase, clock)]
                cells.append(f"{name} {statistics.median(values) * 1000:7.1f} ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})")
            ratio = ""
            if len(trees) == 2:
                ratio = f"  this/against {statistics.median(times[('this', phase, clock)]) / statistics.median(times[('against', phase, clock)]):.2f}"
            print(f"  {phase:<10} " + "   ".join(cells) + ratio)


if __name__ == "__main__":
    main()
