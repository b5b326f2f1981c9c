"""Suggestions for one broken (or mkdocs-redirected) internal link.

Sources (`Candidate.method`), each giving target files or ids with a class (`evidence["class"]`)
that `confidence.py` prices:
- "redirect-map": the page is a key of mkdocs-redirects' `redirect_maps`;
- "git-rename": git renamed the missing file (perhaps several times) to a file that exists;
- "near-name": an existing file whose name is close (`names.near_files`), or, for a missing
  page with a #fragment, the one page that has that id ("near-name/fragment");
- "near-fragment": for a missing id, the heading's new id from the page's git history
  ("renamed"), the heading whose text makes that id but which has an id of its own
  ("custom-id": `## Environment variables { #env-vars }`), an id of the page close to it
  (`names.near_ids`), or the one other page that has it ("elsewhere").

A target keeps the link's #fragment when the new page has that id, else the id it was renamed
to, else the custom id of the heading it named, else the nearest id it has, else the one other
page with the id, else none; a link without one to a page merged into another as a section gets
that section ("#section"; not when the section is the page's own title: a page renamed with its
heading kept is the same page). Each is a class
of its own ("git-rename#renamed"), and so are rivals ("+rivals": as close as another name) and
contradictions ("+disputed": another kind of evidence points elsewhere). Every candidate is
written in the link's own style (`spelling.spellings`) and offered only once the LocalChecker
resolves it as written. The evidence names files as the report does (`docs/faq/setup.md`: the
project's root as shown, then the file), never as the built site would.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote

from ...check.local import LocalChecker
from ...files.read import Unreadable, display_path, read_text
from ...formats.markdown.targets import markdown_target
from ...inputs.walk import MARKDOWN_SUFFIXES
from ...model import Candidate, Evidence, LinkResult, Method, Reason, Scope, Status
from .confidence import confidence_of
from .headings import GitPages, RenamedId, renamed_id
from .history import Renames, Trail, read_renames
from .names import FileIndex, Match, id_key, near_files, near_ids, page_key
from .source_headings import CustomId, custom_heading, title
from .spelling import spellings

#: Candidates kept per link (best first).
MAX_SUGGESTIONS = 5
#: How many redirect_maps entries (or renames) a page may be sent through.
MAX_HOPS = 10

GIT_RENAME, REDIRECT_MAP, NEAR_NAME, NEAR_FRAGMENT = Method.GIT_RENAME, Method.REDIRECT_MAP, Method.NEAR_NAME, Method.NEAR_FRAGMENT


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """A file (and id) a broken link may have meant, before it is written as a link."""

    file: str
    fragment: str
    method: Method
    label: str  # the class that prices it (see confidence.py)
    why: str  # the evidence, in words
    external: str = ""  # a redirect_maps target off the site: written as it is
    same_destination: bool = False  # leads where the link leads today (through a redirect)


@dataclass(slots=True)
class InternalSuggester:
    """Suggestions for the internal links of one project (`local` resolves and checks)."""

    local: LocalChecker
    renames: Renames = field(default_factory=Renames)
    headings: GitPages | None = None  # the pages' git history, for renamed headings
    table: dict[str, float] | None = None  # confidences; None: the measured table
    root_shown: str = ""  # the project's root as reports name it ('docs'): the evidence names files under it
    read_source: Callable[[str], str | None] | None = None  # a page's text by root-relative path; None: from the root
    _ids: dict[str, set[str]] | None = None  # id -> pages that have it, once asked
    _files: FileIndex | None = None  # the site's files by name, once asked
    _sources: dict[str, str | None] = field(default_factory=dict)  # page sources read for custom ids
    _fragments: dict[tuple[str, str], list[Target]] = field(default_factory=dict)  # (page, missing id) -> targets, once asked

    def suggest(self, item: LinkResult, page_rel: str) -> tuple[Candidate, ...]:
        result = item.result
        path = item.resolved.partition("#")[0]
        fragment = unquote(self._written(item, page_rel).partition("#")[2])
        if result.status is Status.REDIRECTED and result.reason == Reason.MKDOCS_REDIRECT:
            targets = self._redirected(path, fragment)
        elif result.status is not Status.BROKEN:
            return ()
        elif result.reason in ("missing-file", "outside-root"):
            targets = self._moved(path, fragment, written=self._written(item, page_rel), page_rel=page_rel)
        elif result.reason == "missing-fragment":
            # the same missing id, linked from many pages, is looked for once
            if (path, fragment) not in self._fragments:
                self._fragments[path, fragment] = self._near_fragment(path, fragment)
            targets = self._fragments[path, fragment]
        else:
            return ()
        return self._candidates(item, page_rel, _disputed(targets))

    # -- sources ----------------------------------------------------------------------------

    def _redirected(self, path: str, fragment: str) -> list[Target]:
        """The page redirect_maps sends the link to. The redirect page mkdocs-redirects writes
        carries the link's #fragment over: the same target with the same fragment (or none,
        where the page lacks the id) is where readers land today (`same_destination`)."""
        targets = self._mapped(path, fragment)
        exact = (REDIRECT_MAP, REDIRECT_MAP + "/external", REDIRECT_MAP + "#dropped")
        return [replace(t, same_destination=True) if t.label in exact and (not fragment or t.fragment in (fragment, "")) else t
                for t in targets]

    def _mapped(self, path: str, fragment: str) -> list[Target]:
        redirects = self.local.project.mkdocs.redirects if self.local.project.mkdocs else {}
        key = next((k for k in _redirect_keys(path) if k in redirects), None)
        hops: list[str] = []
        while key is not None and len(hops) < MAX_HOPS:
            hops.append(f"{key} → {redirects[key]}")
            goal = redirects[key]
            if "://" in goal.partition("#")[0]:
                why = f"mkdocs-redirects redirect_maps: {'; '.join(hops)}"
                url = goal if "#" in goal or not fragment else f"{goal}#{fragment}"
                return [Target(file="", fragment=fragment if url != goal else "", method=REDIRECT_MAP,
                               label=REDIRECT_MAP + "/external", why=why, external=url)]
            goal_path, _, goal_fragment = goal.partition("#")
            file = self.local.find_file(goal_path.lstrip("/"))
            if file is not None:
                why = f"mkdocs-redirects redirect_maps: {'; '.join(hops)}"
                if goal_fragment and not (fragment and fragment in (self.local.page_ids(file) or ())):
                    # the map's own #id, unless the page also has the one the link asked for
                    return [Target(file=file, fragment=goal_fragment, method=REDIRECT_MAP, label=REDIRECT_MAP, why=why)]
                return self._with_fragment(file, fragment, REDIRECT_MAP, REDIRECT_MAP, why, old=path)
            key = next((k for k in _redirect_keys(goal_path.lstrip("/")) if k in redirects and k not in hops), None)
        return []

    def _moved(self, path: str, fragment: str, *, written: str, page_rel: str) -> list[Target]:
        targets: list[Target] = []
        files = self.local.project.site_files
        for name in self.local.file_names(path) if not path.startswith("../") else ():
            trail = self.renames.follow(name, files.__contains__)
            if trail is not None:
                targets += self._renamed(trail, fragment)
                break
        if self._files is None:
            self._files = FileIndex(files)
        for match in near_files(path, written, page_rel, self._files):
            label = f"{NEAR_NAME}/{match.kind}" + ("+rivals" if match.rivals else "")
            why = _name_evidence(match, self._shown(path), self._shown(match.name))
            targets += self._with_fragment(match.name, fragment, NEAR_NAME, label, why, old=path)
        if not targets and fragment:
            # No page of that name; the page that has the id (a page split in several).
            homes = self._pages_with(fragment)
            for home in sorted(homes):
                label = f"{NEAR_NAME}/fragment" + ("+rivals" if len(homes) > 1 else "")
                why = f"no file {self._shown(path)}; {self._shown(home)} has the id #{fragment}" + (f" ({len(homes) - 1} other page(s) too)" if len(homes) > 1 else "")
                targets.append(Target(file=home, fragment=fragment, method=NEAR_NAME, label=label, why=why))
        return targets

    def _renamed(self, trail: Trail, fragment: str) -> list[Target]:
        label = GIT_RENAME + ("/chain" if len(trail.renames) > 1 else "") + ("+rivals" if trail.rivals else "")
        why = "; ".join(r.describe(self.renames.prefix) for r in trail.renames)
        return self._with_fragment(trail.end, fragment, GIT_RENAME, label, why, old=trail.renames[0].old)

    def _near_fragment(self, path: str, fragment: str) -> list[Target]:
        file = self.local.find_file(path)
        ids = self.local.page_ids(file) if file is not None else None
        if file is None or not ids:
            return []
        targets = []
        renamed = self._renamed_heading(file, fragment, ids)
        if renamed is not None:
            label = f"{NEAR_FRAGMENT}/renamed" + ("+rivals" if renamed.rivals else "")
            targets.append(Target(file=file, fragment=renamed.new, method=NEAR_FRAGMENT, label=label,
                                  why=renamed.describe(fragment, self._shown(file))))
        custom = self._custom_heading(file, fragment)
        if custom is not None:
            label = f"{NEAR_FRAGMENT}/custom-id" + ("+rivals" if custom.rivals else "")
            why = f"no id '{fragment}' on {self._shown(file)}; {_custom_evidence(custom)}"
            targets.append(Target(file=file, fragment=custom.id, method=NEAR_FRAGMENT, label=label, why=why))
        for match in near_ids(fragment, ids):
            label = f"{NEAR_FRAGMENT}/{match.kind}" + ("+rivals" if match.rivals else "")
            why = f"no id '{fragment}' on {self._shown(file)}; {_id_evidence(match)}"
            targets.append(Target(file=file, fragment=match.name, method=NEAR_FRAGMENT, label=label, why=why))
        homes = self._pages_with(fragment) - {file}
        for home in sorted(homes):
            label = f"{NEAR_FRAGMENT}/elsewhere" + ("+rivals" if len(homes) > 1 else "")
            why = f"no id '{fragment}' on {self._shown(file)}; {self._shown(home)} has it"
            targets.append(Target(file=home, fragment=fragment, method=NEAR_FRAGMENT, label=label, why=why))
        return targets

    def _section_named(self, file: str, old: str) -> str:
        """The one id of `file` spelled like the name of the page `old` ('' if none or several),
        unless `file` is titled like `old`: then that id is the page's own title, and `old` is
        `file` renamed with its heading kept (configuration.md, `# Configuration`, became
        settings.md), not a page that became a section of it."""
        name = page_key(old).rpartition("/")[2]
        if not old or not name or name == page_key(file).rpartition("/")[2] or not _is_page(file):
            return ""
        same = [i for i in self.local.page_ids(file) or () if id_key(i) == name]
        if len(same) != 1 or id_key(self._title(file)) == name:
            return ""
        return same[0]

    def _title(self, file: str) -> str:
        """The page's title as extracted, else (pages read for their ids only) its first h1."""
        page = self.local.pages.get(file)
        if page is not None and page.title:
            return page.title
        source = self._source(file)
        return title(source) if source and file.lower().endswith(tuple(MARKDOWN_SUFFIXES)) else ""

    def _custom_heading(self, file: str, fragment: str) -> CustomId | None:
        """The heading of `file` whose text makes the id `fragment` but has an id of its own."""
        source = self._source(file)
        return custom_heading(fragment, source) if source else None

    def _source(self, file: str) -> str | None:
        """The text of a page of the project (read once), None when it cannot be read."""
        if file not in self._sources:
            self._sources[file] = (self.read_source or self._read)(file) if _is_page(file) else None
        return self._sources[file]

    def _read(self, file: str) -> str | None:
        path = self.local.project.root / file
        if self.local.project.refusal(path) is not None:  # a symlink out of the project
            return None
        try:
            return read_text(path)[0]
        except Unreadable:
            return None

    def _shown(self, file: str) -> str:
        """A file (root-relative) as the report names it: 'docs/faq/setup.md'."""
        if not file:
            return f"{self.root_shown}/" if self.root_shown not in ("", ".") else "/"
        return posixpath.join(self.root_shown, file) if self.root_shown not in ("", ".") else file

    def _renamed_heading(self, file: str, fragment: str, ids: frozenset[str]) -> RenamedId | None:
        if self.headings is None or not _is_page(file):
            return None
        return renamed_id(fragment, self.headings.versions(file, ids), ids)

    def _pages_with(self, fragment: str) -> set[str]:
        """The pages of the site that have the id `fragment` (the site's ids, read once)."""
        if self._ids is None:
            self._ids = {}
            for file in sorted(self.local.project.site_files):
                if _is_page(file):
                    for id_ in self.local.page_ids(file) or ():
                        self._ids.setdefault(id_, set()).add(file)
        return set(self._ids.get(fragment, ()))

    def _with_fragment(self, file: str, fragment: str, method: Method, label: str, why: str, *, old: str = "") -> list[Target]:
        """The target with the link's fragment: kept if the page has it, else its nearest id,
        else dropped (each priced as a class of its own). A link without one to a page `old`
        that became a section of `file` (an id of the old page's name) gets that section."""
        if not fragment:
            section = self._section_named(file, old)
            if section:
                return [Target(file=file, fragment=section, method=method, label=f"{label}#section",
                               why=f"{why}; #{section} of {self._shown(file)} is named like {self._shown(old)}")]
            return [Target(file=file, fragment="", method=method, label=label, why=why)]
        ids = self.local.page_ids(file) if _is_page(file) else None
        if ids is None or fragment in ids or fragment.lower() == "top":
            return [Target(file=file, fragment=fragment, method=method, label=label, why=why)]
        renamed = self._renamed_heading(file, fragment, ids)
        if renamed is not None:
            kind = "renamed" + ("+rivals" if renamed.rivals else "")
            return [Target(file=file, fragment=renamed.new, method=method, label=f"{label}#{kind}",
                           why=f"{why}; {renamed.describe(fragment, self._shown(file))}")]
        custom = self._custom_heading(file, fragment)
        if custom is not None:
            kind = "custom-id" + ("+rivals" if custom.rivals else "")
            return [Target(file=file, fragment=custom.id, method=method, label=f"{label}#{kind}",
                           why=f"{why}; on {self._shown(file)}, {_custom_evidence(custom)}")]
        near = near_ids(fragment, ids)
        if near:
            best = near[0]
            kind = best.kind + ("+rivals" if best.rivals else "")
            return [Target(file=file, fragment=best.name, method=method, label=f"{label}#{kind}",
                           why=f"{why}; {_id_evidence(best)} on {self._shown(file)}")]
        homes = self._pages_with(fragment)
        if len(homes) == 1:
            home = homes.pop()
            return [Target(file=home, fragment=fragment, method=method, label=f"{label}#elsewhere",
                           why=f"{why}; #{fragment} is not on {self._shown(file)}, but on {self._shown(home)}")]
        return [Target(file=file, fragment="", method=method, label=f"{label}#dropped",
                       why=f"{why}; #{fragment} is not on {self._shown(file)}: dropped")]

    # -- writing -----------------------------------------------------------------------------

    def _candidates(self, item: LinkResult, page_rel: str, targets: Iterable[Target]) -> tuple[Candidate, ...]:
        found: dict[str, Candidate] = {}
        written = self._written(item, page_rel)
        for target in targets:
            url = target.external or self._spelled(target, written, page_rel, item)
            if not url or url == item.link.url or url in found:
                continue
            evidence: dict[str, object] = {Evidence.WHY: target.why, Evidence.CLASS: target.label}
            if target.file:
                evidence[Evidence.TARGET] = target.file
            if target.same_destination:
                evidence[Evidence.SAME_DESTINATION] = True
            if "#" not in url and "#" in written:
                evidence[Evidence.IDS] = []  # the link's fragment is not on the new page (see report.common.replacement_url)
            found[url] = Candidate(url=url, confidence=confidence_of(target.label, self.table), method=target.method,
                                   score=0.0, evidence=evidence)
        ranked = sorted(found.values(), key=lambda c: -c.confidence)
        return tuple(ranked[:MAX_SUGGESTIONS])

    def _spelled(self, target: Target, written: str, page_rel: str, item: LinkResult) -> str:
        """The first way to write `target` that resolves, as written, to it; '' if none does."""
        prefix = self.local.site_path_prefix
        for url in spellings(target.file, target.fragment, written=written, page_rel=page_rel, site_prefix=prefix):
            resolved = self.local.resolve(url, item.link.page, page_rel)
            path = resolved.resolved.partition("#")[0]
            if self.local.check(resolved).status is Status.OK and self.local.find_file(path) == target.file:
                return url
        return ""

    @staticmethod
    def _written(item: LinkResult, page_rel: str) -> str:
        link = item.link
        url = link.url.strip()
        return markdown_target(url, link.kind, link.page.dialect) if posixpath.splitext(page_rel)[1].lower() in MARKDOWN_SUFFIXES else url


def _disputed(targets: list[Target]) -> list[Target]:
    """Mark targets that another kind of evidence contradicts (a different file or id):
    '+disputed'. Rivals of the same kind are counted apart ('+rivals')."""
    by_source: dict[str, set[tuple[str, str]]] = {}
    for t in targets:
        by_source.setdefault(_source(t.label), set()).add(_place(t))
    out = []
    for t in targets:
        others = {p for source, places in by_source.items() if source != _source(t.label) for p in places}
        if others and _place(t) not in others:
            t = Target(file=t.file, fragment=t.fragment, method=t.method, label=t.label + "+disputed", why=t.why, external=t.external)
        out.append(t)
    return out


def _source(label: str) -> str:
    """The kind of evidence of a class: 'near-name/moved+rivals#typo' -> 'near-name/moved'."""
    return re.split(r"[+#]", label, maxsplit=1)[0]


def _place(target: Target) -> tuple[str, str]:
    return (target.file or target.external, target.fragment)


def _redirect_keys(path: str) -> list[str]:
    stem = path.rstrip("/")
    return [path, stem, stem + ".md", stem + "/index.md", posixpath.splitext(stem)[0] + ".md"]


def _is_page(file: str) -> bool:
    return posixpath.splitext(file)[1].lower() in MARKDOWN_SUFFIXES | {".html", ".htm"}


_NAME_WORDS = {
    "spelling": "the same name spelled otherwise",
    "depth": "the same path from another directory",
    "moved": "the only file of that name",
    "typo": "a name {distance} edit(s) away",
}


def _name_evidence(match: Match, missing: str, found: str) -> str:
    """`missing` and `found` as the report names files."""
    words = _NAME_WORDS.get(match.kind, match.kind).format(distance=match.distance)
    if match.rivals:
        words = words.replace("the only file", "a file") + f" ({match.rivals} other file(s) as close)"
    return f"no file {missing}; {found} is {words}"


def _custom_evidence(custom: CustomId) -> str:
    rivals = f" ({custom.rivals} other heading(s) read the same)" if custom.rivals else ""
    return f'the heading "{custom.text}" has an id of its own, #{custom.id}{rivals}'


def _id_evidence(match: Match) -> str:
    words = {"spelling": "the same id spelled otherwise", "typo": f"an id {match.distance} edit(s) away",
             "typo-short": f"an id {match.distance} edit(s) away", "words-added": f"an id with {match.distance} word(s) more",
             "words-dropped": f"an id with {match.distance} word(s) fewer"}.get(match.kind, match.kind)
    rivals = f" ({match.rivals} other id(s) as close)" if match.rivals else ""
    return f"#{match.name} is {words}{rivals}"



def wants_suggestions(item: LinkResult) -> bool:
    """A broken internal link, or one that only mkdocs-redirects keeps working."""
    result = item.result
    return (result.status is Status.BROKEN and result.reason in ("missing-file", "outside-root", "missing-fragment")) or (
        result.status is Status.REDIRECTED and result.reason == Reason.MKDOCS_REDIRECT
    )


def suggest_all(results: list[LinkResult], local: LocalChecker, page_rels: dict[str, str], renames: Renames | None = None) -> list[LinkResult]:
    """`results` with suggestions attached to the internal links that want them. The git
    history is read (once) only when a link needs it, unless `renames` is given."""
    wanted = [i for i, item in enumerate(results) if item.scope is Scope.INTERNAL and not item.suggestions and wants_suggestions(item)]
    if not wanted:
        return results
    if renames is None:
        moved = any(results[i].result.reason in ("missing-file", "outside-root") for i in wanted)
        renames = read_renames(local.project.root) if moved else Renames()
    headings = GitPages(local.project.root, _ids_of)  # asks git only when a fragment is missing
    suggester = InternalSuggester(local=local, renames=renames, headings=headings, root_shown=display_path(local.project.root))
    out = list(results)
    for i in wanted:
        item = results[i]
        page_rel = page_rels.get(item.link.page.path) or page_rels.get(item.link.span.path)
        if page_rel is None:
            continue
        found = suggester.suggest(item, page_rel)
        if found:
            out[i] = replace(item, suggestions=found)
    return out


def _ids_of(text: str, rel: str) -> frozenset[str]:
    from ...extract.documents import extract_document

    return extract_document(Path(rel), text, want_text=False).page.ids
