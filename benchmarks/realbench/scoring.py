"""Scoring as the dataset's README says, and the tables every method is printed in.

A suggestion is right when it names the same page as `new_url`, ignoring the fragment,
http/https, host case, a trailing slash and a trailing `index.html`. success@1, success@10 and
MRR are over "all" cases (a case the method could not run on is a miss) and over the cases
"with parents" (linkfix needs the linking page); precision and coverage at a confidence
threshold count the cases whose top suggestion reaches it.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from linkfix_simweb.realmoves.dataset import MoveCase


def page_key(url: str) -> str:
    """host + path of a URL with the fragment, scheme, host case, trailing index.html and
    trailing slash removed."""
    parts = urlsplit(url.strip())
    path = parts.path or "/"
    if path.endswith("/index.html"):
        path = path[: -len("index.html")]
    path = path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    return f"{(parts.hostname or '').lower()}{path}{query}"


def same_page(url: str, truth: str) -> bool:
    return page_key(url) == page_key(truth)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ranked:
    """One method's answer for one case: URLs best first, each with a confidence (or None)."""

    case: MoveCase
    urls: tuple[str, ...] = ()
    confidences: tuple[float | None, ...] = ()
    ran: bool = True  # False: the method could not run on this case (no parent, no copy)
    note: str = ""
    held: bool = False  # the top suggestion is held for review by linkfix's gate (not an automatic fix)

    @property
    def rank(self) -> int | None:
        for n, url in enumerate(self.urls, 1):
            if same_page(url, self.case.new_url):
                return n
        return None

    @property
    def top_confidence(self) -> float | None:
        return self.confidences[0] if self.confidences else None

    @property
    def section_right(self) -> bool | None:
        """For a case whose truth is a section (`new_fragment`): does the top suggestion name that
        page and that section? None when the truth is a whole page."""
        if not self.case.new_fragment:
            return None
        top = self.urls[0] if self.ran and self.urls else ""
        return same_page(top, self.case.new_url) and top.partition("#")[2] == self.case.new_fragment


@dataclass(frozen=True, slots=True, kw_only=True)
class Figures:
    n: int
    s1: float
    s10: float
    mrr: float
    auto: int = 0  # cases whose top suggestion reaches the threshold
    precision: float | None = None
    coverage: float | None = None


def figures(rows: Sequence[Ranked], threshold: float | None = None) -> Figures:
    n = len(rows)
    if not n:
        return Figures(n=0, s1=0.0, s10=0.0, mrr=0.0)
    ranks = [r.rank if r.ran else None for r in rows]
    out = Figures(
        n=n,
        s1=sum(1 for k in ranks if k == 1) / n,
        s10=sum(1 for k in ranks if k is not None and k <= 10) / n,
        mrr=sum(1 / k for k in ranks if k) / n,
    )
    if threshold is None:
        return out
    above = [r for r in rows if r.ran and not r.held and r.top_confidence is not None and r.top_confidence >= threshold]
    right = sum(1 for r in above if r.rank == 1)
    return Figures(n=n, s1=out.s1, s10=out.s10, mrr=out.mrr, auto=len(above),
                   precision=right / len(above) if above else None, coverage=right / n)


@dataclass(slots=True)
class Table:
    """Rows of figures printed under one header."""

    title: str
    threshold: float | None = None
    lines: list[str] = field(default_factory=list)

    def header(self) -> str:
        extra = f"{'auto':>6}{'prec':>7}{'cover':>7}" if self.threshold is not None else ""
        return f"{'method':<14}{'subset':<34}{'n':>5}{'s@1':>7}{'s@10':>7}{'MRR':>7}{extra}"

    def add(self, method: str, subset: str, f: Figures) -> None:
        line = f"{method:<14}{subset:<34}{f.n:>5}{f.s1:7.2f}{f.s10:7.2f}{f.mrr:7.2f}"
        if self.threshold is not None:
            prec = f"{f.precision:7.2f}" if f.precision is not None else f"{'-':>7}"
            cover = f"{f.coverage:7.2f}" if f.coverage is not None else f"{'-':>7}"
            line += f"{f.auto:>6}{prec}{cover}"
        self.lines.append(line)

    def render(self) -> str:
        head = self.header()
        note = f" (auto-fix threshold {self.threshold:.2f})" if self.threshold is not None else ""
        return "\n".join([f"\n{self.title}{note}", head, "-" * len(head), *self.lines])


def subsets(rows: Sequence[Ranked]) -> Iterable[tuple[str, list[Ranked]]]:
    """all, with parents, by generator, by site (all cases)."""
    yield "all", list(rows)
    yield "with parents", [r for r in rows if r.case.parents]
    for generator in sorted({r.case.generator for r in rows}):
        yield f"{generator} (all)", [r for r in rows if r.case.generator == generator]
        yield f"{generator} (with parents)", [r for r in rows if r.case.generator == generator and r.case.parents]
    for site in sorted({r.case.site for r in rows}):
        yield f"site {site}"[:33], [r for r in rows if r.case.site == site]


def method_table(title: str, methods: dict[str, Sequence[Ranked]], threshold: float | None, *,
                 only: Callable[[str], bool] = lambda name: True) -> Table:
    table = Table(title=title, threshold=threshold)
    for method, rows in methods.items():
        for subset, chosen in subsets(rows):
            if only(subset):
                table.add(method, subset, figures(chosen, threshold))
    return table


def reliability(pairs: Iterable[tuple[float, bool]], bins: int = 10) -> list[tuple[float, float, int, float]]:
    """(low, high, count, observed precision) per non-empty confidence bin."""
    pairs = list(pairs)
    table = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [ok for c, ok in pairs if low <= c < high or (b == bins - 1 and c >= 1.0)]
        if members:
            table.append((low, high, len(members), sum(members) / len(members)))
    return table


def reliability_text(title: str, pairs: Iterable[tuple[float, bool]]) -> str:
    lines = [f"\n{title}", f"{'confidence':<12}{'n':>6}{'observed':>10}"]
    for low, high, count, observed in reliability(pairs):
        lines.append(f"{low:.1f}-{high:.1f}{'':<5}{count:>6}{observed:10.2f}")
    return "\n".join(lines)


def median(values: Iterable[float]) -> float:
    values = list(values)
    return statistics.median(values) if values else 0.0


def site_table(methods: dict[str, Sequence[Ranked]], threshold: float, *, linkfix: str, baselines: Sequence[str] = ("B2", "B3f", "B5"),
               title: str = "per site, cases with a linking page") -> str:
    """One line per site: the baselines' success@1 beside linkfix's figures (`linkfix` names its
    method), on the cases with a linking page; then pooled over every case and the mean of the
    sites (each site counts once). `sect` = top suggestion names the right section / cases
    whose truth is a section (the page is scored apart, in s@1)."""
    ours = {r.case.id: r for r in methods.get(linkfix, ())}
    others = {name: {r.case.id: r for r in methods.get(name, ())} for name in baselines}
    chosen = [r for r in ours.values() if r.case.parents]
    head = (f"{'site':<40}{'n':>5}" + "".join(f"{name:>7}" for name in baselines)
            + f"{'s@1':>7}{'s@10':>7}{'MRR':>7}{'auto':>6}{'prec':>7}{'cover':>7}{'sect':>8}")
    lines = [f"\n{title} (auto-fix threshold {threshold:.2f}; baselines: s@1)", head, "-" * len(head)]

    def line(label: str, rows: Sequence[Ranked]) -> tuple[str, list[float]]:
        f = figures(rows, threshold)
        # a baseline's s@1 over the same cases (one it did not run on is a miss; nan: not run at all)
        base = [sum(1 for r in rows if (o := others[name].get(r.case.id)) is not None and o.ran and o.rank == 1) / len(rows)
                if others[name] else float("nan") for name in baselines]
        sections = [r.section_right for r in rows if r.section_right is not None]
        prec = f"{f.precision:7.2f}" if f.precision is not None else f"{'-':>7}"
        sect = f"{sum(sections)}/{len(sections)}" if sections else "-"
        text = (f"{label[:39]:<40}{len(rows):>5}" + "".join(f"{b:7.2f}" for b in base)
                + f"{f.s1:7.2f}{f.s10:7.2f}{f.mrr:7.2f}{f.auto:>6}{prec}{f.coverage or 0.0:7.2f}{sect:>8}")
        return text, [*base, f.s1, f.s10, f.mrr, f.coverage or 0.0]

    values = []
    for site in sorted({r.case.site for r in chosen}):
        text, numbers = line(site, [r for r in chosen if r.case.site == site])
        lines.append(text)
        values.append(numbers)
    lines.append("-" * len(head))
    lines.append(line(f"pooled over {len(values)} sites", chosen)[0])
    if values:
        means = [statistics.fmean(column) for column in zip(*values)]
        lines.append(f"{'mean of the sites':<40}{'':>5}" + "".join(f"{m:7.2f}" for m in means[: len(baselines)])
                     + "".join(f"{m:7.2f}" for m in means[len(baselines): len(baselines) + 3]) + f"{'':>6}{'':>7}{means[-1]:7.2f}")
    return "\n".join(lines)


def found_at_all_text(methods: dict[str, Sequence[Ranked]]) -> str:
    """How often the truth is anywhere among a method's answers (cases with a linking page):
    the figure Martinez-Romo & Araujo report (74% of the links they recovered, 553 of 748)."""
    lines = ["\ntruth found at all, at any rank (cases with a linking page; Martinez-Romo & Araujo: 0.74)"]
    for name, rows in methods.items():
        chosen = [r for r in rows if r.case.parents]
        found = sum(1 for r in chosen if r.ran and r.rank is not None)
        lines.append(f"  {name:<14}{found:>5} of {len(chosen):<5} {found / len(chosen) if chosen else 0.0:.2f}")
    return "\n".join(lines)
