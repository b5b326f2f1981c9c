"""The table of internal-suggestion confidences (linkfix/recover/internal_links/confidence.py), made
from what `internal_fixes.py` measured: fitting, kept out of the package, which ships only the
table and its lookup.

A class's confidence is its measured precision, smoothed (k+1)/(n+2) so that a small class
cannot claim certainty. A class below `AUTOFIX_PRECISION` (or measured on fewer than
`AUTOFIX_MIN_CASES` cases) is held just under the auto-fix threshold: `linkfix fix` applies it
only when asked (a lower `min_confidence`), never by default.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Measured precision a class needs before `fix` applies it by default.
AUTOFIX_PRECISION = 0.99
#: Cases a class needs before its precision is believed enough for that.
AUTOFIX_MIN_CASES = 20


def table_from_counts(counts: Mapping[str, tuple[float, float]], threshold: float) -> dict[str, float]:
    """{class: confidence} from {class: (right, suggested)}, counts that may be weighted
    (internal_fixes.py weighs the cases of one commit)."""
    table = {}
    below = round(threshold - 0.01, 2)
    for name, (right, total) in sorted(counts.items()):
        if not total:
            continue
        smoothed = round((right + 1) / (total + 2), 3)
        precise = right / total >= AUTOFIX_PRECISION and total >= AUTOFIX_MIN_CASES
        table[name] = smoothed if precise else min(smoothed, below)
    return table
