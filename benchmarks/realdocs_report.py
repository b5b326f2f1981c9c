"""What benchmarks/realdocs.py prints and writes: a project's comparison (the oracle, each tool's
score, what linkfix leaves unverified or never sees, every disagreement judged), the summary
tables, one section per generator (MkDocs, Zensical), and the JSON of every judged link."""

from __future__ import annotations

from realdocs_build import Project
from realdocs_compare import THEME, TOOLS, describe, disagreements, score
from realdocs_envs import ENVIRONMENTS

GENERATORS = ("mkdocs", "zensical")


def tools_of(project: Project) -> tuple[str, ...]:
    """The columns of a project's table: its generator's own validation first (MkDocs' or Zensical's)."""
    return (project.generator, *TOOLS[1:])


def print_project(result: dict) -> None:
    project, oracle, rows, cover = result["project"], result["oracle"], result["rows"], result["coverage"]
    where = f"{project.repository}@{project.commit[:10]}, " if project.fetched else ""
    print(f"\n== {project.name} ({where}{project.config}) ==")
    if project.exercises:
        print(f"exercises: {'; '.join(project.exercises)}")
    left_out = [f"plugin {k}: {v}" for k, v in project.drop_plugins.items()]
    left_out += [f"hook {k}: {v}" for k, v in project.drop_hooks.items()]
    left_out += [f"{k} of {p}: {v}" for p, edits in project.plugin_edits.items() for k, v in edits.items()]
    left_out += [f"fence {k} as plain code: {v}" for k, v in project.stub_fences.items()]
    left_out += [f"stand-in {k}: {v}" for k, v in project.stub_files.items()]
    left_out += [f"markdown extension {k}: {v}" for k, v in project.drop_extensions.items()]
    left_out += list(project.notes)
    if project.import_packages:
        left_out.append(f"{', '.join(project.import_packages)} from PyPI (a release, not the pinned commit) for "
                        "mkdocstrings/mkautodoc: docstring links may differ from upstream's build")
    pages = sum(1 for f in oracle.record.get("files", {}).values() if f["page"] and not f["excluded"])
    generator = {"mkdocs": "MkDocs", "zensical": "Zensical"}[project.generator]
    print(f"oracle: {generator} build exit {oracle.returncode}, {pages} pages, {oracle.seconds:.1f} s")
    for line in left_out:
        print(f"  left out — {line}")
    if oracle.returncode != 0 or rows is None:
        print("  the build failed; its last lines:\n    " + oracle.log_tail.replace("\n", "\n    "))
    if rows is None:
        print(f"  not compared: without {generator}'s build there is no truth for this project")
        return
    judged = [r for r in rows if r.verdict.broken is not None]
    print(f"links reported broken by any tool: {len(rows)}; truly broken: {sum(bool(r.verdict.broken) for r in judged)}; "
          f"not judgeable here: {len(rows) - len(judged)}")
    print(f"  {'tool':16} {'reported':>8} {'false alarms':>13} {'misses':>7} {'build-only misses':>18} {'seconds':>8}")
    tools = tools_of(project)
    for tool in tools:
        s = score(rows, tool)
        seconds = result["seconds"].get(tool)
        seconds = "-" if seconds is None else f"{seconds:.1f}"
        print(f"  {tool:16} {s.reported:8} {s.false_alarms:13} {s.misses:7} {s.build_only_misses:18} {seconds:>8}")
    for env, why in result["failed"].items():
        print(f"linkfix [{env}] FAILED, {why}")

    for env, left in result["unverified"].items():
        print(f"linkfix [{env}] leaves {left.count} of {left.internal} internal links unverified ({left.share:.1f}%): {left.top(5)}")
        for page, target, detail in left.examples[:5]:
            print(f"    {page} -> {target}: {detail}")
    print(f"links {generator} renders from the pages' own text: {cover.rendered}; linkfix never sees {cover.unseen} "
          f"({100 * cover.unseen / max(cover.rendered, 1):.1f}%): {cover.unseen_by_context}; "
          f"linkfix extracts {cover.extra} that {generator} does not render as links")
    shown = disagreements(rows, tools)
    print(f"disagreements ({len(shown)}):")
    for row in shown:
        print(describe(row, tools))


def print_summary(results: list[dict]) -> None:
    """The realdocs tables, one section per generator (MkDocs, Zensical): per project and
    environment, linkfix's source check against the truth, beside the generator's own validation
    and lychee on the same sources (Markdown, for the report)."""
    for generator in GENERATORS:
        section = [result for result in results if result["project"].generator == generator]
        if section:
            print_section(generator, section)


def print_section(generator: str, results: list[dict]) -> None:
    title = {"mkdocs": "", "zensical": " (Zensical section: built by Zensical, judged on its site)"}[generator]
    print(f"\n## realdocs{title}: linkfix's source check against the judged truth, per environment\n")
    print("| project | env | truth broken | linkfix broken | false alarms | misses | unverified (of internal) | "
          f"top unverified reasons | linkfix s | {generator} FA/miss | lychee FA/miss | {generator} build s |")
    print("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for result in results:
        name = result["project"].name
        rows = result["rows"]
        if rows is None:
            print(f"| {name} | - | build failed | | | | | | | | | {result['seconds'][generator]:.0f} |")
            continue
        truth = sum(1 for r in rows if r.verdict.broken and r.in_source and r.page != THEME and not r.page.startswith("site:"))
        mkdocs, lychee = score(rows, generator), score(rows, "lychee-source")
        for env in ENVIRONMENTS:
            left = result["unverified"].get(env)
            if left is None:
                print(f"| {name} | {env} | {truth} | not run | | | | | | | | |")
                continue
            s = score(rows, f"linkfix-{env}")
            if env in result["failed"]:
                print(f"| {name} | {env} | {truth} | {result['failed'][env]} | | {s.misses} | | | "
                      f"{result['seconds'][f'linkfix-{env}']:.1f} | {mkdocs.false_alarms}/{mkdocs.misses} | "
                      f"{lychee.false_alarms}/{lychee.misses} | {result['seconds'][generator]:.0f} |")
                continue
            print(f"| {name} | {env} | {truth} | {s.reported} | {s.false_alarms} | {s.misses} | {left.count} of {left.internal} "
                  f"({left.share:.1f}%) | {left.top()} | {result['seconds'][f'linkfix-{env}']:.1f} | "
                  f"{mkdocs.false_alarms}/{mkdocs.misses} | {lychee.false_alarms}/{lychee.misses} | {result['seconds'][generator]:.0f} |")


def to_json(result: dict) -> dict:
    rows = [{"page": r.page, "target": r.target, "broken": r.verdict.broken, "reason": r.verdict.reason,
             "judged_by": r.judged_by, "variants": sorted(r.variants), "in_source": r.in_source,
             "said": {t: {"kind": f.kind, "line": f.line, "detail": f.detail, "target": f.target, "page": f.page}
                      for t, f in r.said.items()}} for r in result["rows"]]
    cover = result["coverage"]
    left = {env: {"count": u.count, "internal": u.internal, "reasons": u.reasons, "examples": u.examples}
            for env, u in result["unverified"].items()}
    return {"project": result["project"].name, "seconds": result["seconds"], "rows": rows, "unverified": left,
            "failed": result["failed"],
            "coverage": {"rendered": cover.rendered, "unseen": cover.unseen, "by_context": cover.unseen_by_context,
                         "extra": cover.extra, "examples": cover.examples}}
