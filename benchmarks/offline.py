"""Offline check of a large real site, linkfix beside lychee, in one run.

    python benchmarks/offline.py [SITE_DIR] [--runs N]

SITE_DIR defaults to Debian's python3.11-doc (`apt-get install python3.11-doc`:
/usr/share/doc/python3.11/html, 530 pages, ~170k links). Each tool runs with and without
fragment checks, the tools interleaved run by run (so load from elsewhere hits them alike); the
script prints each tool's median wall time, peak RSS, the median linkfix/lychee ratio of the
runs and its spread, then compares the broken links both found and explains every difference
it can classify. `--peers` adds linkinator (no fragment checks: it has none; it serves the
directory itself and crawls from index.html) to the no-fragments case.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

DEFAULT_SITE = Path("/usr/share/doc/python3.11/html")


def measure(command: list[str]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MB) and exit code of one child process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def linkfix_broken(path: Path, site: Path) -> set[tuple[str, str]]:
    """(site-relative page, target path[#fragment]) of every broken link linkfix reported."""
    data = json.loads(path.read_text())
    found = set()
    for link in data["links"]:
        if link["status"] == "broken":
            page = os.path.relpath(os.path.abspath(link["file"]), site)
            found.add((page, unquote(link["resolved"])))
    return found


def lychee_broken(path: Path, site: Path) -> set[tuple[str, str]]:
    data = json.loads(path.read_text())
    found = set()
    for page, errors in data.get("error_map", {}).items():
        for error in errors:
            url = urlsplit(error["url"])
            if url.scheme != "file":
                continue  # lychee lists excluded web URLs here too in offline mode
            target = os.path.relpath(unquote(url.path), site) + (f"#{unquote(url.fragment)}" if url.fragment else "")
            found.add((os.path.relpath(page, site), target))
    return found


def explain(only: set[tuple[str, str]], who: str, site: Path) -> list[str]:
    """Classify links one tool reported and the other did not."""
    lines = []
    reasons: Counter[str] = Counter()
    examples: dict[str, tuple[str, str]] = {}
    for page, target in sorted(only):
        path, _, fragment = target.partition("#")
        if not page.endswith((".html", ".htm")):
            reason = ("source is not HTML: lychee also scans plain-text files (Sphinx's _sources/*.txt) and "
                      "takes example text for links; linkfix reads only markdown and HTML, so lychee's is a false alarm")
        elif not (site / path).exists() and (site / path).parent.exists() is False:
            reason = "target directory does not exist"
        elif (site / path).is_dir():
            reason = "directory link: linkfix requires dir/index.html to exist (a web server would 404/list it)"
        elif not (site / path).exists():
            reason = "missing file"
        else:
            reason = f"fragment #{fragment}" if fragment else "file exists"
        reasons[reason] += 1
        examples.setdefault(reason, (page, target))
    for reason, count in reasons.most_common():
        page, target = examples[reason]
        lines.append(f"  only {who}: {count:5d} x {reason}   e.g. {page} -> {target}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", nargs="?", type=Path, default=DEFAULT_SITE)
    parser.add_argument("--runs", type=int, default=3, help="runs per command, interleaved; the median counts")
    parser.add_argument("--peers", action="store_true", help="also time linkinator (no-fragments case)")
    args = parser.parse_args()
    site: Path = args.site.resolve()
    if not site.is_dir():
        print(f"{site} not found: apt-get install python3.11-doc, or give a built site directory", file=sys.stderr)
        return 2
    lychee = shutil.which("lychee")
    work = Path(tempfile.mkdtemp(prefix="linkfix-bench-"))
    # Timed runs print each tool's default report (only problems are listed); the findings
    # are compared from one extra JSON run of each, outside the timing.
    commands = {
        "linkfix": [sys.executable, "-m", "linkfix", "check", "--offline", "--no-cache", str(site)],
        "lychee": [lychee, "--offline", "--no-progress", "--root-dir", str(site), str(site)] if lychee else None,
    }
    fragment_flag = {"linkfix": ("--no-include-fragments", "--include-fragments"), "lychee": ((), ("--include-fragments",))}
    linkinator = shutil.which("linkinator") if args.peers else None
    if linkinator:  # it serves the directory itself on localhost and crawls from its index.html;
        # every other URL is skipped, as the others run offline
        commands["linkinator"] = [linkinator, str(site), "--recurse", "--concurrency", "100", "--skip", "^(?!http://localhost)"]
        fragment_flag["linkinator"] = ((), None)
    cases = {False: "no fragments", True: "with fragments"}
    walls: dict[tuple[bool, str], list[float]] = {}
    peaks: dict[tuple[bool, str], float] = {}
    for _ in range(args.runs):  # interleaved: every run goes round all cases and tools once
        for fragments in cases:
            for tool, command in commands.items():
                if command is None or fragment_flag[tool][fragments] is None:
                    continue
                flags = fragment_flag[tool][fragments]
                wall, rss, _ = measure(command + ([flags] if isinstance(flags, str) else list(flags)))
                walls.setdefault((fragments, tool), []).append(wall)
                peaks[fragments, tool] = max(peaks.get((fragments, tool), 0.0), rss)
    outputs = {}
    for fragments, label in cases.items():
        for tool in ("linkfix", "lychee"):
            if commands[tool] is None:
                continue
            flags = fragment_flag[tool][fragments]
            out = work / f"{tool}-{fragments}.json"
            measure(commands[tool] + ([flags] if isinstance(flags, str) else list(flags)) + ["--format", "json", "-o", str(out)])
            outputs[f"{tool} {label}"] = out

    pages = sum(1 for _ in site.rglob("*.html"))
    links = len(json.loads(outputs["linkfix no fragments"].read_text())["links"])
    print(f"site: {site} ({pages} pages, {links} link occurrences); median of {args.runs} interleaved runs; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'case':16} {'tool':10} {'median s':>9} {'peak MB':>8}   {'linkfix/tool median':>19} {'spread':>13}   walls")
    for fragments, label in cases.items():
        for tool in commands:
            if (fragments, tool) not in walls:
                continue
            ours, theirs = walls[fragments, "linkfix"], walls[fragments, tool]
            ratios = [a / b for a, b in zip(ours, theirs)]
            ratio = "" if tool == "linkfix" else f"{median(ratios):19.2f} {min(ratios):6.2f}-{max(ratios):<6.2f}"
            print(f"{label:16} {tool:10} {median(theirs):9.2f} {peaks[fragments, tool]:8.0f}   {ratio:>33}   "
                  + " ".join(f"{w:.2f}" for w in theirs))
    print("targets: with fragments ratio <= 1.0; no fragments ratio <= 2.0; linkfix peak RSS < 300 MB")

    if lychee:
        for label in ("no fragments", "with fragments"):
            ours = linkfix_broken(outputs[f"linkfix {label}"], site)
            theirs = lychee_broken(outputs[f"lychee {label}"], site)
            print(f"\nfindings, {label}: linkfix {len(ours)} broken, lychee {len(theirs)} errors, {len(ours & theirs)} in common")
            by_target = Counter(target.partition("#")[0] for _, target in ours)
            for target, count in by_target.most_common(3):
                print(f"  linkfix: {count:5d} (page, target) pairs into {target}")
            for line in explain(ours - theirs, "linkfix", site) + explain(theirs - ours, "lychee", site):
                print(line)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
