"""`{!file!}` includes (mdx_include, markdown-include) as a source check reads them: a
Python-Markdown extension that puts the file's text in place of the directive before anything
else reads the page, as those extensions do.

It stands in for both in every environment, so that the answer does not depend on which is
installed, and so that an include never reaches outside the project: a file is read only as
pymdownx.snippets' are (snippet_reads: inside the project, never in a VCS directory); a URL
(mdx_include downloads them) is not fetched, the directive is left out.

The syntax is mdx_include's, which markdown-include's is a part of: `{!path!}`, `{!+path!}` /
`{!-path!}` (recursion on or off), `{!>path!}` (each included line indented like the
directive), `{!path [ln:1-3,5]!}` (those lines), `{!path | encoding!}`, `\\{!path!}` escaped.
Relative paths are taken from `base_path` (the config's directory, where `mkdocs build` runs,
unless the config says otherwise); files included by an included file likewise, unless
`recursive_relative_path`.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

from ...files.read import Unreadable, read_text
from .snippet_reads import read_refusal

log = logging.getLogger(__name__)

NAMES = ("mdx_include", "markdown_include.include", "markdown_include")
MAX_DEPTH = 8  # includes within includes followed
DIRECTIVE = re.compile(r"(?P<escape>\\)?\{!(?P<recursive>[+-])?(?P<indent>>)?\s*(?P<path>[^]|[]+?)"
                       r"(?:\s*\[ln:(?P<lines>[\d.,-]+)\])?\s*(?:\|\s*(?P<encoding>.+?)\s*)?!\}")


class _IncludeExtension(Extension):
    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "base_path": [".", "where relative paths start"],
            "project": [".", "nothing outside this directory is read"],
            "recursive": [True, "whether included files' own includes are followed"],
            "recursive_relative_path": [False, "whether an included file's includes start from its directory"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(_IncludePreprocessor(md, self.getConfigs()), "linkfix_include", 110)


class _IncludePreprocessor(Preprocessor):
    def __init__(self, md: Markdown, config: dict[str, Any]) -> None:
        super().__init__(md)
        self.base = Path(str(config["base_path"]))
        self.project = Path(os.path.realpath(str(config["project"])))
        self.recursive = bool(config["recursive"])
        self.relative_to_parent = bool(config["recursive_relative_path"])

    def run(self, lines: list[str]) -> list[str]:
        return self._expand(lines, None, 0)

    def _expand(self, lines: list[str], parent: Path | None, depth: int) -> list[str]:
        """`lines` with each directive replaced, line by line as mdx_include replaces them."""
        out: list[str] = []
        for line in lines:
            rebuilt: list[str] = []
            offset = 0
            for match in DIRECTIVE.finditer(line) if "{!" in line else ():
                included = [match.group()[1:]] if match.group("escape") else self._included(match, parent, depth)
                before = line[offset : match.start()]
                if not included:
                    rebuilt.append(before)
                elif rebuilt:
                    rebuilt[-1] += before + included[0]
                    rebuilt.extend(included[1:])
                elif match.group("indent"):
                    rebuilt = [before + text for text in included]
                else:
                    rebuilt = [before + included[0], *included[1:]]
                offset = match.end()
            if rebuilt:
                rebuilt[-1] += line[offset:]
            else:
                rebuilt.append(line[offset:])
            out.extend(rebuilt)
        return out

    def _included(self, match: re.Match[str], parent: Path | None, depth: int) -> list[str]:
        name = os.path.expanduser(match.group("path"))
        if "://" in name:
            log.debug("{!%s!}: a URL is not fetched by a source check", name)
            return []
        start = parent.parent if parent is not None and self.relative_to_parent else self.base
        path = Path(os.path.normpath(start / name))
        if read_refusal(path, self.project) is not None:  # outside the project, in .git, not a file
            return []
        try:
            text = read_text(path)[0]
        except Unreadable:
            return []
        lines = text.splitlines()
        if match.group("lines"):
            lines = _slice(lines, match.group("lines"))
        recursive = {"+": True, "-": False}.get(match.group("recursive") or "", self.recursive)
        if recursive and depth < MAX_DEPTH:
            lines = self._expand(lines, path, depth + 1)
        return lines


def _slice(lines: list[str], spec: str) -> list[str]:
    """mdx_include's `[ln:1-3,5,7-]` (1-based, inclusive; an open end runs to the last line)."""
    out: list[str] = []
    for part in spec.split(","):
        first, dash, last = part.partition("-")
        try:
            start = int(first) if first else 1
            end = (int(last) if last else len(lines)) if dash else start
        except ValueError:
            continue
        out.extend(lines[max(start, 1) - 1 : end])
    return out


def makeExtension(**kwargs: Any) -> Extension:
    return _IncludeExtension(**kwargs)
