"""`linkfix check INPUTS...`: check every link, optionally suggest replacements."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ...config import Config
from ...errors import EXIT_BROKEN, EXIT_OK, EXIT_USAGE, InputError
from ...report import LISTS_EVERY_LINK
from ..inputs import add_input_arguments, gather_inputs
from ..output import write_reports

if TYPE_CHECKING:
    from ...check.crawl import CrawlLimits
    from ...model import Report

NAME = "check"
HELP = "check the links of markdown sources, a built site, a mkdocs.yml project, or files"
ORDER = 10
USES_CONFIG = True


def configure(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, required=True, help="directories, files, or a mkdocs.yml (a URL with --crawl)")
    parser.add_argument("--changed-since", metavar="REF",
                        help="only links in files changed since git REF, on changed lines of modified files, and every link to a file "
                             "deleted or renamed since REF")
    parser.add_argument("--staged", action="store_true",
                        help="the commit being made (the pre-commit hook): the files given, and every link to a file the index "
                             "deletes or renames away")
    parser.add_argument("--dump", action="store_true",
                        help="list the links that would be checked (TARGET<TAB>FILE:LINE:COL), check none (lychee's --dump)")
    crawl = parser.add_argument_group("crawl options")
    crawl.add_argument("--crawl", action="store_true", help="INPUT is a published site's URL: walk its pages (same host, robots.txt obeyed)")
    crawl.add_argument("--crawl-depth", type=int, default=5, metavar="N", help="links followed from a seed page (default 5)")
    crawl.add_argument("--crawl-pages", type=int, default=1000, metavar="N", help="pages fetched at most (default 1000)")
    crawl.add_argument("--crawl-prefix", default="", metavar="PATH", help="path the crawl stays under (default: the start URL's directory)")
    crawl.add_argument("--crawl-links", type=int, default=2000, metavar="N", help="links of one page followed and checked at most (default 2000)")
    crawl.add_argument("--crawl-requests", type=int, default=20_000, metavar="N",
                       help="requests of the whole run at most, crawl and checks together (default 20000)")


def run(args: argparse.Namespace, config: Config) -> int:
    # The checker (markdown-it, the extractors, the cache) loads here, not when `linkfix --help`
    # builds this command's parser; asyncio only for a run that goes online.
    from ...pipeline import keep_rare_collection, run_check

    keep_rare_collection()  # to the process's end: see pipeline.keep_rare_collection

    from ..progress import progress_bar

    inputs = gather_inputs(args)
    changed = None
    if args.staged:
        if args.changed_since is not None or args.crawl:
            raise InputError("--staged is the commit being made: not with --changed-since or --crawl")
        from ...inputs.changed import staged
        from ...inputs.sources import project_inputs

        changed = staged(inputs.paths)
        if changed.deleted:
            # The links to what the commit deletes are in files it does not touch: the project's.
            inputs.paths[:] = project_inputs([*inputs.paths, *changed.deleted])
        elif not inputs.paths:
            if not args.quiet:
                sys.stderr.write("linkfix: nothing staged to check (no documentation file, nothing deleted)\n")
            return EXIT_OK
    if not inputs.paths and inputs.stdin_text is None:
        raise InputError("nothing to check: give a directory, files, a mkdocs.yml, --files-from FILE, or '-' (a document on stdin)")
    args.inputs = inputs.paths
    if args.dump:
        if args.crawl or args.changed_since is not None:
            raise InputError("--dump lists the links of files: not with --crawl or --changed-since")
        from ..dump import dump_links

        dump_links(inputs.paths, config, stdin_text=inputs.stdin_text)
        return EXIT_OK
    progress = progress_bar(quiet=args.quiet)
    try:
        if args.crawl:
            if inputs.stdin_text is not None:
                raise InputError("--crawl reads a site, not a document on stdin")
            import asyncio

            from ...pipeline.crawl import crawl_check

            report = asyncio.run(crawl_check(args.inputs[0], config, _crawl_limits(args), progress=progress))
        else:
            if args.changed_since is not None:
                from ...inputs.changed import changed_since

                first = Path(args.inputs[0])  # the repository holding the inputs, not the cwd's
                changed = changed_since(args.changed_since, cwd=first if first.is_dir() else first.parent)
            checking = run_check(args.inputs, config, progress=progress, changed=changed, stdin_text=inputs.stdin_text,
                                 keep_all=not LISTS_EVERY_LINK.isdisjoint(config.format))
            if config.offline:
                report = run_without_loop(checking)
            else:
                import asyncio

                report = asyncio.run(checking)
    finally:
        if progress is not None:
            progress.finish()  # the line ends before the report or an error is written
    write_reports(report, config, quiet=args.quiet)
    return exit_code(report)


def exit_code(report: Report) -> int:
    """The README's table: an input the run could not read (whole or in part) is an input error,
    2, even beside broken links, whose list is then not the whole story; else 1 for a link that
    fails the run, 0 when clean."""
    if report.errors:
        return EXIT_USAGE
    return EXIT_BROKEN if any(r.failing for r in report.results) else EXIT_OK


T = TypeVar("T")


def run_without_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to its end with no event loop. An offline check waits on no I/O a loop
    serves: no URL is requested (its extraction workers are waited for without one,
    extract.worker.extract_in_workers), and asyncio
    with what it imports (ssl, sockets, subprocesses) was ~60 ms of the CPU of a one-page
    pre-commit run (issue 26). A bare yield (pipeline._pass_turn) only lets other tasks run;
    anything else it yields is a future only a loop can wait on."""
    try:
        while True:
            if coroutine.send(None) is not None:
                raise RuntimeError("an offline check waited on I/O, which needs an event loop")
    except StopIteration as done:
        value: T = done.value
        return value
    finally:
        coroutine.close()


def _crawl_limits(args: argparse.Namespace) -> CrawlLimits:
    from ...check.crawl import CrawlLimits  # the crawler (protego, lxml) loads only for --crawl

    if len(args.inputs) != 1 or args.changed_since is not None:
        raise InputError("--crawl takes exactly one URL and no --changed-since")
    if args.crawl_depth < 0 or min(args.crawl_pages, args.crawl_links, args.crawl_requests) < 1:
        raise InputError("--crawl-depth must be >= 0, and --crawl-pages, --crawl-links and --crawl-requests >= 1")
    return CrawlLimits(max_depth=args.crawl_depth, max_pages=args.crawl_pages, prefix=args.crawl_prefix,
                       max_links=args.crawl_links, max_requests=args.crawl_requests)
