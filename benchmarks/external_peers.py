"""The other link checkers `external.py --peers` times beside linkfix and lychee.

Each peer runs with its own defaults except a 20 s timeout where it has one, on the same docs
tree, and is scored pass/fail like lychee. What each one reads and checks differs:

* linkinator (npm): the markdown and HTML files (`--markdown`), every URL once; no fragment
  checks, no per-host limit (100 requests in flight in all).
* markdown-link-check (npm): the markdown files only (it does not read HTML pages, so the URLs
  only an HTML page links are not checked by it); no fragment checks.
* linkchecker (PyPI): it reads no markdown from a file: path (its MarkdownCheck plugin never
  runs on files Python guesses as application/octet-stream), so it is given the same URLs, one
  a line, on stdin (`--stdin`); robots.txt honoured, 10 threads; no fragment checks.
"""

from __future__ import annotations

import csv
import re
import shutil
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True, kw_only=True)
class PeerRun:
    command: list[str]
    cwd: Path
    stdin: Path | None = None
    stdout: Path | None = None


def available() -> list[str]:
    return [name for name in ("linkinator", "markdown-link-check", "linkchecker") if shutil.which(name)]


def prepare(name: str, docs: Path, truth: dict[str, str], workdir: Path) -> PeerRun:
    out = workdir / f"{name}.out"
    if name == "linkinator":
        # It refuses a glob that matches nothing: pass only the kinds of page the tree has.
        globs = [f"**/*.{ext}" for ext in ("md", "html") if next(docs.rglob(f"*.{ext}"), None)]
        return PeerRun(
            command=["linkinator", *globs, "--markdown", "--format", "json", "--timeout", "20000"],
            cwd=docs, stdout=out,
        )  # fmt: skip
    if name == "markdown-link-check":
        return PeerRun(command=["markdown-link-check", "-q", str(docs)], cwd=workdir, stdout=out)
    if name == "linkchecker":
        # It drops root privileges to nobody: its output directory must be writable by all,
        # and the (mkdtemp, 0700) work directory passable.
        workdir.chmod(0o711)
        results = workdir / "linkchecker-out"
        results.mkdir(exist_ok=True)
        results.chmod(0o777)
        urls = workdir / "linkchecker-urls.txt"
        urls.write_text("\n".join(sorted(truth)) + "\n")
        urls.chmod(0o644)
        return PeerRun(
            command=["linkchecker", "--stdin", "--check-extern", "--no-status", "--timeout", "20", "-o", "none",
                     "-F", f"csv/utf-8/{results / 'out.csv'}"],
            cwd=workdir, stdin=urls,
        )  # fmt: skip
    raise ValueError(f"unknown peer {name!r}")


def failing(name: str, workdir: Path) -> set[str]:
    """The URLs the peer called broken."""
    if name == "linkinator":
        import json

        text = (workdir / "linkinator.out").read_text(errors="replace")
        data = json.loads(text[text.find("{") :] or "{}") if "{" in text else {}
        return {link["url"] for link in data.get("links", []) if link.get("state") == "BROKEN"}
    if name == "markdown-link-check":
        text = (workdir / "markdown-link-check.out").read_text(errors="replace")
        return set(re.findall(r"\[✖\] (\S+)", text))
    if name == "linkchecker":
        path = workdir / "linkchecker-out" / "out.csv"
        if not path.exists():
            return set()
        rows = csv.DictReader((line for line in path.open(encoding="utf-8") if not line.startswith("#")), delimiter=";")
        return {row["urlname"] for row in rows if row.get("valid") == "False"}
    raise ValueError(f"unknown peer {name!r}")
