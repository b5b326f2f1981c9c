"""How often each kind of internal suggestion was right, measured on real project histories.

`benchmarks/internal_fixes.py` replays real cases (links that a later commit repointed, pages
moved with links left behind, headings renamed, redirect_maps entries) from the git histories of
public MkDocs projects, and counts, per suggestion class, how often linkfix's top suggestion
was the replacement the project's authors chose. `--write` stores the table below.

A class's confidence is its measured precision, smoothed (k+1)/(n+2) so that a small class
cannot claim certainty. A class below `AUTOFIX_PRECISION` (or measured on fewer than
`AUTOFIX_MIN_CASES` cases) is held just under the default auto-fix threshold: `linkfix fix`
applies it only when asked (a lower `min_confidence`), never by default.
"""

from __future__ import annotations

from typing import Mapping

#: Measured precision a class needs before `fix` applies it by default.
AUTOFIX_PRECISION = 0.99
#: Cases a class needs before its precision is believed enough for that.
AUTOFIX_MIN_CASES = 20
#: Confidence of a class the calibration never saw.
UNMEASURED = 0.5

# BEGIN MEASURED CONFIDENCES (benchmarks/internal_fixes.py --write)
CONFIDENCE: Mapping[str, float] = {}
MEASURED_NOTE = "not measured yet"
# END MEASURED CONFIDENCES


def confidence_of(suggestion_class: str, table: Mapping[str, float] | None = None) -> float:
    """The measured confidence of a suggestion class ('git-rename', 'near-name/typo+rivals')."""
    table = CONFIDENCE if table is None else table
    if suggestion_class in table:
        return table[suggestion_class]
    base = suggestion_class.split("+", 1)[0]
    # an unmeasured variant is worth no more than what was measured of its plain class
    return min(table.get(base, UNMEASURED), UNMEASURED) if base != suggestion_class else UNMEASURED


def table_from_counts(counts: Mapping[str, tuple[int, int]], threshold: float) -> dict[str, float]:
    """{class: confidence} from {class: (right, suggested)} (see the module docstring)."""
    table = {}
    below = round(threshold - 0.01, 2)
    for name, (right, total) in sorted(counts.items()):
        if not total:
            continue
        smoothed = round((right + 1) / (total + 2), 3)
        precise = right / total >= AUTOFIX_PRECISION and total >= AUTOFIX_MIN_CASES
        table[name] = smoothed if precise else min(smoothed, below)
    return table
