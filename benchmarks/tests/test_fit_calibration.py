"""fit_calibration.py reads the raw expected rating of each template's verdict."""

from __future__ import annotations

import fit_calibration as fit
import pytest


def test_fit_calibration_reads_raw_ratings_per_template():
    assert fit.expected_rating({"0": 0.2, "2": 0.2, "4": 0.6}) == pytest.approx(0.7)
    assert fit.expected_rating({"0": 0.1, "1": 0.1, "2": 0.3}) == pytest.approx((0.05 + 0.3) / 0.5)
    assert fit.expected_rating({"yes": 0.3, "no": 0.1}) == pytest.approx(0.75)
    record = {"id": "r1", "templates": [
        {"template": "one", "score": 0.9, "probabilities": {"0": 0.5, "2": 0.0, "4": 0.5}},
        {"template": "two", "score": 0.1, "probabilities": {"0": 1.0, "2": 0.0, "4": 0.0}}]}
    assert fit.picked_scores(record) == [0.9, 0.1]
    assert fit.picked_scores(record, "one") == [0.9]
    assert fit.picked_scores(record, "one", from_probabilities=True) == [0.5]
    assert fit.picked_scores(record, "three") == []
    assert fit.row_id(record) == "r1" == fit.row_id({"split": "eval", "row": {"id": "r1"}})
