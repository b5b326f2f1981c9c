"""Turn a candidate's evidence into a probability that it is the right replacement.

A logistic model over a few features. The weights below are fitted by
`python benchmarks/recovery_eval.py --refit` on one half of the evaluation cases (split by a hash
of the case id) and reported on the other half; rerun it after changing any feature and paste
(or `--write`) the printed constants. `DEFAULT_AUTOFIX_CONFIDENCE` is the lowest confidence at
which `linkfix fix` rewrites a link without being asked (config `min_confidence: 0`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

#: Model inputs, in the order of the weight vector, computed by `vector` from a candidate's
#: evidence (all in [0, 1]). Evidence from the archived copy and evidence used without one are
#: separate inputs: with the copy at hand, a matching URL or title proves little if the text
#: differs (a page of the same name on another site), and without it they are all there is.
FEATURES = (
    "bias",
    "has_copy",  # an archived copy of the dead page was found
    "content_cos",  # cosine(archived copy, candidate) over content terms
    "kld_sim",  # exp(-KLD(copy || candidate)), the paper's ranking with a copy
    "copy_coverage",  # share of the copy's specific words present in the candidate (merged pages)
    "copy_title_sim",  # Dice(archived title, candidate title)
    "anchor_title_dice",  # no copy: Dice(anchor, candidate title), the paper's ranking without one
    "context_cos",  # no copy: cosine(anchor + words around the link + parent title, candidate)
    "url_jaccard",  # no copy: Jaccard of URI path tokens, dead vs candidate
    "same_slug",  # no copy: the last path segment (without extension) is unchanged
    "same_host",
    "margin",  # how far this candidate's evidence is ahead of the runner-up's
    "weak_anchor",  # stop anchor, or one term that is no named entity
    "rewrite",  # found by a checked URL rewrite
    "redirect",  # the dead URL's own permanent redirect
    "learned",  # a rewrite learned in this run from other confident recoveries
)
_WITH_COPY = frozenset({"content_cos", "kld_sim", "copy_coverage"})
_WITHOUT_COPY = frozenset({"anchor_title_dice", "context_cos", "url_jaccard", "same_slug"})

# BEGIN FITTED CONSTANTS (benchmarks/recovery_eval.py --refit --write)
WEIGHTS = (
    -5.520, -1.073, 1.323, 3.265, 3.728, 0.035, 0.100, 2.819, 1.334, 4.570, 1.386, 4.039, 1.224, 0.578, 2.119, 0.526,
)
DEFAULT_AUTOFIX_CONFIDENCE = 0.9
FIT_NOTE = "logistic fit on 87 of 154 evaluation cases (hash split), 225 candidates"
# END FITTED CONSTANTS

#: Confidence of the archived copy offered as a last resort: it is the dead page itself, but a
#: frozen one, so it is never applied without review.
ARCHIVE_CONFIDENCE = 0.5


def vector(features: Mapping[str, float]) -> list[float]:
    """Model inputs from the evidence of `similarity_features` (+ margin and method flags)."""
    copy = 1.0 if features.get("has_copy") else 0.0
    out = []
    for name in FEATURES:
        if name == "bias":
            out.append(1.0)
        elif name == "copy_title_sim":
            out.append(copy * float(features.get("title_sim", 0.0)))
        elif name in _WITHOUT_COPY:
            out.append((1.0 - copy) * float(features.get(name, 0.0)))
        elif name in _WITH_COPY:
            out.append(copy * float(features.get(name, 0.0)))
        else:
            out.append(float(features.get(name, 0.0)))
    return out


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def confidence(features: Mapping[str, float], weights: Sequence[float] = WEIGHTS) -> float:
    return sigmoid(sum(w * x for w, x in zip(weights, vector(features))))


def fit_logistic(rows: Sequence[Sequence[float]], labels: Sequence[int], *, l2: float = 0.2, iterations: int = 100) -> list[float]:
    """Weights maximising the log-likelihood minus l2/2 |w|^2 (the intercept is not shrunk),
    by Newton's method (IRLS). The penalty keeps weights finite on separable data."""
    if not rows:
        raise ValueError("no samples to fit")
    width = len(rows[0])
    w = [0.0] * width
    for _ in range(iterations):
        grad = [-(l2 * w[j] if j else 0.0) for j in range(width)]
        hessian = [[(l2 if i == j and i else (1e-9 if i == j else 0.0)) for j in range(width)] for i in range(width)]
        for x, y in zip(rows, labels):
            p = sigmoid(sum(a * b for a, b in zip(w, x)))
            weight = p * (1 - p)
            for i in range(width):
                grad[i] += (y - p) * x[i]
                if x[i]:
                    row = hessian[i]
                    for j in range(width):
                        row[j] += weight * x[i] * x[j]
        step = _solve(hessian, grad)
        w = [a + b for a, b in zip(w, step)]
        if max(abs(v) for v in step) < 1e-9:
            break
    return w


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve matrix @ x = vector (Gaussian elimination with partial pivoting)."""
    n = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-12:
            continue  # a feature that never varies: leave its weight alone
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            if factor:
                for c in range(col, n + 1):
                    a[r][c] -= factor * a[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        if abs(a[r][r]) < 1e-12:
            continue
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def reliability_table(probabilities: Sequence[float], labels: Sequence[int], bins: int = 10) -> list[tuple[float, float, int, float]]:
    """(bin low, bin high, count, observed accuracy) for each non-empty confidence bin."""
    table = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [y for p, y in zip(probabilities, labels) if low <= p < high or (b == bins - 1 and p == 1.0)]
        if members:
            table.append((low, high, len(members), sum(members) / len(members)))
    return table
