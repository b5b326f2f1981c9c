"""`check --dump`: list the links a check would check, without checking any (lychee's --dump).

One link per line, `TARGET<TAB>FILE:LINE:COL`, in reading order: the target as it would be
checked (an absolute URL, or a path from the site root, with its #fragment), then where it is
written (`cut -f1 | sort -u` gives lychee's list). Links that would not be checked are left out, as the
run's filter says (check/filter): unsupported schemes, `exclude` matches, ignore comments,
attributes and files, loopback and private addresses, external links with --offline. Nothing is
requested; internal targets are not even looked up.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence

from ..check.filter import NOT_CHECKED, LinkFilter
from ..check.local import LocalChecker
from ..check.targets import Target
from ..config import Config
from ..extract.documents import iter_documents, stdin_document
from ..extract.pages import SitePages
from ..inputs.sources import collect, text_project
from ..model import Document, Link, Scope
from ..pipeline.resolve import resolve_links
from ..report.text import clean


def dump_links(inputs: Sequence[str], config: Config, *, stdin_text: str | None = None) -> int:
    """Write the list to stdout; the number of links listed."""
    listed = 0
    for link, target in links_to_check(inputs, config, stdin_text=stdin_text):
        span = link.span
        sys.stdout.write(f"{clean(target.resolved)}\t{clean(span.path)}:{span.line}:{span.column}\n")
        listed += 1
    sys.stdout.flush()
    return listed


def links_to_check(inputs: Sequence[str], config: Config, *, stdin_text: str | None = None) -> Iterator[tuple[Link, Target]]:
    project = collect(list(inputs), config) if inputs or stdin_text is None else text_project(config)
    documents: Iterable[tuple[str, Document]] = iter_documents(project, want_text=False, cache=None, errors=[])
    if stdin_text is not None:
        documents = [stdin_document(stdin_text, want_text=False), *documents]
    link_filter = LinkFilter.for_run(config)
    local = LocalChecker(project, config, SitePages(project), link_filter)
    for rel, doc in documents:
        links, targets = resolve_links(rel, doc, local)
        for link, target in zip(links, targets, strict=True):
            if target.result is not None:  # resolution or the filter decided it
                if target.result.status in NOT_CHECKED:
                    continue
            elif target.scope is Scope.EXTERNAL and link_filter.request(target.resolved).status in NOT_CHECKED:
                continue
            yield link, target
