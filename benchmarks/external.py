"""Benchmark: external-link checking, linkfix beside lychee, on the simulated web.

    python benchmarks/external.py                      # 10,000 URLs, 40 hosts, 50 ms, 8 per host
    python benchmarks/external.py --urls 1000 --no-lychee
    python benchmarks/external.py --runs 3             # each checker 3 times, interleaved; medians
    python benchmarks/external.py --spread even --rate-limited   # the older, easier-to-saturate mix
    python benchmarks/external.py --interval 0.05      # both spacing requests to a host 50 ms apart (lychee's default)
    python benchmarks/external.py --busiest-only       # only the busiest host's URLs: what that host alone costs
    python benchmarks/external.py --urls 1000 --runs 3 --peers   # linkinator, markdown-link-check, linkchecker too

A child process serves the generated web (hosts 127.0.0.10.., `linkfix_simweb`) plus a small
control endpoint (per-host request counts and peak concurrent connections). Each checker then
runs as its own process under /usr/bin/time -v, so wall time and peak RSS are the checker's
alone. Printed: wall time, CPU time (and CPU per request), peak RSS, requests sent, peak
connections per host, the CPU the simulated web spent serving that run (to tell a slow checker
from a saturated server), the physical limit max_h(ceil(urls_h / host_concurrency)) x latency,
ratios, accuracy against the ground truth, and a warm-cache second linkfix run. Everything stops by itself (timeouts on every
process; the server child exits when its parent does).

The site matches the one issue 3's peer figures come from:
- URLs are spread over hosts Zipf-like (`--spread skewed`, the default; host k gets weight
  k**-0.68), so the busiest host holds ~1,260 of 10,000 URLs and the physical limit is ~7.9 s
  at 8 connections per host and 50 ms. `--spread even` gives every host the same share
  (limit ~2.1 s), which mostly measures the simulated web's own CPU.
- Only linked paths exist: a catalogue path nobody linked (e.g. the random sibling of a
  soft-404 probe) answers 404, except on the 5 soft-404 hosts (every eighth), which answer 200.
- The "429-then-ok" kind (429 with Retry-After: 1 once per URL) is left out unless
  `--rate-limited`: a polite checker pauses the whole host for Retry-After, so those URLs put a
  floor under its time that the physical limit does not count. With `--rate-limited` that
  floor is printed as max over hosts of (429 URLs on the host x Retry-After), with the
  smaller floor of a client whose pauses overlap fully (host concurrency 429s per pause).
For each checker, "busiest-host floor" is max over hosts of ceil(requests it sent to the host /
host concurrency) x latency: the least time the requests it chose to send need, so a checker's
scheduling (wall / floor) shows apart from how many requests it sends.
The server child runs on uvloop when that is importable (it is not a linkfix dependency;
`--no-uvloop` forces asyncio) and renders every linked page before the runs, so the simulated
web is less likely to be the bottleneck.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
sys.path.insert(0, str(FIXTURES))
from linkfix_simweb.control import ServerChild  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import external_peers  # noqa: E402

RETRY_AFTER = 1.0  # seconds: what the catalogue's /rate/ paths send in Retry-After
RATE_LIMITED_KIND = "429-then-ok"
RUN_TIMEOUT = 900  # seconds any one checker run may take before it is killed
SERVER_LIFETIME = 3600  # the server child stops by itself after this long, whatever happens

# The status a checker gives -> the classes compared with the ground truth.
LYCHEE_FAILING = {"failed", "error", "timeout"}


# -- the server child ---------------------------------------------------------------------------
def left_out(args: argparse.Namespace) -> frozenset[str]:
    return frozenset() if args.rate_limited else frozenset({RATE_LIMITED_KIND})


def run_server(args: argparse.Namespace) -> None:
    """Serve on uvloop when it is importable (and not refused): a faster simulated web."""
    loop_factory = None
    if not args.no_uvloop:
        try:
            import uvloop
        except ImportError:
            pass
        else:
            loop_factory = uvloop.new_event_loop
    loop_name = "asyncio" if loop_factory is None else "uvloop"
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(serve(args, loop_name))


async def serve(args: argparse.Namespace, loop_name: str) -> None:
    sys.path.insert(0, str(FIXTURES))
    from aiohttp import web as aioweb

    from linkfix_simweb.control import serve_until_parent_exits
    from linkfix_simweb.generate import build_external_web, generate_external_site, prerender_truth, restrict_to_truth

    simweb = build_external_web(args.hosts, latency=args.latency)
    async with simweb:
        docs, truth = generate_external_site(
            args.urls, args.hosts, args.seed, port=simweb.port, directory=Path(args.out),
            spread=args.spread, without=left_out(args),
        )  # fmt: skip
        restrict_to_truth(simweb, truth)  # an unlinked path is a 404 (soft-404 on soft hosts)
        prerender_truth(simweb, truth)  # page text is made before, not during, the timed runs

        async def stats(_request: aioweb.Request) -> aioweb.Response:
            data = {}
            for host in simweb.sites:
                s = simweb.stats(host)
                data[host] = {"requests": s.requests, "peak": s.peak_concurrent, "methods": dict(s.methods),
                              "busiest_second": busiest_second(s.times), "times": s.times}
            return aioweb.json_response(data)

        async def reset(_request: aioweb.Request) -> aioweb.Response:
            simweb.reset_stats()
            return aioweb.json_response({"ok": True})

        routes = {"GET /stats": stats, "POST /reset": reset}
        await serve_until_parent_exits(simweb, routes, info={"docs": str(docs), "loop": loop_name}, lifetime=SERVER_LIFETIME)


def busiest_second(times: list[float]) -> int:
    """The most requests that arrived within any one second (`times` in arrival order): what a
    request interval allows, measured at the server (one arrival's gap to the next is the
    server's own loop jitter as much as the client's spacing)."""
    most, first = 0, 0
    for last, arrived in enumerate(times):
        while arrived - times[first] >= 1.0:
            first += 1
        most = max(most, last - first + 1)
    return most


# -- the parent ------------------------------------------------------------------------------------
class Server(ServerChild):
    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        command = [
            sys.executable, __file__, "--serve", "--out", str(workdir / "site"), "--urls", str(args.urls),
            "--hosts", str(args.hosts), "--latency", str(args.latency), "--seed", str(args.seed),
            "--spread", args.spread,
            *(["--rate-limited"] if args.rate_limited else []), *(["--no-uvloop"] if args.no_uvloop else []),
        ]  # fmt: skip
        super().__init__(command, what="benchmark")
        self.docs = Path(self.info["docs"])
        self.loop: str = self.info.get("loop", "?")
        self.truth: dict[str, str] = json.loads((self.docs.parent / "ground_truth.json").read_text())

    def reset(self) -> None:
        self.call("/reset", "POST")

    def stats(self) -> dict[str, dict]:
        return self.call("/stats")

    def cpu_seconds(self) -> float:
        """CPU time the server child has used so far (Linux /proc; NaN elsewhere): shows whether
        the simulated web, not the checker, was the bottleneck of a run."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return float("nan")


def timed(command: list[str], *, cwd: Path, log: Path, stdin: Path | None = None, stdout: Path | None = None) -> dict:
    """Run `command` under /usr/bin/time -v; wall seconds, peak RSS (MB), exit code, and when it
    started (time.monotonic(): the clock the simulated web stamps each request's arrival with)."""
    started = time.monotonic()
    with contextlib.ExitStack() as files:
        err = files.enter_context(log.open("w"))
        source = files.enter_context(stdin.open("rb")) if stdin else subprocess.DEVNULL
        sink = files.enter_context(stdout.open("wb")) if stdout else subprocess.DEVNULL
        try:
            process = subprocess.run(["/usr/bin/time", "-v", *command], cwd=cwd, stdin=source, stdout=sink, stderr=err, timeout=RUN_TIMEOUT)
            code = process.returncode
        except subprocess.TimeoutExpired:
            code = -1
    wall = time.monotonic() - started
    text = log.read_text(errors="replace")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", text))
    return {"wall": wall, "cpu": cpu, "rss_mb": int(rss.group(1)) / 1024 if rss else float("nan"), "exit": code, "started": started}


def run_linkfix(server: Server, args: argparse.Namespace, workdir: Path, name: str, cache: str = "linkfix-cache") -> dict:
    out = workdir / f"{name}.json"
    command = [
        sys.executable, "-m", "linkfix", "check", str(server.docs), "--format", "json", "--output", str(out),
        "--allow-private", "--host-concurrency", str(args.host_concurrency),
        "--max-concurrency", str(args.max_concurrency), "--request-interval", str(args.interval),
        "--cache-dir", str(workdir / cache), "--quiet", *args.filter_flags,
    ]  # fmt: skip
    run = _timed_against(server, command, workdir, name)
    statuses: dict[str, str] = {}
    if out.exists():
        for link in json.loads(out.read_text())["links"]:
            statuses[link["url"]] = link["status"]
    run["statuses"] = statuses
    return run


def run_lychee(server: Server, args: argparse.Namespace, workdir: Path) -> dict:
    out = workdir / "lychee.json"
    command = [
        "lychee", "--no-progress", "--format", "json", "--output", str(out),
        "--max-concurrency", str(args.max_concurrency), "--host-concurrency", str(args.host_concurrency),
        "--host-request-interval", f"{round(args.interval * 1000)}ms", "--include-fragments", "--max-retries", "2", "--timeout", "20",
        "--retry-wait-time", "1", *args.filter_flags, str(server.docs),
    ]  # fmt: skip
    run = _timed_against(server, command, workdir, "lychee")
    failing: set[str] = set()
    if out.exists():
        report = json.loads(out.read_text() or "{}")
        for entries in (report.get("error_map") or report.get("fail_map") or {}).values():
            for entry in entries:
                failing.add(entry.get("url", ""))
    run["failing"] = failing
    return run


def run_peer(server: Server, workdir: Path, name: str) -> dict:
    peer = external_peers.prepare(name, server.docs, server.truth, workdir)
    run = _timed_against(server, peer.command, peer.cwd, name, log_dir=workdir, stdin=peer.stdin, stdout=peer.stdout)
    run["failing"] = external_peers.failing(name, workdir)
    return run


def _timed_against(server: Server, command: list[str], workdir: Path, name: str, *, log_dir: Path | None = None,
                   stdin: Path | None = None, stdout: Path | None = None) -> dict:
    server.reset()
    server_cpu = server.cpu_seconds()
    run = timed(command, cwd=workdir, log=(log_dir or workdir) / f"{name}.time", stdin=stdin, stdout=stdout)
    run["server_cpu"] = server.cpu_seconds() - server_cpu
    run.update(_traffic(server.stats(), run["started"]))
    (log_dir or workdir).joinpath(f"{name}.arrivals.json").write_text(json.dumps(run["arrivals"]))  # kept with --keep
    return run


def _traffic(stats: dict[str, dict], started: float) -> dict:
    return {
        "requests": sum(s["requests"] for s in stats.values()),
        "peak_per_host": max((s["peak"] for s in stats.values()), default=0),
        "per_host": {host: s["requests"] for host, s in stats.items()},
        # Each request's arrival, in seconds from the checker's start: where its wall went (timeline()).
        "arrivals": {host: [t - started for t in s["times"]] for host, s in stats.items() if s["times"]},
    }


def timeline(run: dict, host_concurrency: int, latency: float) -> str:
    """Where a run's wall went: its first request, the busiest host's span (and how much of the
    host's capacity it used: host_concurrency / latency requests a second), the last request."""
    arrivals = run.get("arrivals") or {}
    if not arrivals:
        return "no requests"
    first = min(times[0] for times in arrivals.values())
    last = max(times[-1] for times in arrivals.values())
    busiest, times = max(arrivals.items(), key=lambda item: len(item[1]))
    span = max(times[-1] - times[0], latency)
    used = len(times) / span / (host_concurrency / latency)
    ends = sorted(times[-1] for times in arrivals.values())
    after = sum(1 for end in ends if end > times[-1])
    return (f"first request +{first:.2f} s; busiest host {busiest} +{times[0]:.2f} to +{times[-1]:.2f} s "
            f"({len(times)} requests, {100 * used:.0f}% of its {host_concurrency} slots); last request +{last:.2f} s "
            f"({after} hosts' last after the busiest's); exit +{run['wall']:.2f} s")


def urls_per_host(truth: dict[str, str]) -> Counter:
    return Counter(urlsplit(url).hostname for url in {u.split("#", 1)[0] for u in truth})


def _median(runs: list[dict]) -> dict:
    """The run with the median wall time (the lower one of the middle two)."""
    return sorted(runs, key=lambda run: run["wall"])[(len(runs) - 1) // 2]


def physical_limit(truth: dict[str, str], host_concurrency: int, latency: float) -> float:
    return max(math.ceil(n / host_concurrency) for n in urls_per_host(truth).values()) * latency


def busiest_host_floor(per_host: dict[str, int], host_concurrency: int, latency: float) -> tuple[float, str, int]:
    """(seconds, host, requests): the host whose requests from this checker need the longest at
    `host_concurrency` at a time, each taking `latency` — the checker's own lower bound."""
    host, sent = max(per_host.items(), key=lambda item: item[1], default=("-", 0))
    return math.ceil(sent / host_concurrency) * latency, host, sent


def polite_floor(truth: dict[str, str]) -> tuple[float, str, int]:
    """(seconds, host, URLs): the most Retry-After pauses one host imposes on a client that
    pauses the whole host for each 429-then-ok URL (max over hosts of 429 URLs x Retry-After)."""
    from linkfix_simweb.generate import KINDS

    (kind,) = (k for k in KINDS if k.name == RATE_LIMITED_KIND)
    per_host = Counter(urlsplit(url).hostname for url in truth if kind.match(urlsplit(url).path) is not None)
    host, count = max(per_host.items(), key=lambda item: item[1], default=("-", 0))
    return count * RETRY_AFTER, host, count


def linkfix_accuracy(truth: dict[str, str], statuses: dict[str, str]) -> tuple[int, Counter]:
    right, wrong = 0, Counter()
    for url, expected in truth.items():
        got = statuses.get(url, "missing")
        if got == expected:
            right += 1
        else:
            wrong[f"{expected}->{got}"] += 1
    return right, wrong


def lychee_accuracy(truth: dict[str, str], failing: set[str]) -> tuple[int, Counter]:
    """lychee only says pass/fail: compare with 'broken or error' in the ground truth."""
    right, wrong = 0, Counter()
    for url, expected in truth.items():
        should_fail = expected in ("broken", "error")
        base = url.split("#", 1)[0]
        did_fail = url in failing or base in failing
        if should_fail == did_fail:
            right += 1
        else:
            wrong[f"{expected}->{'fail' if did_fail else 'pass'}"] += 1
    return right, wrong


def report(name: str, run: dict, limit: float, total: int, accuracy: tuple[int, Counter], args: argparse.Namespace) -> None:
    right, wrong = accuracy
    print(
        f"{name:<14} wall {run['wall']:7.2f} s  ({run['wall'] / limit:5.2f}x limit)  cpu {run['cpu']:6.2f} s  peak RSS {run['rss_mb']:6.1f} MB  "
        f"requests {run['requests']:6d}  peak conns/host {run['peak_per_host']:3d}  exit {run['exit']}"
    )
    per_request = 1000 * run["cpu"] / max(run["requests"], 1)
    print(f"{'':<14} cpu per request {per_request:.2f} ms  simulated web cpu {run['server_cpu']:.2f} s")
    floor, host, sent = busiest_host_floor(run["per_host"], args.host_concurrency, args.latency)
    print(
        f"{'':<14} busiest-host floor {floor:.2f} s ({sent} requests to {host} / {args.host_concurrency} x "
        f"{args.latency * 1000:.0f} ms); wall / floor {run['wall'] / floor if floor else float('nan'):.2f}"
    )
    print(f"{'':<14} {timeline(run, args.host_concurrency, args.latency)}")
    print(f"{'':<14} accuracy {right}/{total} ({100 * right / max(total, 1):.1f}%)" + (f"  misses: {dict(wrong.most_common(6))}" if wrong else ""))


def false_results(truth: dict[str, str], statuses: dict[str, str]) -> tuple[int, int]:
    """(false positives, false negatives) of one linkfix run: a URL called broken that the ground
    truth does not call broken, and a broken URL not called broken."""
    positives = sum(1 for url, expected in truth.items() if statuses.get(url) == "broken" and expected != "broken")
    negatives = sum(1 for url, expected in truth.items() if expected == "broken" and statuses.get(url) != "broken")
    return positives, negatives


def summary(truth: dict[str, str], limit: float, colds: list[dict], lychees: list[dict], args: argparse.Namespace) -> dict:
    """The figures speed.py puts in its table: walls per round, the limit, each run's accuracy."""
    cold = _median(colds)
    return {
        "urls": len(truth), "limit": limit, "load": os.getloadavg()[0],
        "linkfix": [run["wall"] for run in colds], "linkfix_cpu": [run["cpu"] for run in colds],
        "lychee": [run["wall"] for run in lychees], "requests": cold["requests"],
        "own_floor": busiest_host_floor(cold["per_host"], args.host_concurrency, args.latency)[0],
        "right": [linkfix_accuracy(truth, run["statuses"])[0] for run in colds],
        "false": [false_results(truth, run["statuses"]) for run in colds],
        "timeline": timeline(cold, args.host_concurrency, args.latency),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=10000)
    parser.add_argument("--hosts", type=int, default=40)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--host-concurrency", type=int, default=8)
    parser.add_argument("--max-concurrency", type=int, default=0, help="default: hosts x host concurrency")
    parser.add_argument("--spread", choices=("skewed", "even"), default="skewed",
                        help="URLs per host: Zipf-like (default; busiest host ~12.6%%) or even")
    parser.add_argument("--rate-limited", action="store_true",
                        help="keep the 429-then-ok URLs (Retry-After: 1 each) in the mix")
    parser.add_argument("--no-uvloop", action="store_true", help="serve on asyncio's own loop even if uvloop is installed")
    parser.add_argument("--interval", type=float, default=0.0, metavar="SECONDS",
                        help="least time between two requests to one host, for both checkers (default 0; lychee's own default is 0.05)")
    parser.add_argument("--busiest-only", action="store_true",
                        help="check only the busiest host's URLs (both checkers): how long that host alone takes")
    parser.add_argument("--no-lychee", action="store_true")
    parser.add_argument("--peers", action="store_true",
                        help="also run linkinator, markdown-link-check and linkchecker (see external_peers.py)")
    parser.add_argument("--runs", type=int, default=1, help="runs per checker; the median is reported")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--summary", metavar="FILE", help="also write the figures as JSON (what speed.py's table reads)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        run_server(args)
        return 0
    args.max_concurrency = args.max_concurrency or args.hosts * args.host_concurrency

    workdir = Path(tempfile.mkdtemp(prefix="linkfix-bench-"))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    os.environ.pop("CI", None)  # the children run as in CI anyway: no TTY, so no progress bar
    # linkfix runs as an installed one does, from its bytecode and kept compiled patterns (as
    # speed.py's children do): under PYTHONDONTWRITEBYTECODE every run compiled linkfix's modules
    # from source, a cost no installed linkfix pays (most of a warm run's CPU). One offline
    # warm-up run writes them before anything is timed.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    server = Server(args, workdir)
    try:
        subprocess.run([sys.executable, "-m", "linkfix", "check", "--offline", "--quiet", str(server.docs)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=RUN_TIMEOUT, check=False)
        truth = server.truth
        limit = physical_limit(truth, args.host_concurrency, args.latency)
        pages = len({u.split("#", 1)[0] for u in truth})
        print(
            f"{len(truth)} URLs ({pages} distinct pages) on {args.hosts} hosts, latency {args.latency * 1000:.0f} ms, "
            f"{args.host_concurrency} per host, max {args.max_concurrency} in flight; physical limit {limit:.2f} s"
        )
        busiest, busiest_urls = urls_per_host(truth).most_common(1)[0]
        print(f"spread {args.spread}: busiest host {busiest} has {busiest_urls} URLs; server loop: {server.loop}")
        args.filter_flags = []
        if args.busiest_only:  # the site's pages stay the same; only that host's URLs are checked and scored
            truth = {url: status for url, status in truth.items() if urlsplit(url).hostname == busiest}
            args.filter_flags = ["--exclude", ".", "--include", rf"^https?://{re.escape(busiest)}[:/]"]
            print(f"--busiest-only: checking and scoring only the {len(truth)} URLs on {busiest}")
        if args.rate_limited:
            floor, host, count = polite_floor(truth)
            shared = math.ceil(count / args.host_concurrency) * RETRY_AFTER
            print(
                f"429-then-ok kept: a polite client's floor {floor:.2f} s ({count} URLs with Retry-After "
                f"{RETRY_AFTER:.0f} s on {host}; {shared:.2f} s if {args.host_concurrency} 429s share each pause), "
                "not counted in the limit"
            )
        else:
            print("429-then-ok left out (--rate-limited keeps it)")
        if args.interval:
            print(f"requests to one host start >= {args.interval * 1000:.0f} ms apart (both checkers): the busiest host's "
                  f"{busiest_urls} URLs need >= {busiest_urls * args.interval:.2f} s")
        # Wall times on a shared machine depend on who else runs: say how loaded it was.
        print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")
        # Wall times on a shared 2-core machine vary run to run: with --runs N each checker runs
        # N times, interleaved (linkfix cold, linkfix warm on that cache, lychee), and the
        # median run of each is reported; every wall is printed.
        colds, warms, lychees = [], [], []
        with_lychee = not args.no_lychee and shutil.which("lychee")
        peers: dict[str, list[dict]] = {name: [] for name in (external_peers.available() if args.peers else [])}
        if args.peers:
            print(f"peers: {', '.join(peers) or 'none on PATH'} (pass/fail scoring; see external_peers.py for what each reads)")
        for i in range(args.runs):
            colds.append(run_linkfix(server, args, workdir, f"linkfix-cold-{i}", cache=f"linkfix-cache-{i}"))
            warms.append(run_linkfix(server, args, workdir, f"linkfix-warm-{i}", cache=f"linkfix-cache-{i}"))
            if with_lychee:
                lychees.append(run_lychee(server, args, workdir))
            for name, runs in peers.items():
                runs.append(run_peer(server, workdir, name))
        cold, warm = _median(colds), _median(warms)
        report("linkfix", cold, limit, len(truth), linkfix_accuracy(truth, cold["statuses"]), args)
        report("linkfix warm", warm, limit, len(truth), linkfix_accuracy(truth, warm["statuses"]), args)
        print(f"{'':<14} warm/cold wall {warm['wall'] / cold['wall']:.2f} (target < 0.10)")
        if with_lychee:
            lychee = _median(lychees)
            report("lychee", lychee, limit, len(truth), lychee_accuracy(truth, lychee["failing"]), args)
            print(f"{'':<14} linkfix/lychee wall {cold['wall'] / lychee['wall']:.2f} (target <= 1.0)")
        for name, runs in peers.items():
            peer = _median(runs)
            report(name, peer, limit, len(truth), lychee_accuracy(truth, peer["failing"]), args)
        for name, runs in (("lychee", lychees), *peers.items()):
            if runs:  # each run's linkfix wall over the peer's wall in the same round: load hits both alike
                ratios = sorted(cold_run["wall"] / run["wall"] for cold_run, run in zip(colds, runs))
                print(f"linkfix/{name} wall per run: median {ratios[(len(ratios) - 1) // 2]:.2f}, "
                      f"spread {ratios[0]:.2f}-{ratios[-1]:.2f}")
        if args.runs > 1:
            for name, runs in (("linkfix", colds), ("linkfix warm", warms), ("lychee", lychees), *peers.items()):
                if runs:
                    print(f"{name + ' walls':<20} " + " ".join(f"{run['wall']:.2f}" for run in runs) + " s")
        print(f"targets: linkfix <= {1.2 * limit:.2f} s (1.2x limit), RSS < 300 MB, peak conns/host <= {args.host_concurrency}")
        if args.summary:
            Path(args.summary).write_text(json.dumps(summary(truth, limit, colds, lychees, args)))
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"work directory kept: {workdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
