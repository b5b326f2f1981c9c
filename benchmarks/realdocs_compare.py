"""Side by side: each tool's broken internal links against the truth (realdocs_truth), with every
disagreement judged, plus how many rendered links linkfix never sees (benchmarks/realdocs.py)."""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from realdocs_build import Finding
from realdocs_truth import SiteTruth, Verdict, normal_target

# linkfix-alone and linkfix-beside: its source check in the two environments of realdocs_envs.
TOOLS = ("mkdocs", "linkfix-alone", "linkfix-beside", "linkfix-built", "lychee-source", "lychee-built")
BUILT_TOOLS = ("linkfix-built", "lychee-built")
# MkDocs' "left as is" notices say how a link is written, not that it is broken: they count as
# a report only where the link is broken.
NOTICE_KINDS = ("absolute", "unrecognized")
THEME = "(theme)"  # links the theme renders on every page (nav, header, language switcher)
NAV = "(nav)"  # the config's nav entries (linkfix reports them at the config's line and column)


@dataclass(slots=True, kw_only=True)
class Row:
    """One link (page + where it lands), what each tool said, and the verdict."""

    page: str
    target: str  # as written in the source; '[rendered] href' for links only the built page has
    verdict: Verdict
    judged_by: str  # auto | hand
    said: dict[str, Finding] = field(default_factory=dict)
    noticed: dict[str, Finding] = field(default_factory=dict)  # MkDocs notices on links that work
    variants: set[str] = field(default_factory=set)  # every way the target was written
    in_source: bool = True  # written in the page's own source (not from a docstring, include or macro)

    def right(self, tool: str) -> bool | None:
        if self.verdict.broken is None:
            return None
        return (tool in self.said) == self.verdict.broken


def hand_judgement(judgements: dict, page: str, target: str) -> Verdict | None:
    """A judgement by hand: `page` (or '*') and `target` as written, or `target_pattern` (a
    regex) for a class of links decided once."""
    for entry in judgements.get("judgements", []) or []:
        if entry["page"] not in ("*", page):
            continue
        pattern = entry.get("target_pattern")
        if pattern is not None:
            hit = re.search(pattern, target.removeprefix("[rendered] ")) is not None
        else:
            hit = normal_target(entry["target"]) == normal_target(target)
        if hit:
            return Verdict(broken=entry["broken"], reason=entry["reason"])
    return None


def judge_findings(findings: list[Finding], truth: SiteTruth, judgements: dict) -> list[Row]:
    """Group every tool's findings by link and judge each link once."""
    rows: dict[tuple[str, str], Row] = {}
    for finding in findings:
        page, target = finding.page, finding.target
        if finding.tool in BUILT_TOOLS:
            page = truth.source_page(finding.page)
            is_page = truth.files.get(page, {}).get("page", False)
            written = truth.written_for(page, finding.target) if is_page else None
            if written is not None:
                target = written
            elif is_page:
                target = f"[rendered] {finding.target}"
        if target.startswith("[rendered] "):
            dest = truth.files.get(page, {}).get("dest", "")
            verdict = truth.judge_href(dest, target[len("[rendered] "):])
            page = THEME  # one row per target, not one per page that shows the theme
        elif page == NAV:
            verdict = truth.judge_nav(target)
        else:
            verdict = truth.judge(page, target)
        hand = hand_judgement(judgements, page, target)
        key = (page, verdict.where or normal_target(target))
        row = rows.get(key)
        if row is None:
            row = rows[key] = Row(page=page, target=target, verdict=hand or verdict,
                                  judged_by="hand" if hand else "auto")
        if finding.tool == "mkdocs" and finding.kind in NOTICE_KINDS and row.verdict.broken is not True:
            row.noticed.setdefault(finding.tool, finding)
        else:
            row.said.setdefault(finding.tool, finding)
        row.variants.add(target)
    return sorted((r for r in rows.values() if r.said), key=lambda r: (r.page, r.target))


def written_in(text: str, target: str) -> bool:
    """Whether target is written in text as a whole link target (not the start of a longer one)."""
    if not target:
        return False
    ends = r"(?=[)\s\"'>\]]|$)"
    return any(re.search(re.escape(form) + ends, text) for form in {target, html.escape(target)})


def mark_sources(rows: list[Row], docs: Path) -> None:
    """Flag rows whose target is not in the page's source text: MkDocs renders them from a
    docstring (mkdocstrings), a snippet include or a macro, so a source check cannot see them."""
    texts: dict[str, str] = {}
    for row in rows:
        if row.page.startswith("site:") or row.page == THEME:
            row.in_source = False
            continue
        if row.page not in texts:
            try:
                texts[row.page] = (docs / row.page).read_text(encoding="utf-8", errors="replace")
            except OSError:
                texts[row.page] = ""
        text = texts[row.page]
        row.in_source = any(written_in(text, v) for v in row.variants)


@dataclass(frozen=True, slots=True, kw_only=True)
class Score:
    reported: int
    false_alarms: int
    misses: int
    build_only_misses: int  # misses of links not in the page's source text


def score(rows: list[Row], tool: str) -> Score:
    judged = [r for r in rows if r.verdict.broken is not None]
    missed = [r for r in judged if r.verdict.broken and tool not in r.said]
    return Score(reported=sum(tool in r.said for r in rows),
                 false_alarms=sum(tool in r.said and not r.verdict.broken for r in judged),
                 misses=sum(r.in_source for r in missed), build_only_misses=sum(not r.in_source for r in missed))


def disagreements(rows: list[Row], tools: tuple[str, ...]) -> list[Row]:
    return [r for r in rows if r.verdict.broken is None or any(r.right(t) is False for t in tools)]


def describe(row: Row, tools: tuple[str, ...]) -> str:
    truth = {True: "BROKEN", False: "not broken", None: "cannot be judged here"}[row.verdict.broken]
    said = []
    for tool in tools:
        finding = row.said.get(tool)
        mark = "-"
        if finding is not None:
            mark = finding.kind + (f" L{finding.line}" if finding.line else "")
        elif tool in row.noticed:
            mark = f"notice only ({row.noticed[tool].kind})"
        said.append(f"{tool}: {mark}")
    right = [t for t in tools if row.right(t)]
    wrong = [t for t in tools if row.right(t) is False]
    verdict_line = f"right: {', '.join(right) or 'none'}; wrong: {', '.join(wrong) or 'none'}"
    if row.verdict.broken is None:
        verdict_line = "not scored"
    origin = "" if row.in_source else " [not in the page source: docstring, include, macro or theme]"
    return (f"  {row.page}  ->  {row.target}{origin}\n"
            f"      truth: {truth} ({row.judged_by}) — {row.verdict.reason}\n"
            f"      {verdict_line}\n"
            f"      {' | '.join(said)}")


def expected_for_linkfix(rows: list[Row]) -> dict[str, list[list[str]]]:
    """The judged truth a source check must match, as [page, target] pairs with every written
    variant of each link: `broken` (written in the page source), `build_only` (broken, but only
    the build has them: a source check is not held to them either way) and `unjudgeable`."""
    lists: dict[str, set] = {"broken": set(), "build_only": set(), "unjudgeable": set()}
    for row in rows:
        if row.page.startswith("site:") or row.page == THEME:
            continue
        for variant in row.variants:
            if variant.startswith("[rendered] "):
                continue
            if row.verdict.broken is None:
                lists["unjudgeable"].add((row.page, variant))
            elif row.verdict.broken:
                lists["broken" if row.in_source else "build_only"].add((row.page, variant))
    return {name: [list(p) for p in sorted(pairs)] for name, pairs in lists.items()}


def check_against(findings: list[Finding], expected: dict) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(false alarms, misses) of a linkfix source run against the stored truth."""
    want = {(p, normal_target(t)) for p, t in expected.get("broken", [])}
    unknown = {(p, normal_target(t)) for key in ("unjudgeable", "build_only") for p, t in expected.get(key, [])}
    got = {(f.page, normal_target(f.target)) for f in findings}
    return sorted(got - want - unknown), sorted(want - got)


# -- links linkfix never sees -------------------------------------------------------------

_OPENERS = [
    ("admonition", re.compile(r"^\s*(!!!|\?\?\?\+?)\s")),
    ("content tab", re.compile(r"^\s*===\+?\s")),
    ("pymdownx block", re.compile(r"^\s*///")),
    ("md_in_html", re.compile(r"<\w+[^>]*\bmarkdown(=|\s|>)")),
    ("footnote", re.compile(r"^\s*\[\^[^\]]+\]:")),
    ("definition list", re.compile(r"^\s*:\s{1,3}\S")),
]


def where_in_source(text: str, target: str) -> str:
    """What encloses the first occurrence of target in the page source (why it was missed)."""
    index = text.find(target)
    if index < 0:
        return "not in the page source (an include or a macro brings it)"
    lines = text[:index].split("\n")
    current = lines[-1]
    if re.match(r"^\s*\[[^\]]+\]:\s", current):
        return "reference definition"
    indent = len(current) - len(current.lstrip())
    for line in reversed(lines[:-1]):
        if not line.strip():
            continue
        for name, opener in _OPENERS:
            if opener.search(line) and (len(line) - len(line.lstrip()) < indent or name in ("md_in_html", "pymdownx block")):
                return name
        if indent and len(line) - len(line.lstrip()) < indent and not line.lstrip().startswith(("-", "*", "+")) \
                and not re.match(r"^\s*\d+[.)]\s", line):
            indent = len(line) - len(line.lstrip())
        if len(line) - len(line.lstrip()) == 0 and indent == 0:
            break
    return "top level or list" if indent == 0 else "indented block"


@dataclass(frozen=True, slots=True, kw_only=True)
class Coverage:
    rendered: int  # distinct link targets per page that MkDocs renders from the page's own source text
    unseen: int  # of those, how many linkfix did not extract on that page
    unseen_by_context: dict[str, int]
    examples: list[tuple[str, str, str]]  # (page, target, context)
    extra: int  # distinct targets linkfix extracted on a page that MkDocs does not render as links there


def coverage(truth: SiteTruth, extracted_by_page: dict[str, list[dict]], docs: Path) -> Coverage:
    rendered = unseen = extra = 0
    contexts: Counter = Counter()
    examples = []
    for page, record in truth.pages.items():
        try:
            text = (docs / page).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        written = [w for _t, _a, w, _r, *generated in record.get("links", []) if not any(generated)]
        written += [u for _t, _a, u in record.get("raw", [])]
        written = [w for w in written if written_in(text, w)]
        seen = {normal_target(link["url"]) for link in extracted_by_page.get(page, [])}
        wanted = {normal_target(w) for w in written}
        rendered += len(wanted)
        for target in sorted(wanted - seen):
            unseen += 1
            context = where_in_source(text, target)
            contexts[context] += 1
            if len(examples) < 400:
                examples.append((page, target, context))
        extra += len(seen - wanted)
    return Coverage(rendered=rendered, unseen=unseen, unseen_by_context=dict(contexts.most_common()),
                    examples=examples, extra=extra)
