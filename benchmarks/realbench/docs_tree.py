"""The linking pages of the real moves as a Markdown docs tree linkfix can check.

One file per case, from the case's FIRST parent (linkfix recovers each dead URL once, with one
linking page's context, whatever the number of pages linking to it): `<site-slug>/<case id>.md`.
The file is the parent's source with

- the link to the old page, as its author wrote it, pointed at the absolute old URL (Markdown
  inline/reference/HTML links keep their text and any #fragment; a Sphinx role, rST hyperlink
  or toctree entry becomes a Markdown link with the anchor text Sphinx renders);
- every other link reduced to its text and bare URLs removed, so that the run checks and
  recovers this one link and never touches a host outside the simulated web;
- rST/MyST markup that Markdown would misread as code (indentation, directive fences)
  flattened, and the parent's title as the first heading.

`write_tree` checks each file with linkfix's own extractor and, when the rewritten link is not
found there (markup the rewrite could not place), appends it as a last line instead; the count
of such fallbacks is returned.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from linkfix.formats.markdown import extract_markdown
from linkfix_simweb.realmoves.dataset import MoveCase, Parent

_MD_LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+[\"'(][^)]*[\"')])?\s*\)")
_REF_DEF = re.compile(r"^\s{0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)
_REF_USE = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\[([^\]]*)\]")
_HTML_A = re.compile(r"<a\s[^>]*href=[\"']([^\"']*)[\"'][^>]*>(.*?)</a>", re.S | re.I)
_RST_LINK = re.compile(r"`([^`<]*?)\s*<([^>`]+)>`__?")
_ROLE = re.compile(r"\{?:?[\w:.+-]*:?\}?`([^`]*)`")
_BARE_URL = re.compile(r"<?https?://[^\s)>\]]+>?")
_FRONT_MATTER = re.compile(r"\A---\s*\n.*?\n---\s*\n", re.S)
_FENCE = re.compile(r"^(`{3,}|~{3,}|:{3,})")
_ADORNMENT = re.compile(r"([=\-~^\"'`#*+.:_])\1{2,}")
_TEXT_ROLE = re.compile(r"\{[\w:.+-]+\}`([^`]*)`|:[\w:.+-]+:`([^`]*)`")
PLACEHOLDER = "\x00LINK\x00"


@dataclass(frozen=True, slots=True, kw_only=True)
class Written:
    case: MoveCase
    parent: Parent
    path: Path
    fell_back: bool  # the link was appended, not put where the author wrote it


def dead_url(case: MoveCase, parent: Parent) -> str:
    """The old URL, with the #fragment the author's Markdown link carried."""
    fragment = parent.link_target.split("#", 1)[1] if parent.link_kind in ("inline", "reference", "html") and "#" in parent.link_target else ""
    return case.old_url + ("#" + fragment if fragment else "")


def _role_text(match: re.Match) -> str:
    content = match.group(1) if match.group(1) is not None else match.group(2)
    explicit = re.match(r"^(.*?)\s*<[^>]+>\s*$", content or "", re.S)
    return (explicit.group(1) if explicit else content or "").strip("~!")


def _place_link(source: str, parent: Parent) -> str:
    """The source with the author's link replaced by PLACEHOLDER (unchanged when not found)."""
    target, kind = parent.link_target, parent.link_kind
    if kind in ("inline", "html"):
        for pattern in (_MD_LINK, _HTML_A):
            for match in pattern.finditer(source):
                href = match.group(3) if pattern is _MD_LINK else match.group(1)
                if href == target:
                    return source[: match.start()] + PLACEHOLDER + source[match.end():]
    if kind == "reference":
        labels = {m.group(1).lower() for m in _REF_DEF.finditer(source) if m.group(2) == target}
        for match in _REF_USE.finditer(source):
            if (match.group(2) or match.group(1)).lower() in labels:
                return source[: match.start()] + PLACEHOLDER + source[match.end():]
    if kind.startswith("toctree"):
        lines = source.splitlines()
        for n, line in enumerate(lines):
            entry = line.strip()
            if entry == target or entry.endswith(f"<{target}>"):
                lines[n] = "- " + PLACEHOLDER
                return "\n".join(lines)
    if target and target in source:
        return source.replace(target, PLACEHOLDER, 1)
    return source


def _flatten(text: str, syntax_md: bool) -> str:
    """Markdown that keeps the words but no other link, no code-by-indentation, no directive fence."""
    text = _FRONT_MATTER.sub("", text, count=1)
    text = _MD_LINK.sub(lambda m: m.group(2), text)
    text = _REF_USE.sub(lambda m: m.group(1), text)
    text = _REF_DEF.sub("", text)
    text = _HTML_A.sub(lambda m: m.group(2), text)
    text = _RST_LINK.sub(lambda m: m.group(1), text)
    text = _TEXT_ROLE.sub(_role_text, text)
    text = _BARE_URL.sub("", text)
    lines = []
    fences: list[tuple[str, bool]] = []  # open fences: (marker, is a MyST directive)
    for line in text.splitlines():
        stripped = line.strip()
        if not syntax_md:  # reStructuredText: no fences; titles' adornment lines would read as ~~~ fences
            if not _ADORNMENT.fullmatch(stripped):
                lines.append(stripped)
            continue
        opening = _FENCE.match(stripped)
        if fences and not fences[-1][1]:  # inside code: only its closing fence matters
            if opening and stripped == opening.group(1) and stripped.startswith(fences[-1][0]):
                fences.pop()
                line = stripped  # an indented closing fence (in a tab) would not close it in Markdown
            lines.append(line)
            continue
        if opening and fences and stripped == opening.group(1) and stripped.startswith(fences[-1][0]):
            fences.pop()  # a directive's closing fence: dropped
            continue
        if opening:
            directive = stripped[len(opening.group(1)):].startswith("{")
            fences.append((opening.group(1), directive))
            if not directive:
                lines.append(stripped)
            continue  # directives lose their fences, their content stays as text
        lines.append(stripped if line.startswith(("    ", "\t")) else line.rstrip())
    return "\n".join(lines)


def parent_markdown(case: MoveCase, parent: Parent) -> tuple[str, str]:
    """(Markdown of the parent page with the one live link, the link as written there)."""
    anchor = " ".join(parent.anchor_text.split()) or case.old_title or case.old_url
    link = f"[{anchor.replace('[', '(').replace(']', ')')}]({dead_url(case, parent)})"
    placed = _place_link(parent.source, parent)
    body = _flatten(placed, parent.path.endswith(".md"))
    body = body.replace(PLACEHOLDER, link)
    title = " ".join(parent.title.split()) or "Linking page"
    return f"# {title}\n\n{body}\n", link


def write_tree(cases: Iterable[MoveCase], docs_dir: Path) -> list[Written]:
    """Write one file per case that has a parent; cases without parents are skipped."""
    written = []
    for case in cases:
        if not case.parents:
            continue
        parent = case.parents[0]
        text, link = parent_markdown(case, parent)
        slug = case.site.replace("/", "_")
        path = docs_dir / slug / f"{case.id}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        urls = {lk.url for lk in extract_markdown(text, str(path)).links}
        fell_back = dead_url(case, parent) not in urls
        if fell_back:
            text += f"\n{link}\n"
        path.write_text(text, encoding="utf-8")
        written.append(Written(case=case, parent=parent, path=path, fell_back=fell_back))
    return written
