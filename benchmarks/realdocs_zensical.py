"""The Zensical oracle of benchmarks/realdocs.py (issue 39): a project that Zensical builds
(zensical.toml, zensical.yml, or a mkdocs.yml whose CI runs `zensical build`) is built by
Zensical in its own venv, and the built site is the truth, as MkDocs' is for the others.

Zensical runs no MkDocs hooks, so realdocs_zensical_record.py wraps Zensical's Python (the
Markdown rendering every page goes through) to make the same record realdocs_hook.py makes
under MkDocs: which source became which page, every link as written and as published. Zensical's
own link warnings (`page does not exist`, `anchor does not exist`, with file:line:column) are
parsed into Findings of the tool `zensical`, beside MkDocs' in the MkDocs section."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from realdocs_build import Build, Finding, Project, build_key, copy_for_build

RECORDER = Path(__file__).resolve().with_name("realdocs_zensical_record.py")
DEFAULT_VERSION = "0.0.73"  # the newest that installs here: later ones need zensical-ui wheels the index lacks

_WARNING = re.compile(r"^Warning:\s+(?P<what>page does not exist|anchor does not exist)\s*$")
_WHERE = re.compile(r"╭─\[\s*(?P<file>.+?):(?P<line>\d+):(?P<column>\d+)\s*\]")
_KIND = {"page does not exist": "missing-page", "anchor does not exist": "missing-anchor"}
_OPEN = "(<\"'= \t"
_CLOSE = ")>\"' \t"


def target_at(text: str, line: int, column: int) -> str:
    """The link target around line:column (1-based characters) of a page's source: Zensical
    points at the target, or at its fragment for a missing anchor."""
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return ""
    row, at = lines[line - 1], column - 1
    start = at
    while start > 0 and row[start - 1] not in _OPEN:
        start -= 1
    end = at
    while end < len(row) and row[end] not in _CLOSE:
        end += 1
    return row[start:end]


def parse_zensical_log(text: str, docs: Path) -> list[Finding]:
    """Zensical's link and anchor warnings, one Finding each, the target read from the source."""
    findings, pending = [], None
    sources: dict[str, str] = {}
    for raw in text.splitlines():
        line = re.sub(r"\x1b\[[0-9;]*m", "", raw).rstrip()
        warning = _WARNING.match(line)
        if warning:
            pending = warning["what"]
            continue
        where = _WHERE.search(line) if pending else None
        if where is None:
            continue
        page = where["file"]
        if page not in sources:
            try:
                sources[page] = (docs / page).read_text(encoding="utf-8", errors="replace")
            except OSError:
                sources[page] = ""
        target = target_at(sources[page], int(where["line"]), int(where["column"]))
        findings.append(Finding(tool="zensical", page=page, target=target, kind=_KIND[pending], line=int(where["line"]),
                                detail=f"Warning: {pending} at {page}:{where['line']}:{where['column']}"))
        pending = None
    return findings


def reused(project: Project, work: Path, venv: Path) -> Build | None:
    key, record_path, log_path = work / "build-key.json", work / "record.json", work / "zensical.log"
    if not (key.exists() and record_path.exists() and log_path.exists()) or key.read_text() != zensical_key(project, venv):
        return None
    record, log = json.loads(record_path.read_text()), log_path.read_text()
    saved = json.loads((work / "build-meta.json").read_text())
    return Build(findings=parse_zensical_log(log, Path(record.get("docs_dir", ""))), record=record, site=work / "site",
                 seconds=saved["seconds"], returncode=saved["returncode"], log_tail="\n".join(log.splitlines()[-15:]))


def zensical_key(project: Project, venv: Path) -> str:
    return build_key(project, venv) + RECORDER.read_text(encoding="utf-8")


def build_zensical(project: Project, source: Path, work: Path, venv: Path, timeout: float, reuse: bool = False) -> Build:
    """Copy the project to work/src, build it there with the venv's Zensical (through the
    recorder), move the site to work/site and parse Zensical's warnings."""
    if reuse and (last := reused(project, work, venv)) is not None:
        return last
    copy = copy_for_build(project, source, work)
    config_path = copy / project.config
    record_path = work / "record.json"
    record_path.unlink(missing_ok=True)
    env = dict(os.environ, REALDOCS_RECORD=str(record_path), REALDOCS_DROP_PLUGINS=",".join(project.drop_plugins),
               REALDOCS_PLUGIN_EDITS=json.dumps({name: list(keys) for name, keys in project.plugin_edits.items()}),
               NO_COLOR="1", PYTHONPATH=os.pathsep.join(str(copy / path) for path in project.source_paths),
               PATH=os.pathsep.join([str(venv / "bin"), os.environ.get("PATH", "")]))
    env.pop("VIRTUAL_ENV", None)
    start = time.perf_counter()
    try:
        done = subprocess.run([str(venv / "bin" / "python"), str(RECORDER), config_path.name], cwd=config_path.parent,
                              env=env, capture_output=True, text=True, timeout=timeout)
        log, code = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr), done.returncode
    except subprocess.TimeoutExpired as expired:
        said = b"".join(part for part in (expired.stdout, expired.stderr) if isinstance(part, bytes)).decode(errors="replace")
        log, code = f"{said}\n(timed out after {timeout:.0f} s)", -1
    seconds = time.perf_counter() - start
    (work / "zensical.log").write_text(log)
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    if code != 0:  # the pages a failed build rendered are no truth for the project: none is compared
        record["pages"] = {}
    site = work / "site"
    if site.exists():
        shutil.rmtree(site)
    built = Path(record.get("site_dir") or config_path.parent / "site")
    if built.is_dir():
        shutil.move(str(built), site)
        record["site_dir"] = str(site)
        record_path.write_text(json.dumps(record))
    (work / "build-meta.json").write_text(json.dumps({"seconds": seconds, "returncode": code}))
    (work / "build-key.json").write_text(zensical_key(project, venv))
    return Build(findings=parse_zensical_log(log, Path(record.get("docs_dir", ""))), record=record, site=site,
                 seconds=seconds, returncode=code, log_tail="\n".join(log.splitlines()[-15:]))
