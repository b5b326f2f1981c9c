"""Markdown sources offline, linkfix beside markdown-link-check, in one run.

    python benchmarks/markdown_peers.py [DOCS_DIR] [--config MKDOCS_YML] [--runs N]

DOCS_DIR defaults to the textual project of ../shared/realdocs (293 markdown files), with its
`mkdocs-offline.yml`. Every tool checks internal links only (markdown-link-check is told to
ignore http(s) URLs, linkfix runs --offline). markdown-link-check (`npm i -g
markdown-link-check`) is run once per file, the way its README's `find ... -exec` recipe runs
it: given the directory it stops at the first file whose links it cannot turn into a file URL.
Printed per run, interleaved: wall time and peak RSS of each, linkfix/peer ratios, and how many
dead links each reported (the tools resolve links differently: linkfix on plain markdown and
linkfix with the project's MkDocs rules are both shown).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def default_docs() -> Path:
    for base in (HERE.parent.parent, HERE.parent.parent.parent):
        if (base / "shared" / "realdocs" / "textual").is_dir():
            return base / "shared" / "realdocs" / "textual" / "docs"
    return HERE.parent.parent / "shared" / "realdocs" / "textual" / "docs"


def measure(command: list[str], cwd: Path, log: Path) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB, the largest process) and the output of one child process."""
    start = time.perf_counter()
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        _, _, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_maxrss / 1024, log.read_text(errors="replace")


def linkfix_broken(report: Path) -> int:
    return sum(1 for link in json.loads(report.read_text())["links"] if link["status"] == "broken")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("docs", nargs="?", type=Path, default=default_docs())
    parser.add_argument("--config", type=Path, help="the project's mkdocs.yml (default: mkdocs-offline.yml or mkdocs.yml beside DOCS)")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    docs: Path = args.docs.resolve()
    if not docs.is_dir():
        print(f"{docs} not found: give a directory of markdown files", file=sys.stderr)
        return 2
    config = args.config or next((docs.parent / n for n in ("mkdocs-offline.yml", "mkdocs.yml") if (docs.parent / n).is_file()), None)
    mlc = shutil.which("markdown-link-check")
    work = Path(tempfile.mkdtemp(prefix="linkfix-mdpeers-"))
    (work / "mlc.json").write_text(json.dumps({"ignorePatterns": [{"pattern": "^https?://"}]}))
    files = sorted(str(p.relative_to(docs.parent)) for p in docs.rglob("*.md"))
    linkfix = [sys.executable, "-m", "linkfix", "check", "--offline", "--no-cache", "-f", "json"]
    commands: dict[str, list[str]] = {"linkfix (markdown)": [*linkfix, "-o", str(work / "md.json"), str(docs)]}
    if config is not None:
        commands["linkfix (mkdocs.yml)"] = [*linkfix, "-o", str(work / "mkdocs.json"), str(config)]
    if mlc:
        # One process per file, as `find docs -name '*.md' -exec markdown-link-check {} \;` does.
        script = 'for f in "$@"; do "$0" -q -c ' + str(work / "mlc.json") + ' "$f"; done'
        commands["markdown-link-check"] = ["bash", "-c", script, mlc, *files]
    walls: dict[str, list[float]] = {name: [] for name in commands}
    rss: dict[str, float] = {}
    outputs: dict[str, str] = {}
    for _ in range(args.runs):
        for name, command in commands.items():  # interleaved: load hits every tool alike
            wall, peak, out = measure(command, docs.parent, work / "out.txt")
            walls[name].append(wall)
            rss[name] = max(rss.get(name, 0.0), peak)
            outputs[name] = out
    print(f"docs: {docs} ({len(files)} markdown files); {args.runs} runs, interleaved; {os.cpu_count()} cores")
    base = statistics.median(walls["linkfix (markdown)"])
    for name in commands:
        median = statistics.median(walls[name])
        runs = " ".join(f"{w:.2f}" for w in walls[name])
        print(f"  {name:22} median {median:7.2f} s (runs {runs})  peak RSS {rss[name]:5.0f} MB  linkfix (markdown)/this {base / median:6.3f}")
    counts = {"linkfix (markdown)": linkfix_broken(work / "md.json")}
    if config is not None:
        counts["linkfix (mkdocs.yml)"] = linkfix_broken(work / "mkdocs.json")
    if mlc:
        text = outputs["markdown-link-check"]
        crashed = len(re.findall(r"^\w*Error", text, flags=re.M))
        counts["markdown-link-check"] = text.count("✖")
        if crashed:
            print(f"  markdown-link-check stopped with an error on {crashed} file(s) (their links unchecked)")
    else:
        print("  markdown-link-check: not on PATH (npm i -g markdown-link-check), skipped")
    print("dead links reported: " + ", ".join(f"{name} {n}" for name, n in counts.items()))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
