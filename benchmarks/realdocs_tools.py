"""The checkers under comparison in benchmarks/realdocs.py: linkfix (source and built-site
checks) and lychee, each run as a child process, their reports turned into Findings keyed by
(docs-relative source page, link target as written)."""

from __future__ import annotations

import json
import os
import posixpath
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from realdocs_build import Finding

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    report: dict
    seconds: float
    returncode: int
    stderr: str


def run_linkfix(target: str, cwd: Path, timeout: float, extra: tuple[str, ...] = (), repo: Path = REPO,
                python: tuple[str, ...] = ()) -> Run:
    """`python -m linkfix check --offline --no-cache -f json -o FILE TARGET` with the checkout
    under test; `python` is the command standing for the interpreter (realdocs_envs: alone or
    beside). The report goes to a file: code a page's rendering runs may print on stdout
    (textual's screenshot fences do), which would spoil a report read from there."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(repo / p) for p in ("", "plugins", "fixtures")),
               NO_COLOR="1", CI="1")
    with tempfile.TemporaryDirectory(prefix="realdocs-linkfix-") as scratch:
        out = Path(scratch) / "report.json"
        start = time.perf_counter()
        done = subprocess.run([*(python or (sys.executable,)), "-m", "linkfix", "check", "--offline", "--no-cache", "-f", "json",
                               "-o", str(out), target, *extra], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        seconds = time.perf_counter() - start
        try:
            report = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            report = {}
    return Run(report=report, seconds=seconds, returncode=done.returncode, stderr=done.stderr[-2000:])


def run_lychee(lychee: Path, inputs: list[str], cwd: Path, root_dir: Path, timeout: float,
               extra: tuple[str, ...] = ()) -> Run:
    """lychee offline with fragments over the given inputs (globs), JSON report."""
    out = cwd / ".lychee-report.json"
    out.unlink(missing_ok=True)
    command = [str(lychee), "--offline", "--include-fragments", "--no-progress", "--format", "json",
               "--output", str(out), "--root-dir", str(root_dir), *extra, *inputs]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    report = json.loads(out.read_text()) if out.exists() else {}
    out.unlink(missing_ok=True)
    return Run(report=report, seconds=seconds, returncode=done.returncode, stderr=done.stderr[-2000:])


def tool_version(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return "unavailable"
    return (done.stdout or done.stderr).strip().splitlines()[0] if (done.stdout or done.stderr) else "unknown"


def _relative(path: str, prefix: str) -> str | None:
    path = posixpath.normpath(path.replace(os.sep, "/"))
    prefix = posixpath.normpath(prefix.replace(os.sep, "/"))
    if path == prefix or not path.startswith(prefix + "/"):
        return None
    return path[len(prefix) + 1:]


@dataclass(frozen=True, slots=True, kw_only=True)
class Extracted:
    """Every link a linkfix run extracted, by page (ok or not): what it saw."""

    by_page: dict[str, list[dict]]  # page (relative to the run's root) -> links, in order

    def at(self, page: str, line: int, column: int, fragment: str = "") -> dict | None:
        """The link at this line and column; else the one link on that line with that fragment
        (lychee's column counts differently for some link forms)."""
        on_line = [link for link in self.by_page.get(page, ()) if link["line"] == line]
        for link in on_line:
            if link["column"] == column:
                return link
        same = [link for link in on_line if link.get("scope") != "external"
                and urlsplit(link["url"]).fragment == fragment]
        return same[0] if len(same) == 1 else None


def linkfix_links(report: dict, root: str) -> Extracted:
    """linkfix's extracted links by page, pages relative to `root` (the docs dir or the site dir,
    as the report's `file` paths spell it)."""
    by_page: dict[str, list[dict]] = {}
    for link in report.get("links", []):
        page = _relative(link["file"], root)
        if page is not None:
            by_page.setdefault(page, []).append(link)
    return Extracted(by_page=by_page)


def linkfix_findings(report: dict, root: str, tool: str) -> list[Finding]:
    """Broken internal links and fragments in a linkfix JSON report, pages relative to root."""
    findings = []
    for link in report.get("links", []):
        if link["status"] != "broken" or link.get("scope") == "external":
            continue
        page = "(nav)" if link.get("tag") == "nav" else _relative(link["file"], root)  # realdocs_compare.NAV
        if page is None:
            page = link["file"]
        findings.append(Finding(tool=tool, page=page, target=link["url"], kind=link.get("reason") or "broken",
                                line=link["line"], detail=link.get("detail", "")))
    return findings


def lychee_findings(report: dict, tool: str, extracted: Extracted, root: Path) -> list[Finding]:
    """lychee's failures on local files; the target as written is recovered from linkfix's
    extraction of the same file at the same line and column when it has one (lychee reports
    only the resolved file:// URL), else the resolved path is given relative to the page."""
    findings = []
    for page_path, errors in report.get("error_map", {}).items():
        absolute = page_path if os.path.isabs(page_path) else os.path.join(str(root), page_path)
        page = _relative(absolute, str(root)) or page_path
        for error in errors:
            url = urlsplit(error["url"])
            if url.scheme and url.scheme != "file":
                continue  # offline mode lists excluded web URLs here too
            span = error.get("span") or {}
            line, column = span.get("line", 0), span.get("column", 0)
            seen = extracted.at(page, line, column, url.fragment)
            if seen is not None:
                target = seen["url"]
            else:
                resolved = unquote(url.path)
                relative = os.path.relpath(resolved, os.path.dirname(os.path.join(str(root), page)))
                target = relative.replace(os.sep, "/") + (f"#{url.fragment}" if url.fragment else "")
            status = error.get("status") or {}
            text = status.get("text", "") if isinstance(status, dict) else str(status)
            findings.append(Finding(tool=tool, page=page, target=target, kind="broken", line=line, detail=text))
    return findings
