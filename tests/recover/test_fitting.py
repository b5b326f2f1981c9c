"""Fitting recovery's model (benchmarks/realbench/fitting.py, scipy): only benchmarks fit; the
package ships the constants and the inference (linkfix.recover.calibration)."""

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from realbench import fitting

from linkfix.recover import calibration


def test_fit_logistic_recovers_a_known_model():
    rng = random.Random(7)
    true = [-1.0, 3.0]
    rows, labels = [], []
    for _ in range(2000):
        x = [1.0, rng.uniform(-2, 2)]
        p = calibration.sigmoid(sum(w * v for w, v in zip(true, x)))
        rows.append(x)
        labels.append(1 if rng.random() < p else 0)
    fitted = fitting.fit_logistic(rows, labels, l2=0.0)
    assert fitted[0] == pytest.approx(true[0], abs=0.3)
    assert fitted[1] == pytest.approx(true[1], abs=0.4)


def test_fit_logistic_stays_finite_on_separable_data_and_leaves_the_intercept_unshrunk():
    rows = [[1.0, 0.0]] * 20 + [[1.0, 1.0]] * 20
    labels = [0] * 20 + [1] * 20
    w = fitting.fit_logistic(rows, labels, l2=0.2)
    assert all(abs(v) < 50 for v in w)
    assert calibration.sigmoid(w[0] + w[1]) > 0.9 > 0.1 > calibration.sigmoid(w[0])
    # the optimum: with the intercept free, the mean predicted probability equals the share of 1s
    assert sum(calibration.sigmoid(w[0] + w[1] * x[1]) for x in rows) / len(rows) == pytest.approx(0.5, abs=1e-6)


def test_fit_choice_prefers_the_feature_that_tells_the_right_option_apart():
    # in every choice the right option has feature 0 high; feature 1 is noise
    rng = random.Random(3)
    choices = []
    for _ in range(40):
        rows = [[1.0, rng.random()]] + [[rng.random() * 0.5, rng.random()] for _ in range(3)]
        choices.append((rows, [True, False, False, False]))
    w = fitting.fit_choice(choices, l2=1.0)
    assert w[0] > 2.0 and abs(w[1]) < 1.0
    with pytest.raises(ValueError):
        fitting.fit_choice([([[1.0, 0.0]], [True])], l2=1.0)  # no choice with a right and a wrong option


def _fixed_sample():
    """Twelve dead links, each with a right page and two wrong ones; the right page has the
    archived copy's text and title, the wrong ones less of either; in the last three links a
    wrong page looks as good as the right one (ambiguous)."""
    samples = []
    for n in range(12):
        ambiguous = n >= 9
        right = {"has_copy": 1.0, "content_cos": 0.9 - 0.02 * n, "copy_coverage": 0.9, "title_sim": 1.0, "same_host": 1.0}
        near = {"has_copy": 1.0, "content_cos": 0.88 - 0.02 * n if ambiguous else 0.4, "copy_coverage": 0.85 if ambiguous else 0.3,
                "title_sim": 1.0 if ambiguous else 0.3, "same_host": 1.0}
        far = {"has_copy": 1.0, "content_cos": 0.1, "copy_coverage": 0.1, "title_sim": 0.0, "same_host": 1.0}
        for key, features, right_one in (("right", right, True), ("near", near, False), ("far", far, False)):
            samples.append(fitting.Sample(group=f"case{n}", key=f"{n}/{key}", features=features, right=right_one))
    return samples


def test_calibration_on_a_fixed_sample_ranks_the_right_pages_first_and_is_sure_only_when_unambiguous():
    samples = _fixed_sample()
    model = fitting.fit(samples)
    assert model == fitting.fit(samples)  # reproducible
    confidence = fitting.predict(samples, model)
    by_case: dict[str, list[tuple[float, fitting.Sample]]] = {}
    for value, sample in zip(confidence, samples):
        by_case.setdefault(sample.group, []).append((value, sample))
    tops = [max(members, key=lambda pair: pair[0]) for members in by_case.values()]
    assert all(sample.right for _, sample in tops)  # the right page first in every case
    clear = [value for value, sample in tops if not sample.group.endswith(("9", "10", "11"))]
    unclear = [value for value, sample in tops if sample.group.endswith(("9", "10", "11"))]
    # precision at 0.5 is 1: every top candidate above it is right; the ambiguous ones are below the clear ones
    assert min(clear) > 0.5 and max(unclear) < min(clear)
    wrong = [value for value, sample in zip(confidence, samples) if not sample.right]
    assert max(wrong) < min(clear)


def test_constants_block_round_trips_through_python():
    model = calibration.Model(weights=tuple(float(n) for n in range(len(calibration.FEATURES))), lead_weights=(0.5, 1.0, 0.25))
    namespace: dict = {}
    exec(fitting.constants_block(model, threshold=0.9, note="test"), namespace)
    assert namespace["WEIGHTS"] == model.weights and namespace["LEAD_WEIGHTS"] == model.lead_weights
    assert namespace["DEFAULT_AUTOFIX_CONFIDENCE"] == 0.9 and namespace["FIT_NOTE"] == "test"


def test_internal_suggestion_classes_are_held_below_the_threshold_unless_measured_precise_on_enough_cases():
    from internal_table import AUTOFIX_MIN_CASES, table_from_counts

    table = table_from_counts({"sure": (AUTOFIX_MIN_CASES, AUTOFIX_MIN_CASES), "few": (AUTOFIX_MIN_CASES - 1, AUTOFIX_MIN_CASES - 1), "loose": (90, 100), "none": (0, 0)},
                              threshold=0.9)
    assert table["sure"] == round((AUTOFIX_MIN_CASES + 1) / (AUTOFIX_MIN_CASES + 2), 3) >= 0.9  # measured precise: applied
    assert table["few"] == 0.89 and table["loose"] == 0.89  # too few cases, or not precise: just under the threshold
    assert "none" not in table
