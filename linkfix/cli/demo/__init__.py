"""`linkfix demo`: the whole pipeline on a bundled example docs site, offline, in seconds.

Starts the demo's own small web (`acme.py`: the hosts; `server.py`, `sites.py`, `archive.py`,
`search.py`: how they answer) on loopback in this process, copies the example docs (`docs/`) to
OUT/docs (so the user can try `linkfix fix` on them without touching the package), runs check with
recovery against it, writes OUT/report.html and OUT/result.json, and plans the fixes as
`linkfix fix --dry-run` would. The demo's links name real-looking `https://` hosts; `remap` rules
send requests to the loopback server, and every URL in the report is turned back into its real
form before it is shown, so the report reads as it would on the real web.
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...config import Config, validate
from ...errors import InputError
from ...fix.changes import prepare_changes
from ...fix.plan import FixOptions, plan_fixes
from ...model import Archived, Candidate, CheckResult, LinkResult, Redirect, Report
from ...pipeline import run_check
from ...report.files import write_report

log = logging.getLogger(__name__)

HTML_NAME, JSON_NAME = "report.html", "result.json"


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoResult:
    report: Report
    docs_dir: Path  # the copy that was checked (and that `linkfix fix` may edit)
    html_report: Path
    json_result: Path
    diff: str  # what `linkfix fix --dry-run` would change, as a unified diff


#: Marks a docs copy the demo made, so that only such a copy is ever replaced.
MARKER = ".linkfix-demo-copy"


def copy_docs(source: Path, target: Path) -> None:
    """A fresh copy of the example docs. A previous demo's copy (maybe fixed since) is replaced;
    anything else at that place is left alone, so `--output-dir .` cannot delete a real docs/."""
    if target.is_symlink() or target.is_file() or (target.exists() and not (target / MARKER).is_file()):
        raise InputError(f"{target} exists and is not a copy made by `linkfix demo`: choose another --output-dir")
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target)
    (target / MARKER).write_text("made by `linkfix demo`; replaced by the next demo run\n", encoding="utf-8")


async def run_demo(out_dir: Path) -> DemoResult:
    from .acme import DOCS_DIR, acme_web, demo_config  # aiohttp: only when the demo runs

    docs = out_dir / "docs"
    copy_docs(DOCS_DIR, docs)
    async with acme_web() as web:
        # The copy is the demo's own: a .gitignore above it (a checkout ignoring linkfix-demo/)
        # must not hide it from the check.
        config = Config(**demo_config(web), gitignore=False, config_dir=str(out_dir))
        validate(config)
        report = await run_check([str(docs)], config, resolver=web.resolver)
        report = canonical_report(report, web.canonical)
    html_report, json_result = out_dir / HTML_NAME, out_dir / JSON_NAME
    write_report(report, html_report, "html")
    write_report(report, json_result, "json")
    plan = plan_fixes(report, FixOptions(update_redirects=True))
    changes, problems = prepare_changes(plan, base=Path.cwd(), root=docs)
    for problem in problems:
        log.warning("fix plan: %s", problem)
    return DemoResult(report=report, docs_dir=docs, html_report=html_report, json_result=json_result,
                      diff="".join(change.diff for change in changes))


def canonical_report(report: Report, canonical: Callable[[str], str]) -> Report:
    """The report with every URL the simulated web produced in its real form (`canonical` maps
    URLs, and URLs inside sentences such as `detail`)."""

    def result(r: CheckResult) -> CheckResult:
        return dataclasses.replace(
            r, url=canonical(r.url), final_url=canonical(r.final_url), detail=canonical(r.detail),
            redirects=tuple(Redirect(url=canonical(h.url), status=h.status, location=canonical(h.location)) for h in r.redirects),
        )

    def candidate(c: Candidate) -> Candidate:
        evidence = {k: canonical(v) if isinstance(v, str) else v for k, v in c.evidence.items()}
        return dataclasses.replace(c, url=canonical(c.url), evidence=evidence)

    def archived(a: Archived | None) -> Archived | None:
        return None if a is None else dataclasses.replace(a, url=canonical(a.url))

    def item(r: LinkResult) -> LinkResult:
        return dataclasses.replace(r, resolved=canonical(r.resolved), result=result(r.result),
                                   suggestions=tuple(candidate(c) for c in r.suggestions), archived=archived(r.archived))

    return dataclasses.replace(report, results=tuple(item(r) for r in report.results))
