"""Fitting recovery's two-stage model (linkfix.recover.calibration) on real moves, with scipy.

Only the benchmarks and their tests fit; linkfix ships the fitted constants and the inference
(`calibration.confidences`). The objectives are the ones calibration.py describes:

1. the first stage as a choice among each dead link's candidates (conditional logit):
   maximise, over the links that have a right candidate and a wrong one, log P(right | its
   candidates) with P(i) = exp(w.x_i) / sum_j exp(w.x_j) (several right ones count as their
   mean), minus CHOICE_L2/2 |w|^2;
2. a logistic calibration of (bias, first-stage score, lead over the best other page), the
   bias not shrunk, the others by CALIBRATION_L2/2 |w|^2.

Both are smooth and strictly concave, so scipy's trust-region Newton method (exact gradient and
Hessian) finds the one optimum to within its tolerance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp

from linkfix.recover import calibration
from linkfix.recover.calibration import CALIBRATION_L2, CHOICE_L2, Model, leads, score, stage_two, vector

#: Gradient norm at which the solver stops (the weights are written with 3 decimals).
TOLERANCE = 1e-10


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


def fit_choice(choices: Sequence[tuple[Sequence[Sequence[float]], Sequence[bool]]], *, l2: float) -> list[float]:
    """Conditional logit weights (the first stage), L2-penalised."""
    usable = [(np.asarray(rows, dtype=float), np.asarray(right, dtype=bool)) for rows, right in choices if any(right) and not all(right)]
    if not usable:
        raise ValueError("no choice with both a right and a wrong option")
    width = usable[0][0].shape[1]
    chosen = [rows[right].mean(axis=0) for rows, right in usable]

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = 0.5 * l2 * w @ w, l2 * w
        for (rows, _), mean_right in zip(usable, chosen):
            z = rows @ w
            p = np.exp(z - logsumexp(z))
            value -= mean_right @ w - logsumexp(z)
            grad = grad - (mean_right - p @ rows)
        return value, grad

    def hessian(w: np.ndarray) -> np.ndarray:
        h = l2 * np.eye(width)
        for rows, _ in usable:
            z = rows @ w
            p = np.exp(z - logsumexp(z))
            centred = rows - p @ rows
            h += (centred * p[:, None]).T @ centred
        return h

    return _newton(objective, hessian, width)


def fit_logistic(rows: Sequence[Sequence[float]], labels: Sequence[int], *, l2: float = 0.2) -> list[float]:
    """Logistic regression weights; the first column is the intercept (a column of ones) and is
    not penalised. The penalty keeps the weights finite on separable data."""
    if not rows:
        raise ValueError("no samples to fit")
    x, y = np.asarray(rows, dtype=float), np.asarray(labels, dtype=float)
    width = x.shape[1]
    shrink = np.full(width, l2)
    shrink[0] = 0.0

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        value = -(y * log_expit(z) + (1 - y) * log_expit(-z)).sum() + 0.5 * (shrink * w) @ w
        return value, x.T @ (expit(z) - y) + shrink * w

    def hessian(w: np.ndarray) -> np.ndarray:
        p = expit(x @ w)
        return (x * (p * (1 - p))[:, None]).T @ x + np.diag(shrink) + 1e-9 * np.eye(width)

    return _newton(objective, hessian, width)


def _newton(objective, hessian, width: int) -> list[float]:  # type: ignore[no-untyped-def]
    result = minimize(objective, np.zeros(width), jac=True, hess=hessian, method="trust-exact", options={"gtol": TOLERANCE})
    # Near the optimum the gradient of a sum over thousands of rows is at the floor of float
    # precision, where the solver may stop short of `gtol`: what counts is how far the weights
    # still are from it (one Newton step), far below the 3 decimals written.
    remaining = np.abs(np.linalg.solve(hessian(result.x), result.jac)).max()
    if not result.success and remaining > 1e-6:
        raise RuntimeError(f"fit did not converge: {result.message} (a Newton step of {remaining:.2g} remains)")
    return [float(v) for v in result.x]


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
        values = calibration.confidences([samples[n].features for n in members], [samples[n].key for n in members], model)
        for n, value in zip(members, values):
            out[n] = value
    return out


def constants_block(model: Model, *, threshold: float, note: str) -> str:
    """The text between the FITTED CONSTANTS markers of calibration.py for `model`."""
    return (
        "# BEGIN FITTED CONSTANTS (benchmarks/recovery_real.py --refit --write)\n"
        "WEIGHTS = (\n    " + ", ".join(f"{w:.3f}" for w in model.weights) + ",\n)\n"
        "LEAD_WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in model.lead_weights) + ")\n"
        f"DEFAULT_AUTOFIX_CONFIDENCE = {threshold}\n"
        f"FIT_NOTE = {note!r}\n"
        "# END FITTED CONSTANTS"
    )
