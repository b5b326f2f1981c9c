"""Offline check of a large real site, linkfix beside lychee, in one run.

    python benchmarks/offline.py [SITE_DIR] [--runs N] [--no-other-peers]

SITE_DIR defaults to Debian's python3.11-doc (`apt-get install python3.11-doc`:
/usr/share/doc/python3.11/html, 530 pages, ~170k links). Each tool runs with and without
fragment checks; the script prints wall time, peak RSS and linkfix/lychee ratios, then compares
the broken links both found and explains every difference it can classify.

The other peers on PATH run on the same site afterwards, once each (they are slow): linkinator
(`npm i -g linkinator`; it serves the directory on localhost and crawls it, external URLs
skipped; `--check-fragments` for the fragment case) and linkchecker (`pip install linkchecker`;
file:// from index.html, no anchor checks, so only the no-fragments case). Both check each
distinct URL once, so their reports are not compared link by link.
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


def best_of(command: list[str], runs: int) -> tuple[float, float, int]:
    results = [measure(command) for _ in range(runs)]
    return min(r[0] for r in results), max(r[1] for r in results), results[-1][2]


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
    parser.add_argument("--runs", type=int, default=3, help="runs per command; the fastest counts")
    parser.add_argument("--no-other-peers", action="store_true", help="only linkfix and lychee")
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
    rows, outputs = [], {}
    for fragments in (False, True):
        label = "with fragments" if fragments else "no fragments"
        row = {"case": label}
        for tool, command in commands.items():
            if command is None:
                continue
            flags = fragment_flag[tool][fragments]
            flags = [flags] if isinstance(flags, str) else list(flags)
            wall, rss, _ = best_of(command + flags, args.runs)
            row[f"{tool}_s"], row[f"{tool}_mb"] = wall, rss
            out = work / f"{tool}-{fragments}.json"
            measure(command + flags + (["--format", "json", "-o", str(out)]))
            outputs[f"{tool} {label}"] = out
        rows.append(row)
    # Before any report is read: a child's peak RSS counts the parent it was forked from.
    peer_lines = [] if args.no_other_peers else other_peers(site, rows)

    pages = sum(1 for _ in site.rglob("*.html"))
    links = len(json.loads(outputs["linkfix no fragments"].read_text())["links"])
    print(f"site: {site} ({pages} pages, {links} link occurrences); best of {args.runs} runs; {os.cpu_count()} cores")
    print(f"{'case':16} {'linkfix s':>10} {'lychee s':>9} {'ratio':>6}   {'linkfix MB':>10} {'lychee MB':>9}")
    nan = float("nan")
    for row in rows:
        ratio = row["linkfix_s"] / row["lychee_s"] if lychee else nan
        print(f"{row['case']:16} {row['linkfix_s']:10.2f} {row.get('lychee_s', nan):9.2f} {ratio:6.2f}"
              f"   {row['linkfix_mb']:10.0f} {row.get('lychee_mb', nan):9.0f}")
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
    if peer_lines:
        print("\nother peers, one run each, same site (linkfix's time: its best above)")
        print("\n".join(peer_lines))
    shutil.rmtree(work, ignore_errors=True)
    return 0


def other_peers(site: Path, rows: list[dict]) -> list[str]:
    """linkinator and linkchecker on the same site, one run each, beside linkfix's best time."""
    peers = {
        "linkinator": lambda fragments: [shutil.which("linkinator") or "", str(site), "--recurse", "--skip", "^(?!http://localhost)",
                                         *(["--check-fragments"] if fragments else [])],
        "linkchecker": lambda fragments: None if fragments else [shutil.which("linkchecker") or "", "--no-status", "--no-warnings",
                                                                  f"file://{site}/index.html"],
    }
    lines = []
    for name, command_for in peers.items():
        if not shutil.which(name):
            lines.append(f"  {name}: not on PATH, skipped")
            continue
        for row, fragments in zip(rows, (False, True), strict=True):
            command = command_for(fragments)
            if command is None:
                continue
            wall, rss, code = measure(command)
            lines.append(f"  {name:12} {row['case']:16} {wall:8.2f} s {rss:6.0f} MB (exit {code});"
                         f" linkfix/{name} {row['linkfix_s'] / wall:5.2f}")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
