"""Thresholds fitted to human labels: the statistics, reading a results file, and `lvf calibrate`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from llm_validation_framework.apps.cli import main
from llm_validation_framework.errors import ConfigError, InputError
from llm_validation_framework.judges.base import VerdictRequest
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.runner import ResultsWriter, run_dataset
from llm_validation_framework.runner.calibrate_results import calibrate_threshold
from llm_validation_framework.runner.calibration import agreement_at, fit_threshold

TRUE_THRESHOLD = 0.62


def synthetic(n: int = 300, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """A third labelled pass, scored around 0.74; the rest labelled fail, scored around 0.50, both with
    the same spread: the scores of the two labels are equally likely at 0.62, the best cut."""
    rng = np.random.default_rng(seed)
    positives = n // 3
    scores = np.concatenate([rng.normal(0.74, 0.08, positives), rng.normal(0.50, 0.08, n - positives)]).clip(0, 1)
    order = rng.permutation(n)
    return scores[order], (np.arange(n) < positives)[order]


def write_results(path: Path, scores, labels, *, agent: str = "relevancy", threshold: float = 0.5,
                  field: str = "human", extra: list[dict] | None = None) -> Path:
    with ResultsWriter(path, secrets=()) as writer:
        writer.header(dataset={"path": "cases.jsonl"}, agents=[agent])
        for i, (score, label) in enumerate(zip(scores, labels)):
            writer.write({"type": "case", "id": f"c{i}", "line": i + 1, "agent": agent,
                          "status": "PASS" if score >= threshold else "FAIL", "score": float(score),
                          "threshold": threshold, "meta": {"source": "synthetic", field: label}})
        for record in extra or []:
            writer.write({"type": "case", "line": 0, **record})
    return path


# -- the statistics --------------------------------------------------------------------------------
def test_recovers_a_known_threshold_within_its_interval():
    scores, labels = synthetic()
    calibration = fit_threshold(scores, labels, current=0.5, seed=0)
    low, high = calibration.threshold_interval
    assert low <= TRUE_THRESHOLD <= high
    assert low <= calibration.threshold <= high
    assert abs(calibration.threshold - TRUE_THRESHOLD) < 0.05
    assert high - low < 0.15
    # the fitted mark agrees better than the default one, and the held-out figure is close to it
    assert calibration.fitted.balanced_accuracy > calibration.current.balanced_accuracy
    assert abs(calibration.held_out_balanced_accuracy - calibration.fitted.balanced_accuracy) < 0.05
    assert calibration.current.threshold == 0.5


def test_the_bootstrap_is_seeded():
    scores, labels = synthetic(n=120)
    first = fit_threshold(scores, labels, resamples=300, seed=7).to_dict()
    assert fit_threshold(scores, labels, resamples=300, seed=7).to_dict() == first
    assert fit_threshold(scores, labels, resamples=300, seed=8).to_dict() != first


def test_balanced_accuracy_and_kappa_by_hand():
    scores = [0.9, 0.8, 0.7, 0.3, 0.6, 0.2, 0.1, 0.4]
    labels = [True, True, True, True, False, False, False, False]
    confusion, balanced, kappa = agreement_at(scores, labels, 0.5)
    # pass: 0.9 0.8 0.7 (pass labels) and 0.6 (fail label); fail: 0.3 (pass label), 0.2 0.1 0.4
    assert confusion.to_dict() == {"pass_labelled_pass": 3, "pass_labelled_fail": 1, "fail_labelled_pass": 1,
                                   "fail_labelled_fail": 3}
    assert balanced == pytest.approx(0.75)
    assert kappa == pytest.approx(0.5)  # observed 0.75, chance 0.5
    fitted = fit_threshold(scores, labels, min_per_class=1, resamples=50)
    # the best cut passes 0.7 and above: three of four pass labels, no fail label
    assert fitted.fitted.balanced_accuracy == pytest.approx(0.875)
    assert fitted.threshold == 0.65


def test_ties_between_cuts_keep_the_middle_one():
    scores = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    labels = [False, True, False, True, False, True]
    # the cuts at 0.15, 0.35 and 0.55 all score 2/3: the middle one is kept, not the first or last
    fitted = fit_threshold(scores, labels, min_per_class=1, resamples=20)
    assert fitted.threshold == 0.35
    assert fitted.fitted.balanced_accuracy == pytest.approx(2 / 3)


def test_the_threshold_is_rounded_only_inside_its_gap():
    scores = [0.1, 0.2, 0.30001, 0.30004, 0.8, 0.9]
    labels = [False, False, False, True, True, True]
    threshold = fit_threshold(scores, labels, min_per_class=1, resamples=20).threshold
    assert 0.30001 < threshold <= 0.30004


def test_refuses_too_few_labels_of_a_class():
    scores, labels = synthetic(n=60)
    labels = np.where(np.arange(60) < 55, True, labels & False)  # 55 pass labels, 5 fail labels
    with pytest.raises(InputError, match=r"55 pass and 5 fail label\(s\).*at least 10 of each"):
        fit_threshold(scores, labels)
    assert fit_threshold(scores, labels, min_per_class=5, resamples=50).negatives == 5


def test_bad_options_and_inputs_are_named():
    with pytest.raises(ConfigError, match="resamples"):
        fit_threshold([0.1] * 20, [True] * 10 + [False] * 10, resamples=0)
    with pytest.raises(InputError, match="differ in length"):
        fit_threshold([0.1], [True, False])
    with pytest.raises(InputError, match="finite"):
        fit_threshold([float("nan")] * 20, [True] * 10 + [False] * 10)


def test_one_score_for_every_case_is_said():
    calibration = fit_threshold([0.7] * 20, [True] * 10 + [False] * 10, resamples=50)
    assert calibration.fitted.balanced_accuracy == 0.5
    assert any("same score" in note for note in calibration.notes)


# -- a results file --------------------------------------------------------------------------------
def test_calibrates_from_a_results_file(tmp_path):
    scores, labels = synthetic()
    words = ["pass" if y else "fail" for y in labels]
    extra = [{"id": "u1", "agent": "relevancy", "status": "UNSCORED", "score": None, "threshold": 0.5,
              "meta": {"human": "pass"}},
             {"id": "n1", "agent": "relevancy", "status": "PASS", "score": 0.9, "threshold": 0.5, "meta": {}},
             {"id": "m1", "agent": "relevancy", "status": "PASS", "score": 0.9, "threshold": 0.5,
              "meta": {"human": "maybe"}}]
    path = write_results(tmp_path / "r.jsonl", scores, words, extra=extra)
    calibration = calibrate_threshold(path, "human", seed=0)
    assert calibration.agent == "relevancy" and calibration.label == "human"
    low, high = calibration.threshold_interval
    assert low <= TRUE_THRESHOLD <= high
    assert calibration.current.threshold == 0.5
    assert calibration.positives + calibration.negatives == len(scores)
    assert calibration.skipped == {"not scored (UNSCORED or ERROR)": 1, "no label": 1,
                                   "label neither pass nor fail": 1}
    assert any("'maybe'" in note for note in calibration.notes)


def test_score_labels_need_the_lowest_passing_score(tmp_path):
    scores, labels = synthetic(n=100)
    ratings = [5 if y else 2 for y in labels]
    path = write_results(tmp_path / "r.jsonl", scores, ratings, field="rating")
    with pytest.raises(InputError, match=r"label 'rating' holds scores \(2 … 5\).*--label-pass-at") as caught:
        calibrate_threshold(path, "rating")
    assert caught.value.field == "rating"
    calibration = calibrate_threshold(path, "rating", label_pass_at=4, resamples=200)
    assert calibration.positives == int(labels.sum())


def test_errors_name_the_label_field(tmp_path):
    scores, labels = synthetic(n=100)
    path = write_results(tmp_path / "r.jsonl", scores, ["pass" if y else "fail" for y in labels])
    with pytest.raises(InputError, match=r"label 'humna' is on no case.*fields are: human, source") as caught:
        calibrate_threshold(path, "humna")
    assert caught.value.field == "humna"
    few = write_results(tmp_path / "few.jsonl", scores[:30], ["pass"] * 27 + ["fail"] * 3)
    with pytest.raises(InputError, match=r"^human: 27 pass and 3 fail label\(s\) among the 30 case\(s\) of agent "
                                         r"'relevancy'.*Label more cases that should fail") as caught:
        calibrate_threshold(few, "human")
    assert caught.value.field == "human"


def test_several_agents_need_a_choice(tmp_path):
    scores, labels = synthetic(n=60)
    path = write_results(tmp_path / "r.jsonl", scores, labels.tolist(),
                         extra=[{"id": "c0", "agent": "accuracy", "status": "PASS", "score": 0.9, "threshold": 0.5,
                                 "meta": {"human": True}}])
    with pytest.raises(ConfigError, match=r"several agents \(accuracy, relevancy\)"):
        calibrate_threshold(path, "human")
    with pytest.raises(ConfigError, match="agent 'citation' is not in"):
        calibrate_threshold(path, "human", agent="citation")
    assert calibrate_threshold(path, "human", agent="relevancy", resamples=50).agent == "relevancy"


def test_labels_travel_from_the_dataset_rows_through_a_run(tmp_path):
    """A row's own field is kept with its case in the results file, where calibration reads it."""
    rows = [{"id": f"c{i}", "question": f"Question {i}?", "answer": f"Answer {i}" + (" BAD" if i % 2 else ""),
             "verdict_by_hand": "fail" if i % 2 else "pass"} for i in range(24)]
    data = tmp_path / "cases.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))

    def judge(request: VerdictRequest) -> dict:
        pick = min if "BAD" in request.prompt else max
        return {"verdict": pick(request.options, key=request.options.get), "reason": "scripted"}

    out = tmp_path / "results.jsonl"
    run_dataset(data, ["relevancy"], judge=ScriptedJudge(judge), out=out, cache=False)
    calibration = calibrate_threshold(out, "verdict_by_hand", resamples=100)
    assert (calibration.positives, calibration.negatives) == (12, 12)
    assert calibration.fitted.balanced_accuracy == 1.0


# -- lvf calibrate ---------------------------------------------------------------------------------
def test_cli_prints_both_thresholds(tmp_path):
    scores, labels = synthetic()
    path = write_results(tmp_path / "r.jsonl", scores, ["pass" if y else "fail" for y in labels])
    result = CliRunner().invoke(main, ["calibrate", str(path), "--label", "human", "--resamples", "300"])
    assert result.exit_code == 0, result.output
    for text in ("relevancy against label human", "fitted 0.", "current 0.5", "balanced accuracy", "kappa",
                 "PASS, label fail", "held-out balanced accuracy", "[low–high]: 95% bootstrap intervals"):
        assert text in result.output
    as_json = CliRunner().invoke(main, ["calibrate", str(path), "--label", "human", "--resamples", "300", "--json"])
    document = json.loads(as_json.output)
    assert document["current"]["threshold"] == 0.5
    assert document["threshold_interval"][0] <= TRUE_THRESHOLD <= document["threshold_interval"][1]


def test_cli_refuses_with_the_field_named(tmp_path):
    path = write_results(tmp_path / "r.jsonl", [0.1, 0.9] * 5, ["fail", "pass"] * 5)
    result = CliRunner().invoke(main, ["calibrate", str(path), "--label", "human"])
    assert result.exit_code == 2
    assert "error: human: 5 pass and 5 fail label(s)" in result.output
    result = CliRunner().invoke(main, ["calibrate", str(path), "--label", "nope"])
    assert result.exit_code == 2 and "label 'nope' is on no case" in result.output


def test_cli_writes_the_threshold_into_a_suite_file(tmp_path):
    scores, labels = synthetic()
    path = write_results(tmp_path / "r.jsonl", scores, labels.tolist())
    suite = tmp_path / "suite.toml"
    suite.write_text('# our agent\nname = "polite"\nthreshold = 0.5  # the pass mark\n\n'
                     '[[check]]\nuse = "relevancy"\nweight = 1\n')
    result = CliRunner().invoke(main, ["calibrate", str(path), "-l", "human", "--resamples", "200",
                                       "--write", str(suite)])
    assert result.exit_code == 0, result.output
    written = json.loads(CliRunner().invoke(main, ["calibrate", str(path), "-l", "human", "--resamples", "200",
                                                   "--json"]).output)["threshold"]
    assert f"wrote threshold = {written!r} to {suite}" in result.output
    assert suite.read_text() == (f'# our agent\nname = "polite"\nthreshold = {written!r}  # the pass mark\n\n'
                                 '[[check]]\nuse = "relevancy"\nweight = 1\n')


def test_cli_writes_only_into_a_valid_suite_file(tmp_path):
    scores, labels = synthetic(n=60)
    path = write_results(tmp_path / "r.jsonl", scores, labels.tolist())
    other = tmp_path / "pyproject.toml"
    other.write_text('[project]\nname = "x"\n')
    result = CliRunner().invoke(main, ["calibrate", str(path), "-l", "human", "--resamples", "50", "--write",
                                       str(other)])
    assert result.exit_code == 2 and "pyproject.toml:1: project: unknown key" in result.output
    assert other.read_text() == '[project]\nname = "x"\n'
