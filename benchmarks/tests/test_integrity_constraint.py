"""The contradiction constraint counts only changed answers a reader found wrong."""

import json

from constraint import changed_rows, enforce, read_as_wrong, readings


def test_an_edit_read_as_still_true_or_unclear_does_not_count():
    read = {"support/a": "contradicted", "support/b": "unverifiable", "support/c": "still_true",
            "answer_accuracy/d": "unverifiable", "answer_accuracy/e": "contradicted", "support/f": "unclear"}
    rows = [{"pair": p} for p in [*read, "support/unread"]]
    kept = [r["pair"] for r in read_as_wrong(rows, read)]
    # a support check must fail what its evidence does not speak to; an answer must be contradicted
    assert kept == ["support/a", "support/b", "answer_accuracy/e", "support/unread"]


def test_the_shipped_readings_cover_the_measured_pairs_and_use_known_verdicts():
    read = readings()
    assert len(read) == 148
    assert set(read.values()) <= {"contradicted", "unverifiable", "still_true", "unclear"}


def test_changed_rows_are_filtered_by_the_readings(tmp_path):
    read = readings()
    still_true = next(p for p, v in read.items() if v == "still_true" and p.startswith("support/"))
    wrong = next(p for p, v in read.items() if v == "contradicted" and p.startswith("support/"))
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"stage": "support", "member": m, "pair": p}) + "\n"
                            for p in (still_true, wrong) for m in ("changed", "twin")), encoding="utf-8")
    assert [r["pair"] for r in changed_rows(path, "support")] == [wrong]
    assert enforce("w", 1, 20) and not enforce("w", 2, 20)
