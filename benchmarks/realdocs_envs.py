"""The two environments benchmarks/realdocs.py runs linkfix's source check in (issue 21):

- `alone`: only linkfix and its dependencies, what pre-commit's isolated environment and
  `pipx install linkfix` give: ../shared/tools/alone around the Python running the benchmark
  (or $LINKFIX_REALDOCS_ALONE_PYTHON). That Python's linkfix must be installed from this
  checkout: `alone` lets through what the installed linkfix's metadata declares, so a venv made
  from another checkout hides a dependency this one added (pymdown-extensions);
- `beside`: linkfix in the project's own oracle venv, next to MkDocs and the docs' packages, what
  a user gets who adds them as pre-commit `additional_dependencies`.

Both run this checkout's linkfix (PYTHONPATH, see realdocs_tools.run_linkfix). Also here: what a
report leaves unverified, counted against the internal links it checked."""

from __future__ import annotations

import os
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ENVIRONMENTS = ("alone", "beside")
DEFAULT_ALONE_PYTHON = Path(os.environ.get("LINKFIX_REALDOCS_ALONE_PYTHON", sys.executable))


@dataclass(frozen=True, slots=True, kw_only=True)
class Environment:
    name: str  # alone | beside
    python: tuple[str, ...]  # the command that stands for `python`; empty when not available
    why_not: str = ""  # why it is not available (no venv, no alone tool)


def alone_tool(corpus: Path) -> Path:
    """../shared/tools/alone, beside the shared realdocs corpus."""
    return corpus.parent / "tools" / "alone"


def alone(corpus: Path, python: Path = DEFAULT_ALONE_PYTHON) -> Environment:
    tool = alone_tool(corpus)
    if not tool.exists():
        return Environment(name="alone", python=(), why_not=f"no {tool}")
    chosen = str(python) if python.exists() else sys.executable
    return Environment(name="alone", python=(str(tool), chosen))


def beside(venv: Path) -> Environment:
    python = venv / "bin" / "python"
    if not python.exists():
        return Environment(name="beside", python=(), why_not=f"no oracle venv at {venv} (realdocs_corpus.py venvs)")
    return Environment(name="beside", python=(str(python),))


@dataclass(frozen=True, slots=True, kw_only=True)
class Unverified:
    count: int  # internal links the report leaves unverified
    internal: int  # internal links it checked
    reasons: dict[str, int]  # reason code -> count, most common first
    examples: tuple[tuple[str, str, str], ...] = ()  # (page, target, detail)

    @property
    def share(self) -> float:
        return 100 * self.count / max(self.internal, 1)

    def top(self, n: int = 3) -> str:
        return ", ".join(f"{reason or 'no reason'} {count}" for reason, count in list(self.reasons.items())[:n]) or "-"


def unverified(report: dict, root: str) -> Unverified:
    """Internal links a linkfix JSON report leaves unverified, by reason."""
    internal = [link for link in report.get("links", []) if link.get("scope") == "internal"]
    left = [link for link in internal if link.get("status") == "unverified"]
    reasons = Counter(link.get("reason") or "" for link in left)
    examples = tuple((link["file"].removeprefix(root.rstrip("/") + "/"), link["url"], link.get("detail", "")) for link in left[:50])
    return Unverified(count=len(left), internal=len(internal), reasons=dict(reasons.most_common()), examples=examples)
