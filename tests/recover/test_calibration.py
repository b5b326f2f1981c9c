import random

import pytest

from linkfix.recover import calibration


def test_shipped_constants_fit_the_features():
    assert len(calibration.WEIGHTS) == len(calibration.FEATURES)
    assert 0.5 < calibration.DEFAULT_AUTOFIX_CONFIDENCE < 1
    assert calibration.ARCHIVE_CONFIDENCE < calibration.DEFAULT_AUTOFIX_CONFIDENCE


def test_model_inputs_are_the_features_in_order():
    row = calibration.vector({"has_copy": 1.0, "content_cos": 0.8, "same_name": 1.0, "title_sim": 0.5, "unknown": 7.0})
    index = calibration.FEATURES.index
    assert len(row) == len(calibration.FEATURES)
    assert row[index("content_cos")] == 0.8 and row[index("same_name")] == 1.0 and row[index("title_sim")] == 0.5
    assert row[index("anchor_title")] == 0.0  # missing evidence is no evidence


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


def test_leads_are_measured_against_other_pages_only_and_clipped():
    assert calibration.leads([3.0, 1.0, 0.5]) == pytest.approx([2.0, -2.0, -2.5])
    # two URLs of one page do not compete with each other
    assert calibration.leads([3.0, 3.0, 1.0], ["a", "a", "b"]) == pytest.approx([2.0, 2.0, -2.0])
    # a page without any evidence (score 0) always competes: a lone weak candidate leads by little
    assert calibration.leads([1.0]) == [1.0] and calibration.leads([-1.0]) == [-1.0]
    assert calibration.leads([40.0, 0.0]) == pytest.approx([calibration.LEAD_CAP, -calibration.LEAD_CAP])


def test_a_lone_weak_candidate_is_not_confident():
    assert calibration.confidence({"same_host": 1.0, "context_cos": 0.3}) < 0.5


def test_two_equally_good_candidates_are_each_less_certain_than_one_alone():
    good = {"has_copy": 1.0, "content_cos": 0.95, "copy_coverage": 0.95, "title_sim": 1.0, "same_host": 1.0}
    alone = calibration.confidence(good)
    pair = calibration.confidences([good, dict(good)], ["a", "b"])
    assert pair[0] == pytest.approx(pair[1]) and pair[0] < alone


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
            samples.append(calibration.Sample(group=f"case{n}", key=f"{n}/{key}", features=features, right=right_one))
    return samples


def test_calibration_on_a_fixed_sample_ranks_the_right_pages_first_and_is_sure_only_when_unambiguous():
    samples = _fixed_sample()
    model = calibration.fit(samples)
    assert model == calibration.fit(samples)  # reproducible
    confidence = calibration.predict(samples, model)
    by_case: dict[str, list[tuple[float, calibration.Sample]]] = {}
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
    exec(calibration.constants_block(model, threshold=0.9, note="test"), namespace)
    assert namespace["WEIGHTS"] == model.weights and namespace["LEAD_WEIGHTS"] == model.lead_weights
    assert namespace["DEFAULT_AUTOFIX_CONFIDENCE"] == 0.9 and namespace["FIT_NOTE"] == "test"
