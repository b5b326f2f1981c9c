"""Suggestions for many links to few broken targets: the work must grow with the targets.

    python benchmarks/internal_suggest_speed.py                 # 1,000 and 3,000 linking pages
    python benchmarks/internal_suggest_speed.py --pages 3000    # one size

A generated git repository: `docs/` with N pages, each linking to one page that git renamed
(`old-page.md` -> `new-page.md`) and to a missing id of one other page (`target.md#the-ende`,
the heading is "The end"), so the run has 2 N broken links to 2 distinct targets. Printed per
size: the wall time of `linkfix check --offline`, of `check --offline --suggest` and of `fix
--dry-run` (each a fresh process, median of `--runs`), and the suggestion the first link got.
Every process has a time limit; the run stops by itself.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TIMEOUT = 600.0


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=cwd, check=True, capture_output=True)


def make_repo(root: Path, pages: int) -> Path:
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "old-page.md").write_text("# Old page\n\nSome text.\n", encoding="utf-8")
    (docs / "target.md").write_text("# Target\n\n## The end\n\nText.\n", encoding="utf-8")
    for i in range(pages):
        (docs / f"page{i:05d}.md").write_text(f"# Page {i}\n\nSee [the old page](old-page.md) and [the end](target.md#the-ende).\n",
                                              encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "docs")
    git(root, "mv", "docs/old-page.md", "docs/new-page.md")
    git(root, "commit", "-qm", "rename")
    return docs


def timed(command: list[str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    return time.perf_counter() - started, done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, nargs="*", default=[1000, 3000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    linkfix = [sys.executable, "-m", "linkfix"]
    commands = {"check": ["check", "--offline", "docs"], "check --suggest": ["check", "--offline", "--suggest", "docs"],
                "fix --dry-run": ["fix", "--dry-run", "docs"]}
    print(f"{'pages':>6} {'broken links':>13} " + " ".join(f"{name:>16}" for name in commands) + "  first suggestion")
    for pages in args.pages:
        with tempfile.TemporaryDirectory(prefix="linkfix-suggest-speed-") as tmp:
            root = Path(tmp)
            make_repo(root, pages)
            walls, first = [], ""
            for name, command in commands.items():
                runs = [timed([*linkfix, *command], root) for _ in range(args.runs)]
                walls.append(statistics.median(wall for wall, _ in runs))
                if name == "check --suggest":
                    first = next((line.strip() for line in runs[0][1].splitlines() if line.strip().startswith("->")), "none")
            print(f"{pages:>6} {2 * pages:>13} " + " ".join(f"{w:>14.2f} s" for w in walls) + f"  {first}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
