"""The pipeline's garbage-collector thresholds: a run's while it lasts; a library caller gets its own back."""

from __future__ import annotations

import gc

import pytest

from linkfix.pipeline import collection


@pytest.fixture
def thresholds():
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def test_a_run_collects_rarely_and_gives_the_callers_thresholds_back(thresholds):
    gc.set_threshold(500, 5, 5)
    with collection.rare_collection():
        assert gc.get_threshold() == collection.GC_THRESHOLDS
    assert gc.get_threshold() == (500, 5, 5)


def test_the_command_line_keeps_a_runs_thresholds_to_its_end(thresholds):
    collection.keep_rare_collection()
    with collection.rare_collection():
        pass
    assert gc.get_threshold() == collection.GC_THRESHOLDS  # nothing left to scan it all again before exit
