"""`linkfix fix`: rewrite broken links in the sources with confident replacements.

The plan comes from a saved result (`--from`), a reviewer's decisions (`--apply`), or a fresh
check of INPUTS with suggestions on. `--dry-run` prints the diff and writes nothing.
Only link targets of documentation files inside the working directory are edited: a saved
result or decisions file is input, and what it names that is no link target is refused.
Exit codes: 0 nothing to change, 1 files changed (or would change, with --dry-run),
2 a file or a link was refused (changed since the check, not UTF-8, outside the project, not
documentation, not a link target, read-only).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ...config import Config, parse_duration
from ...errors import EXIT_CHANGED, EXIT_OK, EXIT_REFUSED, ConfigError, InputError
from ..inputs import add_input_arguments, gather_inputs

if TYPE_CHECKING:
    from ...fix.plan import FixPlan
    from ...model import Report
    from ...store.cache import Cache

# The fixer, the cache and the report reader are imported where they are used: `linkfix
# --help` builds this command's parser without paying for them.

NAME = "fix"
HELP = "rewrite broken links in the sources with confident replacements (see --dry-run)"
ORDER = 20
USES_CONFIG = True


def configure(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, required=False, help="what to check first (as for `check`), unless --from or --apply")
    parser.add_argument("--from", dest="from_result", metavar="RESULT.json", help="use a saved `check --format json` result instead of checking")
    parser.add_argument("--apply", dest="decisions", metavar="DECISIONS.json", help="apply exactly the suggestions a reviewer accepted in the HTML report")
    parser.add_argument("--dry-run", action="store_true", help="print a unified diff; change nothing")
    parser.add_argument("--update-redirects", action="store_true", help="also rewrite permanent redirects to their final URL")
    parser.add_argument("--archive-fallback", action="store_true", help="replace broken links without a live replacement by their archived copy")
    parser.add_argument(
        "--rewrite-read-only", action="store_true",
        help="also rewrite files without write permission for their owner (refused by default); they stay read-only",
    )


def run(args: argparse.Namespace, config: Config) -> int:
    from ...fix.changes import prepare_changes, write_changes
    from ...report.common import plural
    from ...report.text import clean

    base = Path.cwd()
    plan, report = _plan(args, config)
    written = _write_report_files(report, config) if report is not None else []
    for note in () if args.quiet else plan.notes:
        span = note.span
        sys.stderr.write(f"{clean(span.path)}:{span.line}:{span.column}  {clean(note.url)}  {clean(note.message)}\n")
    changes, problems = prepare_changes(plan, base=base, root=base, rewrite_read_only=args.rewrite_read_only,
                                        trust_project_code=config.trust_project_code)
    changed: list[str] = []
    if args.dry_run:
        diff = "".join(change.diff for change in changes)
        sys.stdout.write(diff)
        changed = [change.path for change in changes if change.changed]
    else:
        changed, refused = write_changes(changes, base=base, root=base, rewrite_read_only=args.rewrite_read_only)
        problems += refused
    for problem in problems:
        sys.stderr.write(f"linkfix: refused: {clean(problem)}\n")
    if not args.quiet:
        verb = "would change" if args.dry_run else "changed"
        count = sum(len({edit.span.start for edit in change.edits}) for change in changes if change.path in changed)
        sys.stderr.write(f"{plural(count, 'link')} {verb} in {plural(len(changed), 'file')}; {plural(len(plan.notes), 'note')}\n")
        if plan.needs_review:
            sys.stderr.write(_review_hint(plan.needs_review, [path for name, path in written if name == "html"]))
    if problems:
        return EXIT_REFUSED
    return EXIT_CHANGED if changed else EXIT_OK


def _write_report_files(report: Report, config: Config) -> list[tuple[str, str]]:
    """The check's report, to each `-o FILE` (stdout carries the diff: a format without a file
    is not written). (format, file) of what was written."""
    from ...report.files import write_report
    from ..output import STDOUT, report_targets

    written = [(name, target) for name, target in report_targets(config.format, config.output) if target != STDOUT]
    for name, target in written:
        write_report(report, target, name)
    return written


def _review_hint(count: int, html_files: list[str]) -> str:
    from ...report.common import plural

    links = f"{plural(count, 'link')} with a suggestion held for review"
    if html_files:
        return f"{links}: accept or reject them in {html_files[0]}, then `linkfix fix --apply DECISIONS.json`\n"
    return f"{links}: write the HTML report to review them (add -f html -o FILE), then `linkfix fix --apply DECISIONS.json`\n"


def _plan(args: argparse.Namespace, config: Config) -> tuple[FixPlan, Report | None]:
    from ...fix.plan import FixOptions, plan_decisions, plan_fixes
    from .report import read_report_file

    args.inputs = gather_inputs(args, allow_stdin_text=False).paths
    if args.decisions:
        if args.from_result or args.inputs:
            raise ConfigError("--apply takes the decisions file alone (no INPUT, no --from)")
        return plan_decisions(_read_json(args.decisions)), None
    if args.from_result and args.inputs:
        raise ConfigError("give either INPUTs to check or --from RESULT.json, not both")
    if not args.from_result and not args.inputs:
        raise ConfigError("nothing to fix: give INPUTs to check, --from RESULT.json, or --apply DECISIONS.json")
    options = FixOptions(
        min_confidence=config.min_confidence,
        update_redirects=args.update_redirects,
        archive_fallback=args.archive_fallback,
        confirm_runs=config.confirm_runs,
        confirm_days=config.confirm_days,
        remap=tuple(config.remap),
    )
    wants_history = options.confirm_runs > 1 or options.confirm_days > 0
    directory = config.path(config.cache_dir)
    cache = _run_cache(config, checking=bool(args.inputs), history=wants_history)
    try:
        report = read_report_file(args.from_result) if args.from_result else _check(args.inputs, config, cache)
        if args.update_redirects:
            import asyncio

            from ...fix.confirm import confirm_cached_redirects

            report = asyncio.run(confirm_cached_redirects(report, config))
        usable = cache is not None and wants_history and config.cache and directory.is_dir()
        return plan_fixes(report, options, cache.history if usable and cache is not None else None), report
    finally:
        if cache is not None:
            cache.close()


def _run_cache(config: Config, *, checking: bool, history: bool) -> Cache | None:
    """The fix run's one cache: the check's, which also answers the links' broken history; a
    run that checks nothing online opens the cache directory only for that history (when there
    is one: no directory is created just to find it empty)."""
    from ...check.session import open_cache
    from ...store.cache import Cache

    directory = config.path(config.cache_dir)
    if history and config.cache and directory.is_dir():
        return Cache(directory, max_age=parse_duration(config.max_cache_age, "max_cache_age"))
    return open_cache(config) if checking else None


def _check(inputs: list[str], config: Config, cache: Cache | None) -> Report:
    """The inputs checked with suggestions, through the run's cache."""
    import asyncio

    from ...check.session import RunSession
    from ...pipeline import keep_rare_collection, run_check  # the checker and its network stack load only when needed

    keep_rare_collection()
    config = dataclasses.replace(config, suggest=True)

    async def checked() -> Report:
        async with RunSession(config, cache=cache) as session:
            return await run_check(inputs, config, session=session)

    return asyncio.run(checked())


def _read_json(name: str) -> object:
    try:
        return json.loads(Path(name).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{name}: not a JSON decisions file ({exc})") from None
