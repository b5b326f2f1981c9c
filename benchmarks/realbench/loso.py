"""Leave-one-site-out: fit a candidate model on 8 sites, judge it on the 9th, for every site.

Input: the per-case dump (`recovery_real.py --dump FILE`), one JSON object per case with every
candidate linkfix considered, its features and whether it is right. Plug in any model:

    rows = candidate_rows(dump)                   # one Row per candidate with features
    result = leave_one_site_out(cases_of(dump), rows, fit=my_fit, predict=my_predict,
                                threshold=0.9)
    print(result.render())

`fit(rows) -> model` gets the training rows; `predict(model, rows) -> confidences` scores the
rows of one site (a candidate's confidence may depend on the other candidates of its case).
A held-out case is ranked by the model's confidence over its own candidates (the candidate pool
is what linkfix generated and fetched; which candidates reach the pool is not refitted), and
scored as the dataset's README says; a case with no candidate, or not run, is a miss. The top
candidate counts as an automatic fix when it reaches the threshold and the gate does not hold
it (`hold`). The in-sample figures (fit on every site) are printed beside the held-out ones.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from linkfix.recover import calibration
from linkfix.recover.gate import RULES, Rule, Scored, hold_reason
from linkfix.recover.sections import answered_section
from linkfix.urls import page_identity

from . import fitting
from .scoring import same_page

#: Verdicts of candidates that were in linkfix's ranking (the others left it before: not a
#: page, not live, the same page as another candidate).
RANKED = ("suggested", "ranked-below")


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    case_id: str
    site: str
    url: str
    features: dict[str, float]
    right: bool
    section: str = ""  # the id of the section of its page that names the dead page
    named_section: str = ""  # the id of the one section of its page with the dead page's name

    @property
    def answer(self) -> str:
        """The URL linkfix suggests for this candidate: its page, or its section (sections.py)."""
        section = answered_section(self.section or None, self.named_section or None, self.features)
        return f"{self.url}#{section}" if section else self.url


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseInfo:
    case_id: str
    site: str
    parent: bool
    fragment: str = ""  # the section the maintainers' redirect names ('' for a whole page)


def cases_of(dump: Iterable[dict[str, Any]]) -> list[CaseInfo]:
    return [CaseInfo(case_id=d["case"], site=d["site"], parent=bool(d["parent"]), fragment=d.get("truth_fragment") or "") for d in dump]


def candidate_rows(dump: Iterable[dict[str, Any]]) -> list[Row]:
    """One row per candidate that was in linkfix's ranking (fetched and scored), right or wrong."""
    rows = []
    for d in dump:
        for c in d.get("candidates", []):
            if c.get("features") and c.get("verdict", "suggested") in RANKED:
                url = c.get("final_url") or c["url"]
                rows.append(Row(case_id=d["case"], site=d["site"], url=url, features=c["features"],
                                right=same_page(url, d["truth"]), section=c.get("section") or "",
                                named_section=c.get("named_section") or ""))
    return rows


@dataclass(slots=True)
class SiteScore:
    site: str
    cases: int = 0
    s1: int = 0
    s10: int = 0
    rr: float = 0.0
    auto: int = 0
    auto_right: int = 0
    sections: int = 0  # cases whose truth is a section
    section_right: int = 0  # ... whose top answer names that page and that section

    def add(self, other: SiteScore) -> None:
        for name in ("cases", "s1", "s10", "rr", "auto", "auto_right", "sections", "section_right"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def line(self, label: str) -> str:
        n = self.cases or 1
        precision = f"{self.auto_right / self.auto:7.2f}" if self.auto else f"{'-':>7}"
        sections = f"{self.section_right}/{self.sections}" if self.sections else "-"
        return (f"{label:<40}{self.cases:>5}{self.s1 / n:7.2f}{self.s10 / n:7.2f}{self.rr / n:7.2f}"
                f"{self.auto:>6}{precision}{self.auto_right / n:7.2f}{sections:>8}")


Hold = Callable[[Sequence[Row], Sequence[float]], str]


def gate_hold(ranked: Sequence[Row], confidences: Sequence[float], rules: Sequence[Rule] | None = None) -> str:
    """linkfix's gate for the top candidate of a ranking (recover.gate.hold_reason; `rules`:
    the gate's rules to ask, default all)."""
    scored = [Scored(url=r.url, key=page_identity(r.url), confidence=c, features=r.features) for r, c in zip(ranked, confidences)]
    return hold_reason(scored[0], scored[1:], rules) if scored else ""


def gate_rules_per_site(cases: Sequence[CaseInfo], rows: Sequence[Row], confidence: dict[int, float], threshold: float) -> str:
    """What each gate rule does, site by site: the automatic fixes (and the wrong ones among
    them) with every rule, and without each rule in turn (same confidences)."""
    sites = sorted({c.site for c in cases})

    def per_site(rules: Sequence[Rule]) -> dict[str, SiteScore]:
        hold: Hold = lambda ranked, values: gate_hold(ranked, values, rules)  # noqa: E731
        return {site: score_cases([c for c in cases if c.site == site], [r for r in rows if r.site == site], confidence, threshold,
                                  site, hold) for site in sites}

    every = per_site(RULES)
    lines = ["\ngate rules, each left out in turn (held-out confidences): automatic fixes / wrong ones, per site where they change",
             f"  all rules: {sum(s.auto for s in every.values())} automatic fixes, "
             f"{sum(s.auto - s.auto_right for s in every.values())} wrong"]
    for name, _ in RULES:
        without = per_site([r for r in RULES if r[0] != name])
        changed = [f"{site} {every[site].auto}/{every[site].auto - every[site].auto_right} -> "
                   f"{without[site].auto}/{without[site].auto - without[site].auto_right}"
                   for site in sites if (every[site].auto, every[site].auto_right) != (without[site].auto, without[site].auto_right)]
        total = (sum(s.auto for s in without.values()), sum(s.auto - s.auto_right for s in without.values()))
        lines.append(f"  without {name}: {total[0]} automatic fixes, {total[1]} wrong; " + ("; ".join(changed) or "no site changes"))
    return "\n".join(lines)


def score_cases(cases: Sequence[CaseInfo], rows: Sequence[Row], confidence: dict[int, float], threshold: float,
                site: str = "", hold: Hold = gate_hold) -> SiteScore:
    """`confidence` maps id(row) to its confidence."""
    by_case: dict[str, list[Row]] = {}
    for row in rows:
        by_case.setdefault(row.case_id, []).append(row)
    out = SiteScore(site=site)
    for case in cases:
        out.cases += 1
        ranked = _dedup(sorted(by_case.get(case.case_id, []), key=lambda r: (-confidence[id(r)], r.url)))
        # one entry per page: a candidate may be found under two URLs
        rank = next((n for n, r in enumerate(ranked, 1) if r.right), None)
        if rank == 1:
            out.s1 += 1
        if rank is not None and rank <= 10:
            out.s10 += 1
        out.rr += 1 / rank if rank else 0.0
        if ranked and confidence[id(ranked[0])] >= threshold and not hold(ranked, [confidence[id(r)] for r in ranked]):
            out.auto += 1
            out.auto_right += 1 if ranked[0].right else 0
        if case.fragment:
            out.sections += 1
            out.section_right += 1 if ranked and ranked[0].right and ranked[0].answer.partition("#")[2] == case.fragment else 0
    return out


def _dedup(rows: Sequence[Row]) -> list[Row]:
    seen, out = set(), []
    for row in rows:
        key = page_identity(row.url)
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


@dataclass(slots=True)
class LosoResult:
    threshold: float
    held_out: list[SiteScore] = field(default_factory=list)
    in_sample: list[SiteScore] = field(default_factory=list)
    models: dict[str, Any] = field(default_factory=dict)  # held-out site -> the model fitted without it
    held_out_confidence: dict[int, float] = field(default_factory=dict)  # id(row) -> its held-out confidence

    def pooled(self, scores: Sequence[SiteScore]) -> SiteScore:
        total = SiteScore(site="pooled")
        for s in scores:
            total.add(s)
        return total

    def render(self) -> str:
        head = f"{'':<40}{'n':>5}{'s@1':>7}{'s@10':>7}{'MRR':>7}{'auto':>6}{'prec':>7}{'cover':>7}{'sect':>8}"
        lines = [f"\nleave-one-site-out (auto-fix threshold {self.threshold:.2f}; cases linkfix ran on)", head, "-" * len(head)]
        lines.append(self.pooled(self.held_out).line(f"held-out, pooled over {len(self.held_out)} sites"))
        lines.append(self.pooled(self.in_sample).line("in-sample (fit on every site), pooled"))
        for held, inside in zip(self.held_out, self.in_sample):
            lines.append(held.line(f"  held-out {held.site}"[:40]))
            lines.append(inside.line(f"  in-sample {inside.site}"[:40]))
        return "\n".join(lines)


def leave_one_site_out(cases: Sequence[CaseInfo], rows: Sequence[Row], *, fit: Callable[[Sequence[Row]], Any],
                       predict: Callable[[Any, Sequence[Row]], Sequence[float]], threshold: float,
                       hold: Hold = gate_hold) -> LosoResult:
    result = LosoResult(threshold=threshold)
    everything = fit(rows)
    for site in sorted({c.site for c in cases}):
        training = [r for r in rows if r.site != site]
        model = fit(training)
        result.models[site] = model
        held_cases = [c for c in cases if c.site == site]
        held_rows = [r for r in rows if r.site == site]
        held = dict(zip(map(id, held_rows), predict(model, held_rows)))
        inside = dict(zip(map(id, held_rows), predict(everything, held_rows)))
        result.held_out_confidence.update(held)
        result.held_out.append(score_cases(held_cases, held_rows, held, threshold, site, hold))
        result.in_sample.append(score_cases(held_cases, held_rows, inside, threshold, site, hold))
    return result


# -- linkfix's model ----------------------------------------------------------------------------


def samples(rows: Sequence[Row]) -> list[fitting.Sample]:
    return [fitting.Sample(group=r.case_id, key=page_identity(r.url), features=r.features, right=r.right) for r in rows]


def fit_linkfix(rows: Sequence[Row]) -> calibration.Model:
    """linkfix.recover.calibration's two-stage model, refitted on `rows`."""
    return fitting.fit(samples(rows))


def predict_linkfix(model: calibration.Model, rows: Sequence[Row]) -> list[float]:
    return fitting.predict(samples(rows), model)


def shipped(_: Sequence[Row]) -> calibration.Model:
    """The shipped model, unchanged (the 'fit' of the baseline row)."""
    return calibration.MODEL


def weight_stability(models: dict[str, calibration.Model], reference: calibration.Model = calibration.MODEL) -> str:
    lines = [f"\nweights across the {len(models)} leave-one-site-out refits (mean ± sd; shipped value)"]
    fits = list(models.values())
    names = [*calibration.FEATURES, *(f"lead:{n}" for n in calibration.STAGE_TWO)]
    for n, name in enumerate(names):
        values = [(*m.weights, *m.lead_weights)[n] for m in fits]
        sd = statistics.stdev(values) if len(values) > 1 else 0.0
        shipped_value = (*reference.weights, *reference.lead_weights)[n]
        lines.append(f"  {name:<20}{statistics.fmean(values):+8.2f} ± {sd:5.2f}   (shipped {shipped_value:+.2f})")
    return "\n".join(lines)
