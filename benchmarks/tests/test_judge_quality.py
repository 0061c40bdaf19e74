"""judge_quality.py's metrics and its seeded, stratified sampling."""

from __future__ import annotations

import judge_quality as bench
import pytest


def test_metrics_and_sampling():
    assert bench.balanced_accuracy([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.75)
    assert bench.auc([1, 0, 1, 0], [0.9, 0.1, 0.4, 0.4]) == pytest.approx(0.875)
    rows = [{"id": f"{s}{i}", "source": s, "label": "supported" if i % 2 else "unsupported", "question": f"q{i}"}
            for s in "ab" for i in range(10)]
    picked = bench.stratified(rows, 8, seed=1)
    assert len(picked) == 8
    assert {(r["source"], bench.gold(r)) for r in picked} == {("a", 0), ("a", 1), ("b", 0), ("b", 1)}
    assert bench.stratified(rows, 8, seed=1) == picked
    y = [bench.gold(r) for r in rows]
    pred = bench.cross_fitted(rows, y, [float(v) for v in y], seed=3)
    assert pred == y  # a perfect feature stays perfect when its threshold is chosen on the other half
