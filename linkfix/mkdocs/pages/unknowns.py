"""What this rendering of a page cannot know about its ids and links, and why: the `Page`
fields the check turns into `unverified` (never `broken`) findings.

- `build_ids`: something makes ids only when the site is built, any of them: `:::` blocks
  (mkdocstrings, mkdocs-click), markdown-exec output, a hook that may rewrite the page, a
  template that may write headings (`{{ macro() }}` on a line of its own, `{{ }}` in a heading);
- `unsure_ids`: the ids the source spells (a heading's words, an explicit id) that this
  rendering lacks because what makes them is left out here (an extension, a slugify, a custom
  fence's format), and the headings of the files a template includes (`{% include 'x.md' %}` of
  the macros plugin, `{% include-markdown "x.md" %}`), as `id_key`s, with `unsure_why`;
- `build_ids_below`: where what makes them says the prefixes every id it makes starts with
  (markdown-exec's `md` fences, see exec_fences), those prefixes: a missing fragment that
  starts with none of them is broken;
- `rewritten_by`: the hooks that may rewrite the page (its broken links are unverified).
"""

from __future__ import annotations

import os
import re
from html import unescape
from pathlib import Path
from typing import Any

from ...files.read import Unreadable, read_text
from ...model import id_key
from ..building import TRUST_HINT, install_hint, page_facts
from ..extensions.mkautodoc import blocks_make_no_ids
from ..extensions.reach import click_id_prefixes, reaches
from ..extensions.setup import BUILD_TIME_CLASS, MarkdownSetup, is_template_extension
from ..extensions.snippet_reads import read_refusal
from ..plugins.markdown_exec import line_ids
from .render import Renderer

# A `::: identifier` block left as text (also as a heading: `# ::: package`): what it makes
# exists only in the built site.
_DIRECTIVE_HTML = re.compile(r"<(?:p|h[1-6])\b[^>]*>:::[ \t]*[^\s<]")
_BUILD_TIME_HTML = re.compile(rf'class="{BUILD_TIME_CLASS}" data-made-by="([^"]+)"(?: data-ids-below="([^"]*)" data-ids="([^"]*)")?')
_HEADING_LINE = re.compile(r"^[ \t>]*#{1,6}[ \t]+(.+?)[ \t#]*$|^[ \t>]*(\S.*?)[ \t]*\n[ \t>]*(?:=+|-+)[ \t]*$", re.MULTILINE)
_EXPLICIT_ID = re.compile(r"""\{[:\s]*[^}\n]*?#([\w.:-]+)[^}\n]*\}|\b(?:id|name)\s*=\s*["']([^"'\s]+)["']""")
# Template text that may write a heading: in a heading, or a block of its own (`{{ macro() }}`,
# `{% for ... %}`), an include aside (its file is read instead).
_TEMPLATE_HEADING = re.compile(r"^[ \t>]*#{1,6}[ \t]+[^\n]*(?:\{\{|\{%)|^[ \t]*\{\{|^[ \t]*\{%-?[ \t]*(?![ \t]|include\b|include-markdown\b|raw\b|endraw\b)",
                               re.MULTILINE)
_TEMPLATE_INCLUDE = re.compile(r"""\{%-?\s*include(?P<markdown>-markdown)?\s*\(?\s*["'](?P<name>[^"'\n]+)["']""")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_MACROS = ("macros", "mkdocs-macros")
_INCLUDE_MARKDOWN = ("include-markdown", "include_markdown")
MAX_INCLUDED = 20  # files a page's template includes read for their headings


def page_unknowns(setup: MarkdownSetup, renderer: Renderer, path: str, markdown: str, html: str, ids: frozenset[str],
                  body_start: int = 0, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Page fields (`build_ids`, `rewritten_by`, `rewritten_after`, `unsure_ids`, `unsure_why`)
    of a page (`markdown`: its body, which starts at `body_start` of the file)."""
    rewritten_by, after = ("", 0) if renderer.hooks_ran(path) else _rewritten_by(setup, renderer, path, markdown, html, meta)
    templates, included = _templates(setup, path, markdown)
    blocks = bool(_DIRECTIVE_HTML.search(html)) and not blocks_make_no_ids(markdown, setup, _code_ids(setup))
    clauses = [_made_by_blocks(html, blocks), templates,
               rewritten_by and f"{rewritten_by} may rewrite the page when the site is built, and its ids with it; {TRUST_HINT}"]
    fields: dict[str, Any] = {"build_ids": "; ".join(clause for clause in clauses if clause), "rewritten_by": rewritten_by,
                              "rewritten_after": body_start + after if after else 0}
    below = _ids_below(html, blocks, markdown, setup.extensions)
    if below and fields["build_ids"] == clauses[0]:  # nothing else on the page makes ids at build time
        fields["build_ids_below"] = below
    keys, whys = set(), []
    # what was left out here may change only the pages its syntax is on (extensions.reach)
    snippets = setup.configs().get("pymdownx.snippets") if "pymdownx.snippets" in setup.extensions else None
    appends = isinstance(snippets, dict) and bool(snippets.get("auto_append"))
    unsure = tuple(what for what, where in zip(renderer.unsure, renderer.unsure_reach) if reaches(where, markdown, appends=appends))
    if unsure:
        missing = _lost(unsure, markdown, ids)
        if missing:
            keys |= missing
            whys.append(f"{', '.join(unsure)} {'is' if len(unsure) == 1 else 'are'} not available here, and the source spells "
                        f"this id; {install_hint(', '.join(renderer.unsure_packages))}")
    if included:
        keys |= included
        whys.append("a file the page's template includes when the site is built has this heading")
    keys.discard("")
    if keys:
        fields.update(unsure_ids=frozenset(keys), unsure_why="; ".join(whys))
    return fields


def _made_by_blocks(html: str, blocks: bool) -> str:
    """What on the page makes ids at build time (`blocks`: its `:::` blocks may)."""
    makers = []
    if blocks:
        makers.append("`:::` blocks")
    makers += sorted({f"{unescape(match.group(1))} blocks" for match in _BUILD_TIME_HTML.finditer(html)})
    return f"its {', '.join(makers)} make ids only when the site is built" if makers else ""


def _ids_below(html: str, blocks: bool, markdown: str, extensions: tuple[str, ...]) -> frozenset[str]:
    """The prefixes of every id the page's build-time blocks make, when each says its bounds
    (markdown-exec's `md` fences, see exec_fences; the `:::` blocks of the page's own left as
    text only when they are mkdocs-click's with a `:prog_name:`, see reach.click_id_prefixes);
    empty when any may make any id."""
    below: set[str] = set()
    if blocks:
        prefixes = click_id_prefixes(markdown, extensions)
        if prefixes is None:
            return frozenset()
        below |= prefixes
    for match in _BUILD_TIME_HTML.finditer(html):
        if match.group(2) is None:
            return frozenset()
        below.update(unescape(match.group(2)).split())
    return frozenset(below)


def made_ids(html: str) -> frozenset[str]:
    """The ids the page's build-time blocks are sure to make (the `:::` blocks of `md` fences)."""
    return frozenset(name for match in _BUILD_TIME_HTML.finditer(html) if match.group(3)
                     for name in unescape(match.group(3)).split())


def _code_ids(setup: MarkdownSetup) -> bool:
    """Whether code lines get ids on this site (codehilite's or pymdownx.highlight's anchors)."""
    configs = setup.configs()
    codehilite = configs.get("codehilite") if "codehilite" in setup.extensions else None
    anchors = isinstance(codehilite, dict) and any(codehilite.get(key) for key in ("lineanchors", "linespans", "anchorlinenos"))
    return anchors or ("pymdownx.highlight" in setup.extensions and line_ids(configs.get("pymdownx.highlight")))


def _lost(unsure: tuple[str, ...], markdown: str, ids: frozenset[str]) -> set[str]:
    """The keys of the headings and explicit ids the source spells that no rendered id has;
    with a slugify left out, every rendered id's too."""
    rendered = {id_key(value) for value in ids}
    spelled = _spelled(markdown)
    return (spelled - rendered) | (rendered if any("slugify" in what for what in unsure) else set())


def _spelled(markdown: str) -> set[str]:
    keys = {id_key(next(g for g in match.groups() if g)) for match in _HEADING_LINE.finditer(markdown)}
    return keys | {id_key(next(g for g in match.groups() if g)) for match in _EXPLICIT_ID.finditer(markdown)}


def _templates(setup: MarkdownSetup, path: str, markdown: str) -> tuple[str, set[str]]:
    """What templates (the macros plugin or extension, include-markdown) may add to the page
    when the site is built: a clause when they may write any heading, and the heading keys of
    the files they include."""
    if "{%" not in markdown and "{{" not in markdown:
        return "", set()
    macros = setup.has_plugin(*_MACROS) or any(is_template_extension(name) for name in setup.extensions)
    include_markdown = setup.has_plugin(*_INCLUDE_MARKDOWN)
    if not macros and not include_markdown:
        return "", set()
    if macros and _TEMPLATE_HEADING.search(markdown):
        return "the macros plugin's templates may write headings when the site is built", set()
    keys: set[str] = set()
    for match in list(_TEMPLATE_INCLUDE.finditer(markdown))[:MAX_INCLUDED]:
        if not (include_markdown if match.group("markdown") else macros):
            continue
        text = _included(setup, path, match.group("name"))
        if text is None:
            return "a file the page's template includes when the site is built cannot be read here; it may add headings", set()
        keys |= _spelled(text)
    return "", keys


def _included(setup: MarkdownSetup, page: str, name: str) -> str | None:
    """The text of a file a template includes: from the page's directory, the docs, the
    config's directory or the macros plugin's include_dir (where it and include-markdown look), read as an
    include may be (snippet_reads)."""
    for base in (Path(os.path.abspath(page)).parent, Path(setup.docs_dir), Path(setup.config_dir), *map(Path, setup.include_dirs)):
        candidate = base / name
        if read_refusal(candidate, setup.project_dir) is None:  # inside the project, in no VCS directory, a file
            try:
                return read_text(candidate)[0]
            except Unreadable:
                return None
    return None


def _rewritten_by(setup: MarkdownSetup, renderer: Renderer, path: str, markdown: str, html: str,
                  meta: dict[str, Any] | None = None) -> tuple[str, int]:
    """Which project hooks may rewrite this page when the site is built, unseen here ('' if none),
    and the start of the paragraph in `markdown` from which they may (0: anywhere). Text put in
    a paragraph can change how earlier text of it reads (a backtick it adds closes a code span
    opened before a link), never a paragraph before it; what it does after is unknown. What
    the renderer made here of a hook's changes (`Renderer.made_here`) is not unknown."""
    hooks, starts = [], []
    facts = page_facts(path, setup.docs_dir, meta)
    for rewriter in setup.rewriters:
        start = rewriter.changes_from(markdown, html, facts, made_here=rewriter is renderer.made_here)
        if start is not None:
            hooks.append(rewriter.name)
            starts.append(start)
    if not hooks:
        return "", 0
    paragraph = max((blank.end() for blank in _BLANK_LINE.finditer(markdown, 0, min(starts))), default=0)
    return f"the hook{'s' if len(hooks) > 1 else ''} {', '.join(hooks)}", paragraph
