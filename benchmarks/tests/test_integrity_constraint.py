"""The contradiction constraint counts only changed answers a reader found wrong."""

import json

from constraint import READINGS, changed_rows, enforce, read_as_wrong, readings


def test_an_edit_read_as_still_true_or_unclear_does_not_count(tmp_path):
    verdicts = {"support/a": ("support", "contradicted"), "support/b": ("support", "unverifiable"),
                "support/c": ("support", "still_true"), "answer_accuracy/d": ("answer_accuracy", "unverifiable"),
                "answer_accuracy/e": ("answer_accuracy", "contradicted"), "support/f": ("support", "unclear")}
    path = tmp_path / "read.jsonl"
    path.write_text("".join(json.dumps({"pair": p, "set": s, "verdict": v}) + "\n" for p, (s, v) in verdicts.items()),
                    encoding="utf-8")
    rows = [{"pair": p} for p in [*verdicts, "support/unread"]]
    kept = [r["pair"] for r in read_as_wrong(rows, readings(path))]
    # a support check must fail what its evidence does not speak to; an answer must be contradicted
    assert kept == ["support/a", "support/b", "answer_accuracy/e", "support/unread"]


def test_the_shipped_readings_cover_the_measured_pairs_and_use_known_verdicts():
    rows = [json.loads(line) for line in READINGS.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) == len({r["pair"] for r in rows}) == 148
    assert {r["verdict"] for r in rows} <= {"contradicted", "unverifiable", "still_true", "unclear"}


def test_changed_rows_are_filtered_by_the_readings(tmp_path):
    rows = [json.loads(line) for line in READINGS.read_text(encoding="utf-8").splitlines() if line.strip()]
    still_true = next(r["pair"] for r in rows if r["verdict"] == "still_true" and r["set"] == "support")
    wrong = next(r["pair"] for r in rows if r["verdict"] == "contradicted" and r["set"] == "support")
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"stage": "support", "member": m, "pair": p}) + "\n"
                            for p in (still_true, wrong) for m in ("changed", "twin")), encoding="utf-8")
    assert [r["pair"] for r in changed_rows(path, "support")] == [wrong]
    assert enforce("w", 1, 20) and not enforce("w", 2, 20)
