"""The benchmark's own rules (sampling, threshold, scoring). Run: .venv/bin/pytest benchmarks/peers/test_common.py"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[2] / "training"))
from build_data import default_judge_dev  # noqa: E402
from common import Progress, auc, balanced_accuracy, choose_threshold, load_rows, sample_rows, summarise  # noqa: E402

DATA = default_judge_dev()


def rows(n_groups=20, per_group=3, sources=("a", "b")):
    out = []
    for g in range(n_groups):
        for i in range(per_group):
            out.append({"id": f"{g}-{i}", "source": sources[g % len(sources)], "claim": f"c{g}-{i}",
                        "question": f"q{g}", "label": "supported" if (g + i) % 2 else "unsupported",
                        "premise_passages": ["p"]})
    return out


def test_sample_is_deterministic_split_by_group_and_covers_every_cell_first():
    data = rows()
    one = sample_rows(data, "support", seed=1, eval_per_cell=5, calib_per_cell=2)
    assert one == sample_rows(data, "support", seed=1, eval_per_cell=5, calib_per_cell=2)
    assert one != sample_rows(data, "support", seed=2, eval_per_cell=5, calib_per_cell=2)
    calib_groups = {r["question"] for r in one["calib"]}
    eval_groups = {r["question"] for r in one["eval"]}
    assert not calib_groups & eval_groups
    cells = Counter((r["source"], r["label"]) for r in one["calib"])
    assert set(cells.values()) == {2} and len(cells) == 4
    # round-robin: the first 4 evaluation rows are one per (source, label) cell
    assert len({(r["source"], r["label"]) for r in one["eval"][:4]}) == 4


@pytest.mark.skipif(not (DATA / "support.jsonl").exists(), reason="judge-dev data not present")
def test_real_support_sample_has_208_eval_rows_over_all_sources():
    split = sample_rows(load_rows(DATA / "support.jsonl"), "support", seed=20251202, eval_per_cell=13,
                        calib_per_cell=4)
    assert len(split["eval"]) == 208 and len(split["calib"]) == 64
    assert len({r["source"] for r in split["eval"][:16]}) == 8
    assert not {r["id"] for r in split["eval"]} & {r["id"] for r in split["calib"]}


def test_balanced_accuracy_and_auc():
    assert balanced_accuracy([(True, True), (True, False), (False, False), (False, False)]) == 0.75
    assert balanced_accuracy([(True, True)]) is None
    assert auc([(True, 0.9), (False, 0.1), (True, 0.5), (False, 0.5)]) == 0.875


def test_threshold_best_balanced_accuracy_ties_nearest_half_and_default_without_both_labels():
    assert choose_threshold([(True, 0.9), (False, 0.2)]) == 0.9  # 0.2 < t <= 0.9 all perfect; 0.9 nearest 0.5
    # t=0.6 and t=0.7 both give 0.75: the tie goes to the one nearer 0.5
    assert choose_threshold([(True, 0.6), (True, 0.7), (False, 0.1), (False, 0.65)]) == 0.6
    assert choose_threshold([(True, 0.6), (True, 0.7), (False, 0.1), (False, 0.3)]) == 0.6
    assert choose_threshold([(True, 0.9)]) == 0.5
    assert choose_threshold([]) == 0.5


def test_unscored_rows_count_as_wrong_in_ba_all_but_not_in_ba_scored():
    records = [
        {"split": "calib", "positive": True, "score": 1.0, "source": "s", "seconds": 1, "calls": 1},
        {"split": "calib", "positive": False, "score": 0.0, "source": "s", "seconds": 1, "calls": 1},
        {"split": "eval", "positive": True, "score": 1.0, "source": "s", "seconds": 1, "calls": 2, "error": None},
        {"split": "eval", "positive": False, "score": 0.0, "source": "s", "seconds": 1, "calls": 2, "error": None},
        {"split": "eval", "positive": True, "score": None, "source": "s", "seconds": 1, "calls": 2,
         "error": "score is NaN"},
    ]
    summary = summarise(records)
    assert summary["ba_scored"] == 1.0
    assert summary["ba_all"] == 0.75
    assert summary["unscored"] == 1 and summary["errors"] == ["score is NaN"]
    assert summary["calls_per_row"] == pytest.approx(8 / 5)


def test_read_results_drops_a_line_cut_off_mid_write_so_the_next_append_starts_clean(tmp_path):
    from common import read_results

    path = tmp_path / "r.jsonl"
    assert read_results(path) == []
    path.write_text('{"id": "a"}\n{"id": "b"}\n{"id": "c", "sco')
    assert [r["id"] for r in read_results(path)] == ["a", "b"]
    with open(path, "a") as sink:
        sink.write('{"id": "c"}\n')
    assert [r["id"] for r in read_results(path)] == ["a", "b", "c"]


def test_paired_bootstrap_finds_no_difference_between_equals_and_a_clear_one_against_noise():
    from common import paired_bootstrap

    def recs(scores, split="eval"):
        return [{"id": f"{split}{i}", "split": split, "positive": i % 2 == 0, "score": s, "source": "x",
                 "seconds": 1.0, "error": None}
                for i, s in enumerate(scores)]

    truth_like = [0.9 if i % 2 == 0 else 0.1 for i in range(60)]
    noise = [((i * 37) % 11) / 10 for i in range(60)]
    calib = recs([0.9, 0.1, 0.8, 0.2], "calib")
    same = paired_bootstrap(recs(truth_like) + calib, recs(truth_like) + calib, iters=300)
    assert same["n"] == 60 and same["ba_diff"] == 0 and same["ba_ci"] == (0, 0)
    better = paired_bootstrap(recs(truth_like) + calib, recs(noise) + calib, iters=300)
    assert better["ba_diff"] > 0.3 and better["ba_ci"][0] > 0 and better["auc_ci"][0] > 0
    worse = paired_bootstrap(recs(noise) + calib, recs(truth_like) + calib, iters=300)
    assert worse["ba_ci"][1] < 0
    assert paired_bootstrap(recs([None] * 4), recs([0.5] * 4))["n"] == 0


def test_ours_are_compared_with_the_best_peer_among_the_most_covered(tmp_path):
    import json

    from common import summarise
    from compare import best_peer_rows

    def write(name, scores):
        recs = [{"id": f"r{i}", "split": "calib" if i < 8 else "eval", "positive": i % 2 == 0, "score": s,
                 "source": "x", "seconds": 1.0, "error": None} for i, s in enumerate(scores)]
        (tmp_path / f"answer_accuracy.{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
        return recs

    good = [0.9 if i % 2 == 0 else 0.1 for i in range(48)]
    poor = [0.9 if i % 3 == 0 else 0.1 for i in range(48)]
    frameworks = {"ours_accuracy_local": write("ours_accuracy_local", good),
                  "ragas_answer_accuracy": write("ragas_answer_accuracy", poor),
                  "deepeval_geval_correctness": write("deepeval_geval_correctness", good[:20])}  # best, few rows
    results = {"frameworks": {f"answer_accuracy/{k}": summarise(v) for k, v in frameworks.items()}}
    (pair,) = best_peer_rows(results, tmp_path)
    assert pair["framework"] == "ours_accuracy_local" and pair["reference"] == "ragas_answer_accuracy"
    assert pair["rows"] == 48 and pair["difference"]["ba_diff"] > 0


def test_progress_prints_at_most_every_interval_and_at_the_end_with_pace_and_time_left():
    import io

    now = [0.0]
    stream = io.StringIO()
    progress = Progress("peer", total=10, done=4, every_s=60, stream=stream, clock=lambda: now[0])
    now[0] = 30
    progress.row(30.0, None)           # 30 s after the start: quiet
    assert stream.getvalue() == ""
    now[0] = 90
    progress.row(60.0, "timeout")      # 90 s: a line; 2 rows in 90 s, 4 rows left
    assert stream.getvalue().splitlines() == [
        "  peer: 6/10 rows (2 this run, 1 errored), 45.0 s/row, about 0h03m left"]
    for _ in range(4):
        now[0] += 1
        progress.row(1.0, None)
    assert stream.getvalue().splitlines()[-1].startswith("  peer: 10/10 rows (6 this run, 1 errored)")
    assert len(stream.getvalue().splitlines()) == 2  # the last row always reports, the ones between do not
