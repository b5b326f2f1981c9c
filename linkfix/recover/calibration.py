"""Turn the candidates' evidence into probabilities that each is the right replacement.

Two small models, fitted on real page moves (the development set of real docs moves, every
candidate linkfix considered, right and wrong, before any cut):

1. a score for each candidate: a weighted sum of its evidence (`FEATURES`, all in [0, 1]),
   fitted as a choice among the candidates of each dead link (conditional logit: which of
   them is the right one), so the weights say what tells the right page from its rivals;
   strongly regularised (`CHOICE_L2`), which keeps them small, stable and close to an equal
   say for every kind of evidence;
2. a logistic calibration of that score among the others: its own score and how far it is
   ahead of the best other candidate of the same dead link (`lead`), so that two pages equally
   like the dead one are both uncertain, and a page far ahead of the rest is confident.

The constants below are written by `python benchmarks/recovery_real.py --from-dump DUMP
--refit --write` (fitted on every site of the dump; the figures it prints are leave-one-site-
out). `DEFAULT_AUTOFIX_CONFIDENCE` is the lowest confidence at which `linkfix fix` rewrites a
link without being asked (config `min_confidence: 0`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: Model inputs of the first stage, in the order of its weights (rank.similarity_features and
#: the pipeline's flags).
FEATURES = (
    "content_cos",  # cosine(archived copy, candidate), TF-IDF over normalised terms
    "copy_coverage",  # share of the copy's specific words present in the candidate (merged pages)
    "title_sim",  # Dice(archived copy's title, candidate's title), normalised terms
    "title_exact",  # ... and every term of the two titles is shared
    "anchor_title",  # Dice(anchor text, candidate's title), normalised terms
    "heading_sim",  # Dice(archived title, else anchor text; the candidate's closest section heading)
    "context_cos",  # cosine(anchor + words around the link + parent title, candidate)
    "url_jaccard",  # Jaccard of normalised URL path words, dead vs candidate
    "same_name",  # the last path segment (page name) is unchanged
    "name_unique",  # ... and no other known page of the site has that name
    "same_host",
    "above",  # the home page or a directory page above the dead one
    "section_for_page",  # a section index (several known pages below it) for a dead leaf page
    "section_for_section",  # ... for a dead section index (the site's past pages show it)
    "rewrite",  # found by a checked URL rewrite
    "learned",  # a rewrite learned in this run from other confident recoveries
    "in_exact",  # another page of the site links to it named exactly as the anchor / copy's title
)

#: Inputs of the second stage: bias, first-stage score (logit), lead over the runner-up.
STAGE_TWO = ("bias", "score", "lead")

#: The lead is clipped to +-LEAD_CAP.
LEAD_CAP = 6.0

#: L2 penalty of the first stage (the choice model); the second stage's is CALIBRATION_L2.
CHOICE_L2 = 10.0
CALIBRATION_L2 = 0.1

# BEGIN FITTED CONSTANTS (benchmarks/recovery_real.py --refit --write)
WEIGHTS = (
    1.439, 1.147, 1.183, 0.525, 0.926, 0.814, 0.565, 0.793, 0.604, 0.530, 0.444, 0.799, 0.115, 0.459, 0.331, 0.301, 1.409,
)
LEAD_WEIGHTS = (-2.458, 0.480, 2.262)
DEFAULT_AUTOFIX_CONFIDENCE = 0.9
FIT_NOTE = 'choice model (conditional logit) and logistic calibration fitted on 4364 ranked candidates of 150 real moves with a linking page (7 sites; every candidate, right and wrong, before any cut)'
# END FITTED CONSTANTS

#: Confidence of the archived copy offered as a last resort: it is the dead page itself, but a
#: frozen one, so it is never applied without review.
ARCHIVE_CONFIDENCE = 0.5

#: Confidence of the dead URL's own permanent redirect: the site's word for where the page is.
#: Not fitted (no move of the development set is served by one).
REDIRECT_CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class Model:
    weights: tuple[float, ...]
    lead_weights: tuple[float, ...]


MODEL = Model(weights=tuple(WEIGHTS), lead_weights=tuple(LEAD_WEIGHTS))


def vector(features: Mapping[str, float]) -> list[float]:
    """First-stage inputs from a candidate's evidence."""
    return [float(features.get(name, 0.0)) for name in FEATURES]


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b))


def score(features: Mapping[str, float], weights: Sequence[float] = WEIGHTS) -> float:
    """First stage: the candidate's own evidence as a logit."""
    return _dot(weights, vector(features))


def leads(scores: Sequence[float], keys: Sequence[str] | None = None) -> list[float]:
    """How far each score is ahead of the best score of another page (`keys` name the page of
    each score: a page found under two URLs does not compete with itself), clipped. A page
    with no evidence at all (score 0) always competes: a lone candidate leads only by what its
    own evidence is worth."""
    keys = list(keys) if keys is not None else [str(i) for i in range(len(scores))]
    out = []
    for i, value in enumerate(scores):
        best_other = max([0.0, *(s for j, s in enumerate(scores) if keys[j] != keys[i])])
        out.append(max(-LEAD_CAP, min(LEAD_CAP, value - best_other)))
    return out


def stage_two(score_value: float, lead: float) -> list[float]:
    return [1.0, score_value, lead]


def confidences(pool: Sequence[Mapping[str, float]], keys: Sequence[str] | None = None, model: Model = MODEL) -> list[float]:
    """The confidence of each candidate of one dead link, given all of them."""
    own = [score(f, model.weights) for f in pool]
    return [sigmoid(_dot(model.lead_weights, stage_two(s, lead))) for s, lead in zip(own, leads(own, keys))]


def confidence(features: Mapping[str, float], model: Model = MODEL) -> float:
    """The confidence of a candidate that has no competitor."""
    return confidences([features], model=model)[0]


# -- fitting ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Sample:
    """One candidate of one dead link, with whether it is the right page."""

    group: str  # the dead link (candidates of a group compete)
    key: str  # the candidate's page (two URLs of one page share it)
    features: Mapping[str, float]
    right: bool


def fit(samples: Sequence[Sample]) -> Model:
    """Both stages on every candidate, right and wrong: the first as a choice among each dead
    link's candidates, the second on (first-stage score, lead) with the first stage's scores."""
    if not samples:
        raise ValueError("no samples to fit")
    groups: dict[str, list[Sample]] = {}
    for s in samples:
        groups.setdefault(s.group, []).append(s)
    choices = [([vector(s.features) for s in members], [s.right for s in members]) for members in groups.values()]
    weights = fit_choice(choices, l2=CHOICE_L2)
    rows = stage_two_rows(samples, weights)
    lead_weights = fit_logistic(rows, [1 if s.right else 0 for s in samples], l2=CALIBRATION_L2)
    return Model(weights=tuple(weights), lead_weights=tuple(lead_weights))


def fit_choice(choices: Sequence[tuple[Sequence[Sequence[float]], Sequence[bool]]], *, l2: float, iterations: int = 100) -> list[float]:
    """Conditional logit: weights maximising, over the choices that have a right option and a
    wrong one, log P(right | its options) with P(i) = exp(w.x_i) / sum_j exp(w.x_j) (several
    right options count as their mean), minus l2/2 |w|^2; Newton's method."""
    usable = [(rows, right) for rows, right in choices if any(right) and not all(right)]
    if not usable:
        raise ValueError("no choice with both a right and a wrong option")
    width = len(usable[0][0][0])
    w = [0.0] * width
    for _ in range(iterations):
        grad = [-l2 * v for v in w]
        hessian = [[l2 if i == j else 0.0 for j in range(width)] for i in range(width)]
        for rows, right in usable:
            scores = [_dot(w, x) for x in rows]
            top = max(scores)
            weights = [math.exp(z - top) for z in scores]
            total = sum(weights)
            p = [v / total for v in weights]
            mean = [sum(pk * x[j] for pk, x in zip(p, rows)) for j in range(width)]
            chosen = [x for x, r in zip(rows, right) if r]
            for j in range(width):
                grad[j] += sum(x[j] for x in chosen) / len(chosen) - mean[j]
            for pk, x in zip(p, rows):
                if pk < 1e-12:
                    continue
                d = [a - b for a, b in zip(x, mean)]
                for i in range(width):
                    if d[i]:
                        row = hessian[i]
                        for j in range(width):
                            row[j] += pk * d[i] * d[j]
        step = _solve(hessian, grad)
        w = [a + b for a, b in zip(w, step)]
        if max(abs(v) for v in step) < 1e-9:
            break
    return w


def stage_two_rows(samples: Sequence[Sample], weights: Sequence[float]) -> list[list[float]]:
    groups: dict[str, list[int]] = {}
    for n, s in enumerate(samples):
        groups.setdefault(s.group, []).append(n)
    own = [score(s.features, weights) for s in samples]
    rows: list[list[float]] = [[] for _ in samples]
    for members in groups.values():
        lead = leads([own[n] for n in members], [samples[n].key for n in members])
        for n, value in zip(members, lead):
            rows[n] = stage_two(own[n], value)
    return rows


def predict(samples: Sequence[Sample], model: Model) -> list[float]:
    """Confidences of samples, each computed among the samples of its group."""
    out = [0.0] * len(samples)
    groups: dict[str, list[int]] = {}
    for n, s in enumerate(samples):
        groups.setdefault(s.group, []).append(n)
    for members in groups.values():
        values = confidences([samples[n].features for n in members], [samples[n].key for n in members], model)
        for n, value in zip(members, values):
            out[n] = value
    return out


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
            p = sigmoid(_dot(w, x))
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
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
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


def constants_block(model: Model, *, threshold: float, note: str) -> str:
    """The text between the FITTED CONSTANTS markers for `model`."""
    return (
        "# BEGIN FITTED CONSTANTS (benchmarks/recovery_real.py --refit --write)\n"
        "WEIGHTS = (\n    " + ", ".join(f"{w:.3f}" for w in model.weights) + ",\n)\n"
        "LEAD_WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in model.lead_weights) + ")\n"
        f"DEFAULT_AUTOFIX_CONFIDENCE = {threshold}\n"
        f"FIT_NOTE = {note!r}\n"
        "# END FITTED CONSTANTS"
    )
