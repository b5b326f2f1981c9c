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


def test_leads_are_measured_against_other_pages_only_and_clipped():
    assert calibration.leads([3.0, 1.0, 0.5]) == pytest.approx([2.0, -2.0, -2.5])
    # two URLs of one page do not compete with each other
    assert calibration.leads([3.0, 3.0, 1.0], ["a", "a", "b"]) == pytest.approx([2.0, 2.0, -2.0])
    # a page without any evidence (score 0) always competes: a lone weak candidate leads by little
    assert calibration.leads([1.0]) == [1.0] and calibration.leads([-1.0]) == [-1.0]
    assert calibration.leads([40.0, 0.0]) == pytest.approx([calibration.LEAD_CAP, -calibration.LEAD_CAP])


def test_a_lone_weak_candidate_is_not_confident():
    # Never applied without review. (Fitted on recoveries without an archived copy too, the
    # site's own pages weigh more than they did: such a candidate is 0.69 with the weights of
    # 2026-12-02, and candidates at 0.6-0.7 were right 73% of the time, leave-one-site-out.)
    assert calibration.confidence({"same_host": 1.0, "context_cos": 0.3}) < calibration.DEFAULT_AUTOFIX_CONFIDENCE
    assert calibration.confidence({"context_cos": 0.3}) < 0.5  # nothing but words near the link


def test_two_equally_good_candidates_are_each_less_certain_than_one_alone():
    good = {"has_copy": 1.0, "content_cos": 0.95, "copy_coverage": 0.95, "title_sim": 1.0, "same_host": 1.0}
    alone = calibration.confidence(good)
    pair = calibration.confidences([good, dict(good)], ["a", "b"])
    assert pair[0] == pytest.approx(pair[1]) and pair[0] < alone
