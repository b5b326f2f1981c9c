"""Benchmark: many runs sharing one store (`--cache-url`, a real redis-server), on the simulated web.

    python benchmarks/shared_store.py                       # 500 URLs, 40 hosts, 50 ms, 8 per host
    python benchmarks/shared_store.py --interval 0.05       # requests to a host >= 50 ms apart, across all runs
    python benchmarks/shared_store.py --rate-limited        # with the 429-then-ok URLs (Retry-After: 1)
    python benchmarks/shared_store.py --urls 2000 --runs 6

The web is benchmarks/external.py's (a child process serving 127.0.0.10.., counting requests and
the requests in flight per host as the server sees them, from every client together). Each
linkfix run is its own process with its own, empty cache directory: a CI job of its own. Phases:

1. one run alone, no store: the requests one run sends (R1);
2. `--runs` runs at once, no store: what N jobs do to the hosts today;
3. the same runs at once sharing a fresh Redis: every run right (0 FP / 0 FN against the web's
   ground truth), the most requests in flight on any host from all of them together (at most
   --host-concurrency), the most requests to a host in any second (with --interval), and
   all their requests over R1 (target <= 1.3);
4. a later run sharing the store, empty cache: its requests over R1 (target <= 5%);
5. the runs at once on a fresh Redis that is stopped once the web has seen a third of R1's
   requests (`--restart`: started again at once, empty): every run still right, with the exit
   code of phase 1, and each saying once that it goes on without the store.

6. what the store holds for the URLs (`--cost-urls`, 100,000 by default): the records and page
   ids the shared runs of phase 3 wrote, copied under new names until there are that many URLs
   (each copy as the runs wrote it: same sizes, same expiry), then Redis's own count of keys and
   memory (INFO's used_memory) before and after.

Prints one line per phase and PASS/FAIL per target; exits 1 when a target fails. Everything
stops by itself: every run has a timeout, the web's child exits with this process, the Redis
server is this process's child in a temporary directory.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "fixtures"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import external  # noqa: E402

from linkfix.store.shared import PREFIX  # noqa: E402
from linkfix_simweb.store_server import RedisServer  # noqa: E402

RUN_TIMEOUT = 600  # seconds one run may take before it is killed
STOP_AT = 1 / 3  # phase 5 stops Redis once the web has seen this share of one run's requests
WARNING = "shared cache"  # the start of the one warning a run gives when the store goes


def linkfix_command(server: external.Server, args: argparse.Namespace, out: Path, cache: Path, cache_url: str) -> list[str]:
    return [
        sys.executable, "-m", "linkfix", "check", str(server.docs), "--format", "json", "--output", str(out),
        "--allow-private", "--host-concurrency", str(args.host_concurrency), "--max-concurrency", str(args.max_concurrency),
        "--request-interval", str(args.interval), "--cache-dir", str(cache), *(["--cache-url", cache_url] if cache_url else []),
    ]  # fmt: skip


def run_together(server: external.Server, args: argparse.Namespace, workdir: Path, phase: str, count: int, cache_url: str,
                 during: threading.Thread | None = None) -> dict:
    """`count` runs started at once (each its own cache); what the web saw from all of them."""
    server.reset()
    started = time.monotonic()
    runs = []
    for i in range(count):
        out, log = workdir / f"{phase}-{i}.json", workdir / f"{phase}-{i}.log"
        with log.open("w") as err:
            process = subprocess.Popen(linkfix_command(server, args, out, workdir / f"{phase}-cache-{i}", cache_url),
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        runs.append((process, out, log))
    if during is not None:
        during.start()
    results = []
    for process, out, log in runs:
        try:
            code = process.wait(timeout=max(1.0, RUN_TIMEOUT - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            process.kill()
            code = -1
        statuses = {link["url"]: link["status"] for link in json.loads(out.read_text())["links"]} if out.exists() else {}
        right, wrong = external.linkfix_accuracy(server.truth, statuses)
        text = log.read_text(errors="replace")
        results.append({"exit": code, "right": right, "wrong": dict(wrong), "warnings": text.count(WARNING), "log": text[-2000:]})
    if during is not None:
        during.join()
    wall = time.monotonic() - started
    stats = server.stats()
    return {"phase": phase, "wall": wall, "runs": results, "requests": sum(s["requests"] for s in stats.values()),
            "peak": max((s["peak"] for s in stats.values()), default=0), "per_second": max((s["busiest_second"] for s in stats.values()), default=0)}


def stop_when_busy(server: external.Server, redis: RedisServer, requests: int, *, restart: bool) -> threading.Thread:
    """A watcher that stops Redis (and starts it again, empty, with `restart`) once the web has
    seen `requests` requests; it gives up after RUN_TIMEOUT."""
    def watch() -> None:
        deadline = time.monotonic() + RUN_TIMEOUT
        while time.monotonic() < deadline:
            if sum(s["requests"] for s in server.stats().values()) >= requests:
                break
            time.sleep(0.05)
        redis.stop()
        if restart:
            redis.start()

    return threading.Thread(target=watch, daemon=True)


def store_cost(redis: RedisServer, urls: int) -> dict:
    """Keys and bytes the store holds per URL, for `urls` URLs shaped as the runs left them."""
    import redis as redis_client

    client = redis_client.Redis.from_url(redis.url)
    rows = []  # (kind, value, ms to keep) of every record and ids entry the runs wrote
    for key in client.scan_iter(PREFIX + "*", count=1000):
        tail = key[len(PREFIX):]
        if len(tail) == 32 or tail.startswith(b"ids:"):
            rows.append((b"ids:" if tail.startswith(b"ids:") else b"", client.get(key), max(1, client.pttl(key))))
    records = sum(1 for kind, _, _ in rows if not kind)
    client.flushdb()
    before, keys_before = client.info("memory")["used_memory"], client.dbsize()
    copies = math.ceil(urls / max(records, 1))
    pipe = client.pipeline(transaction=False)
    for copy in range(copies):
        for index, (kind, value, keep) in enumerate(rows):
            pipe.set(PREFIX.encode() + kind + hashlib.sha256(b"%d:%d" % (copy, index)).hexdigest()[:32].encode(), value, px=keep)
        if copy % 20 == 19:
            pipe.execute()
    pipe.execute()
    made = copies * records
    memory, keys = client.info("memory")["used_memory"] - before, client.dbsize() - keys_before
    return {"urls": made, "keys": keys, "bytes": memory, "value_bytes": sum(len(value) for _, value, _ in rows) * copies,
            "ids_share": (len(rows) - records) / max(records, 1)}


def report(result: dict, one_run: int, total: int) -> None:
    exits = sorted({run["exit"] for run in result["runs"]})
    right = min(run["right"] for run in result["runs"])
    print(f"{result['phase']:<22} runs {len(result['runs'])}  wall {result['wall']:6.2f} s  requests {result['requests']:6d} "
          f"({result['requests'] / max(one_run, 1):5.2f}x one run)  peak in flight/host {result['peak']:3d}  "
          f"most/host/second {result['per_second']:4d}  right {right}/{total} (worst run)  exit {exits}  "
          f"warnings/run {sorted({run['warnings'] for run in result['runs']})}")
    for index, run in enumerate(result["runs"]):
        if run["wrong"]:
            print(f"  run {index}: misses {run['wrong']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=500)
    parser.add_argument("--hosts", type=int, default=40)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spread", choices=("skewed", "even"), default="skewed")
    parser.add_argument("--host-concurrency", type=int, default=8)
    parser.add_argument("--max-concurrency", type=int, default=64)
    parser.add_argument("--interval", type=float, default=0.0, help="request_interval of every run (seconds)")
    parser.add_argument("--runs", type=int, default=4, help="runs started at once (default 4)")
    parser.add_argument("--rate-limited", action="store_true", help="keep the 429-then-ok URLs (Retry-After: 1 each)")
    parser.add_argument("--restart", action="store_true", help="phase 5 starts Redis again at once (empty) instead of leaving it stopped")
    parser.add_argument("--no-uvloop", action="store_true")
    parser.add_argument("--cost-urls", type=int, default=100_000, help="URLs phase 6 fills the store with (0: no phase 6)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args(argv)
    if not RedisServer.available():
        print("redis-server is not installed (apt-get install redis-server)")
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="linkfix-shared-"))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    os.environ.pop("CI", None)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    server = external.Server(args, workdir)
    redis = RedisServer()
    failed = []
    try:
        redis.start()
        subprocess.run([sys.executable, "-m", "linkfix", "check", "--offline", "--quiet", str(server.docs)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=RUN_TIMEOUT, check=False)  # bytecode, compiled patterns
        total = len(server.truth)
        print(f"{total} URLs on {args.hosts} hosts ({args.spread}), latency {args.latency * 1000:.0f} ms, host concurrency "
              f"{args.host_concurrency}, interval {args.interval * 1000:.0f} ms, {args.runs} runs at once; redis-server "
              f"{subprocess.run([redis.executable, '--version'], capture_output=True, text=True).stdout.split()[2]}; "
              f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
        alone = run_together(server, args, workdir, "one run, no store", 1, "")
        one_run, baseline_exit = alone["requests"], alone["runs"][0]["exit"]
        report(alone, one_run, total)
        report(run_together(server, args, workdir, "together, no store", args.runs, ""), one_run, total)
        shared = run_together(server, args, workdir, "together, shared", args.runs, redis.url)
        report(shared, one_run, total)
        later = run_together(server, args, workdir, "later run, shared", 1, redis.url)
        report(later, one_run, total)
        cost = store_cost(redis, args.cost_urls) if args.cost_urls else None
        if cost:
            per = 100_000 / cost["urls"]
            print(f"{'store cost':<22} {cost['urls']} URLs as the shared runs stored them ({cost['ids_share']:.0%} with page ids): "
                  f"{cost['keys']} keys, {cost['bytes'] / 2**20:.1f} MiB used_memory ({cost['value_bytes'] / 2**20:.1f} MiB of it "
                  f"values); per 100,000 URLs {cost['keys'] * per:,.0f} keys, {cost['bytes'] * per / 2**20:.1f} MiB")
        redis.stop()
        redis.start()  # empty: the runs find nothing and claim everything
        watcher = stop_when_busy(server, redis, max(1, int(one_run * STOP_AT)), restart=args.restart)
        stopped = run_together(server, args, workdir, "Redis " + ("restarted" if args.restart else "stopped") + " mid-way",
                               args.runs, redis.url, during=watcher)
        report(stopped, one_run, total)

        def target(ok: bool, what: str) -> None:
            print(f"{'PASS' if ok else 'FAIL'}  {what}")
            if not ok:
                failed.append(what)

        for result in (shared, later, stopped):
            target(all(run["right"] == total for run in result["runs"]), f"{result['phase']}: every run right (0 FP / 0 FN)")
            target(all(run["exit"] == baseline_exit for run in result["runs"]), f"{result['phase']}: exit code {baseline_exit} as alone")
        target(shared["peak"] <= args.host_concurrency, f"together, shared: at most {args.host_concurrency} in flight per host "
                                                        f"(saw {shared['peak']})")
        if args.interval:
            # In any second, 1 / interval starts and one more at its edge; arrivals jitter with the
            # server's loop, so one more again.
            allowed = int(1 / args.interval) + 2
            target(shared["per_second"] <= allowed, f"together, shared: at most {allowed} requests to a host in any second at "
                                                    f"{args.interval * 1000:.0f} ms apart (saw {shared['per_second']})")
        target(shared["requests"] <= 1.3 * one_run, f"together, shared: <= 1.3x one run's requests ({shared['requests'] / one_run:.2f}x)")
        target(later["requests"] <= 0.05 * one_run, f"later run: <= 5% of one run's requests ({100 * later['requests'] / one_run:.1f}%)")
        target(all(run["warnings"] == 1 for run in stopped["runs"]), f"{stopped['phase']}: each run says so once")
    finally:
        redis.close()
        server.stop()
        if args.keep:
            print(f"work directory kept: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
