import random

import pytest

from linkfix.recover import calibration


def test_shipped_constants_fit_the_features():
    assert len(calibration.WEIGHTS) == len(calibration.FEATURES)
    assert 0.5 < calibration.DEFAULT_AUTOFIX_CONFIDENCE < 1
    assert calibration.ARCHIVE_CONFIDENCE < calibration.DEFAULT_AUTOFIX_CONFIDENCE


def test_copy_and_no_copy_evidence_are_separate_inputs():
    with_copy = calibration.vector({"has_copy": 1.0, "content_cos": 0.8, "same_slug": 1.0, "title_sim": 0.5})
    without = calibration.vector({"has_copy": 0.0, "content_cos": 0.8, "same_slug": 1.0, "title_sim": 0.5})
    index = calibration.FEATURES.index
    assert with_copy[index("bias")] == 1.0
    assert with_copy[index("content_cos")] == 0.8 and without[index("content_cos")] == 0.0
    assert with_copy[index("same_slug")] == 0.0 and without[index("same_slug")] == 1.0
    assert with_copy[index("copy_title_sim")] == 0.5 and without[index("copy_title_sim")] == 0.0


def test_confidence_grows_with_similarity_to_the_archived_copy():
    low = calibration.confidence({"has_copy": 1, "content_cos": 0.2, "kld_sim": 0.0, "copy_coverage": 0.2})
    high = calibration.confidence({"has_copy": 1, "content_cos": 0.98, "kld_sim": 0.8, "copy_coverage": 0.98, "margin": 0.6})
    assert 0 <= low < 0.5 < high <= 1


def test_fit_logistic_recovers_a_known_model():
    rng = random.Random(7)
    true = [-1.0, 3.0]
    rows, labels = [], []
    for _ in range(2000):
        x = [1.0, rng.uniform(-2, 2)]
        p = calibration.sigmoid(sum(w * v for w, v in zip(true, x)))
        rows.append(x)
        labels.append(1 if rng.random() < p else 0)
    fitted = calibration.fit_logistic(rows, labels, l2=0.0)
    assert fitted[0] == pytest.approx(true[0], abs=0.3)
    assert fitted[1] == pytest.approx(true[1], abs=0.4)


def test_fit_logistic_stays_finite_on_separable_data():
    rows = [[1.0, 0.0]] * 20 + [[1.0, 1.0]] * 20
    labels = [0] * 20 + [1] * 20
    w = calibration.fit_logistic(rows, labels, l2=0.2)
    assert all(abs(v) < 50 for v in w)
    assert calibration.sigmoid(w[0] + w[1]) > 0.9 > 0.1 > calibration.sigmoid(w[0])


def test_reliability_table_bins_by_confidence():
    table = calibration.reliability_table([0.05, 0.15, 0.95, 1.0, 0.91], [0, 0, 1, 1, 0])
    assert table == [(0.0, 0.1, 1, 0.0), (0.1, 0.2, 1, 0.0), (0.9, 1.0, 3, pytest.approx(2 / 3))]
