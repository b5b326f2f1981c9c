"""Scale run: `linkfix check` over a generated site of 5,000 pages and 100,000 link occurrences.

    python benchmarks/scale.py                  # 5,000 pages, 20 links each, 20,000 external URLs
    python benchmarks/scale.py --pages 500 --urls 2000 --hosts 40     # a quick look

The site (markdown, one page in ten HTML) links, per page: 14 external URLs of the generated
simulated web (`linkfix_simweb.generate`: ok, 404/410, redirects and chains, bot blocks,
soft-404s, 429 then ok, HEAD refused, flaky 503, 500, fragments found and missing) spread over
`--hosts` loopback hosts; 4 links to other pages (a file, a file#heading, a missing
#fragment, a missing file); 2 links to headings of the page itself (one in ten missing).
Every occurrence has its expected status (ground truth).

A child process serves the simulated web, so its memory and CPU are not the checker's. The
checker runs as `python -m linkfix check` (external checks on, `allow_private: true` in a
linkfix.yml, json report, its own fresh cache) in another child; its resident memory (with any
children it starts) is sampled every 0.5 s from /proc. Printed: wall time, throughput (link
occurrences/s, unique URLs/s), peak RSS, the RSS samples' trend (least-squares slope over the
steady part: after the first sample at 90% of peak, until the report is being written), the
server's request count, and accuracy against the ground truth. Every process has a time limit;
the run stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
sys.path.insert(0, str(FIXTURES))
from linkfix_simweb.control import ServerChild  # noqa: E402
from linkfix_simweb.generate import markdown_link  # noqa: E402

RUN_TIMEOUT = 1800  # seconds the checker may run before it is killed
SERVER_LIFETIME = 3600  # the server child stops by itself after this long, whatever happens
SAMPLE_EVERY = 0.5
PAGES_PER_SECTION = 50
EXTERNAL_PER_PAGE, INTERNAL_PER_PAGE, SELF_PER_PAGE = 14, 4, 2
WORDS = ("alpha", "beta", "gamma", "delta", "install", "config", "deploy", "cache", "render", "query", "token", "stream")


# -- the server child ---------------------------------------------------------------------------
async def serve(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(FIXTURES))
    from aiohttp import web as aioweb

    from linkfix_simweb.control import serve_until_parent_exits
    from linkfix_simweb.generate import build_external_web

    simweb = build_external_web(args.hosts, latency=args.latency)
    async with simweb:

        async def stats(_request: aioweb.Request) -> aioweb.Response:
            return aioweb.json_response({host: simweb.stats(host).requests for host in simweb.sites})

        await serve_until_parent_exits(simweb, {"GET /stats": stats}, lifetime=SERVER_LIFETIME)


class Server(ServerChild):
    def __init__(self, args: argparse.Namespace) -> None:
        command = [sys.executable, __file__, "--serve", "--hosts", str(args.hosts), "--latency", str(args.latency)]
        super().__init__(command, what="scale")

    def requests(self) -> int:
        return sum(self.call("/stats").values())


# -- the site -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class PagePlan:
    number: int
    html: bool
    headings: tuple[str, ...]  # heading texts; their ids are slugify(text)

    @property
    def relative(self) -> str:
        return f"section-{self.number // PAGES_PER_SECTION:03d}/page-{self.number:05d}.{'html' if self.html else 'md'}"


def _slug(text: str) -> str:
    return text.lower().replace(" ", "-")  # the headings are lower-case words and digits


def _heading_html(text: str) -> str:
    return f'<h2 id="{_slug(text)}">{text}</h2>'


def generate_site(directory: Path, *, pages: int, urls: int, hosts: int, port: int, seed: int) -> tuple[Path, dict[tuple[str, str], str]]:
    """Write the site; return (docs directory, {(page path relative to docs, url as written): expected status})."""
    sys.path.insert(0, str(FIXTURES))
    from linkfix_simweb.generate import plan_urls

    external = plan_urls(urls, hosts, seed, port)
    rng = random.Random(seed + 1)
    plans = [
        PagePlan(number=n, html=n % 10 == 9, headings=tuple(f"part {k} {rng.choice(WORDS)} {rng.choice(WORDS)}" for k in range(3)))
        for n in range(pages)
    ]
    # Every URL at least once, the rest of the external slots drawn at random.
    slots = list(external)
    slots += rng.choices(slots, k=max(0, pages * EXTERNAL_PER_PAGE - len(slots)))
    rng.shuffle(slots)
    docs = directory / "docs"
    truth: dict[tuple[str, str], str] = {}
    for plan in plans:
        chosen = slots[plan.number * EXTERNAL_PER_PAGE : (plan.number + 1) * EXTERNAL_PER_PAGE]
        links = [(url, external[url]) for url in chosen]
        here = Path(plan.relative).parent
        for i in range(INTERNAL_PER_PAGE):
            other = plans[rng.randrange(pages)]
            target = os.path.relpath(other.relative, here)
            kind = i if rng.random() < 0.9 else 3  # mostly one of each, one page in ten two missing files
            if kind == 0:
                links.append((target, "ok"))
            elif kind == 1:
                links.append((f"{target}#{_slug(rng.choice(other.headings))}", "ok"))
            elif kind == 2:
                links.append((f"{target}#no-such-heading-{rng.randrange(1000)}", "broken"))
            else:
                links.append((f"{target.rsplit('.', 1)[0]}-missing-{i}.md", "broken"))
        links.append((f"#{_slug(plan.headings[rng.randrange(3)])}", "ok"))
        links.append(("#gone-section", "broken") if rng.random() < 0.1 else (f"#{_slug(plan.headings[0])}", "ok"))
        rng.shuffle(links)
        path = docs / plan.relative
        path.parent.mkdir(parents=True, exist_ok=True)
        body = _html_page(plan, links, rng) if plan.html else _markdown_page(plan, links, rng)
        path.write_text(body, encoding="utf-8")
        for url, expected in links:
            truth[(plan.relative, url)] = expected
    return docs, truth


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12))).capitalize()


def _markdown_page(plan: PagePlan, links: list[tuple[str, str]], rng: random.Random) -> str:
    lines = [f"# Page {plan.number}", ""]
    references = []
    per_section = -(-len(links) // len(plan.headings))
    for i, (url, _) in enumerate(links):
        if i % per_section == 0:
            lines += [f"## {plan.headings[i // per_section]}", ""]
        # Internal links are never autolinks or bare URLs (those need a scheme).
        style = rng.random() if url.startswith("http") else rng.random() * 0.75
        text = f"{rng.choice(WORDS)} {i}" if style < 0.75 else ""  # drawn only where shown: same site as before
        link = markdown_link(url, text, f"ref-{i}", style, references)
        lines += [f"{_sentence(rng)}, see {link} for details.", ""]
    return "\n".join(lines + references) + "\n"


def _html_page(plan: PagePlan, links: list[tuple[str, str]], rng: random.Random) -> str:
    per_section = -(-len(links) // len(plan.headings))
    items = []
    for i, (url, _) in enumerate(links):
        if i % per_section == 0:
            items.append(_heading_html(plan.headings[i // per_section]))
        items.append(f'<p>{_sentence(rng)}: <a href="{url}">{rng.choice(WORDS)} {i}</a>.</p>')
    body = "\n".join(items)
    return f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Page {plan.number}</title></head>\n<body>\n<h1>Page {plan.number}</h1>\n{body}\n</body></html>\n"


# -- the checker, watched ---------------------------------------------------------------------------
def _rss_kb(pid: int) -> int:
    """Resident memory of `pid` and its descendants (kB); 0 once it is gone."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    todo += [int(c) for c in children.read().split()]
        except (OSError, ValueError):
            continue  # exited between two reads
    return total


def watch(command: list[str], *, cwd: Path, log: Path, timeout: float) -> tuple[int, float, list[tuple[float, int]]]:
    """Run `command`; (exit code, wall seconds, [(seconds since start, RSS kB)] every SAMPLE_EVERY)."""
    samples: list[tuple[float, int]] = []
    started = time.monotonic()
    with log.open("w") as err:
        process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        while process.poll() is None:
            elapsed = time.monotonic() - started
            if elapsed > timeout:
                process.kill()
                process.wait()
                return -1, elapsed, samples
            rss = _rss_kb(process.pid)
            if rss:
                samples.append((elapsed, rss))
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=SAMPLE_EVERY)
    return process.returncode, time.monotonic() - started, samples


def slope_mb_per_min(samples: list[tuple[float, int]]) -> float:
    if len(samples) < 2:
        return 0.0
    n = len(samples)
    mean_t = sum(t for t, _ in samples) / n
    mean_r = sum(r for _, r in samples) / n
    var = sum((t - mean_t) ** 2 for t, _ in samples)
    if not var:
        return 0.0
    cov = sum((t - mean_t) * (r - mean_r) for t, r in samples)
    return cov / var * 60 / 1024


def steady_part(samples: list[tuple[float, int]], *, until: float) -> list[tuple[float, int]]:
    """Samples from the first one at 90% of the peak up to `until` (when the report starts)."""
    peak = max((r for _, r in samples), default=0)
    start = next((i for i, (_, r) in enumerate(samples) if r >= 0.9 * peak), 0)
    return [(t, r) for t, r in samples[start:] if t <= until]


def accuracy(truth: dict[tuple[str, str], str], report: dict, docs: Path, cwd: Path) -> tuple[int, Counter, int]:
    """(occurrences right, wrong ones by expected->got, occurrences in the report not in the truth)."""
    got: dict[tuple[str, str], str] = {}
    for link in report["links"]:
        relative = Path(os.path.relpath((cwd / link["file"]).resolve(), docs.resolve())).as_posix()
        got[(relative, link["url"])] = link["status"]
    right, wrong = 0, Counter()
    for key, expected in truth.items():
        status = got.get(key, "missing")
        if status == expected:
            right += 1
        else:
            wrong[f"{expected}->{status}"] += 1
    return right, wrong, len(set(got) - set(truth))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--urls", type=int, default=20000, help="unique external URLs")
    parser.add_argument("--hosts", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.02, help="seconds the simulated web waits per response")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=RUN_TIMEOUT, help="seconds before the checker is killed")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        asyncio.run(serve(args))
        return 0
    if args.pages < 1 or args.urls < 1 or args.urls > args.pages * EXTERNAL_PER_PAGE:
        parser.error(f"need 1 <= --urls <= {EXTERNAL_PER_PAGE} x --pages")
    workdir = Path(tempfile.mkdtemp(prefix="linkfix-scale-"))
    server = Server(args)
    try:
        began = time.monotonic()
        docs, truth = generate_site(workdir / "site", pages=args.pages, urls=args.urls, hosts=args.hosts, port=server.port, seed=args.seed)
        unique = len({url for _, url in truth if url.startswith("http")})
        print(f"site: {args.pages} pages, {args.pages * (EXTERNAL_PER_PAGE + INTERNAL_PER_PAGE + SELF_PER_PAGE)} link occurrences ({len(truth)} distinct page+URL pairs), {unique} unique external URLs on {args.hosts} hosts, generated in {time.monotonic() - began:.1f} s", flush=True)
        (workdir / "linkfix.yml").write_text(
            "allow_private: true\nrequest_interval: 0\ncache_dir: .linkfix-cache\nformat: [json]\n", encoding="utf-8"
        )
        # Where the report goes is the runner's to say, never a config file's.
        command = [sys.executable, "-m", "linkfix", "check", "site/docs", "--quiet", "--output", "report.json"]
        run_started = time.time()
        code, wall, samples = watch(command, cwd=workdir, log=workdir / "linkfix.log", timeout=args.timeout)
        requests = server.requests()
    finally:
        server.stop()
    print(f"linkfix exit code {code} (1 = broken links found), log {workdir / 'linkfix.log'}")
    report_path = workdir / "report.json"
    if code not in (0, 1) or not report_path.exists():
        print((workdir / "linkfix.log").read_text(errors="replace")[-3000:])
        return 2
    report = json.loads(report_path.read_text())
    occurrences = len(report["links"])
    written = report_path.stat().st_mtime - run_started  # when the report was done, in run seconds
    peak = max(r for _, r in samples) / 1024 if samples else float("nan")
    steady = steady_part(samples, until=written)
    print(f"wall time        {wall:8.1f} s")
    print(f"throughput       {occurrences / wall:8.0f} link occurrences/s, {unique / wall:6.0f} unique URLs/s ({requests} requests served)")
    print(f"peak RSS         {peak:8.0f} MB ({len(samples)} samples every {SAMPLE_EVERY} s)")
    print(f"RSS trend        {slope_mb_per_min(steady):+8.1f} MB/min over the steady part ({len(steady)} samples), {slope_mb_per_min(samples):+.1f} MB/min over the whole run")
    step = max(1, len(samples) // 20)
    print("RSS samples      " + "  ".join(f"{t:.0f}s:{r / 1024:.0f}" for t, r in samples[::step]))
    right, wrong, extra = accuracy(truth, report, docs, workdir)
    print(f"correctness      {right}/{len(truth)} occurrences as expected ({100 * right / len(truth):.2f}%), {extra} reported but not planned")
    for what, count in wrong.most_common(10):
        print(f"    {count:6d} {what}")
    statuses = Counter(link["status"] for link in report["links"])
    print("statuses         " + ", ".join(f"{s} {n}" for s, n in statuses.most_common()))
    if args.keep:
        print(f"kept {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
