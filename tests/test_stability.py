"""Median-of-N runs: median score, spread, the unstable flag, unscored runs, and Agent(repeats=N)."""

import asyncio

import pytest

from llm_validation_framework.agents.accuracy import AccuracyAgent
from llm_validation_framework.agents.reference import AnswerAccuracyAgent
from llm_validation_framework.agents.stability import run_repeated, stability_summary
from llm_validation_framework.checks.base import Check
from llm_validation_framework.errors import ConfigError
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.types.inputs import parse_sample
from llm_validation_framework.types.results import CheckResult
from llm_validation_framework.types.usage import Usage

SAMPLE = parse_sample({"question": "q?", "answer": "a", "reference": "a"})


class SequenceCheck(Check):
    """Returns the given scores one per run (None = unscored)."""

    name = "seq"

    def __init__(self, scores):
        self.scores = list(scores)
        self.runs = 0

    async def run(self, sample, judge):
        score = self.scores[self.runs]
        self.runs += 1
        if score is None:
            return CheckResult.unscored(self.name, "judge failed", raw_replies=[f"bad {self.runs}"],
                                        usage=Usage(calls=1))
        return CheckResult(self.name, score, reason=f"run {self.runs}", usage=Usage(calls=1))


def repeated(scores, repeats, threshold=0.5):
    check = SequenceCheck(scores)
    return check, asyncio.run(run_repeated(check, SAMPLE, ScriptedJudge([]), repeats, threshold))


def test_median_spread_and_unstable_when_runs_straddle_the_threshold():
    check, result = repeated([0.4, 0.7, 0.55], 3)
    stability = result.details["stability"]
    assert check.runs == 3 and result.usage.calls == 3
    assert result.score == 0.55 and result.reason == "run 3"
    assert stability["scores"] == [0.4, 0.7, 0.55]
    assert stability["spread"] == pytest.approx(0.3)
    assert stability["unstable"] is True
    assert any(note.startswith("unstable") for note in result.notes)


def test_stable_when_all_runs_on_the_same_side():
    _, result = repeated([0.6, 0.9, 0.75, 0.8, 0.7], 5)
    assert result.score == 0.75 and result.details["stability"]["unstable"] is False
    assert not any(note.startswith("unstable") for note in result.notes)


def test_threshold_exactly_at_a_score_counts_as_pass():
    assert stability_summary([0.5, 0.6, 0.7], 0.5)["unstable"] is False
    assert stability_summary([0.49, 0.6, 0.7], 0.5)["unstable"] is True


def test_deterministic_judge_gives_zero_spread():
    _, result = repeated([0.8, 0.8, 0.8], 3)
    assert result.details["stability"]["spread"] == 0 and result.details["stability"]["unstable"] is False


def test_unscored_runs_are_left_out_and_counted():
    _, result = repeated([0.2, None, 0.4], 3)
    stability = result.details["stability"]
    assert result.score == pytest.approx(0.3) and stability["unscored_runs"] == 1
    assert stability["unstable"] is False
    assert any("1 of 3 runs unscored" in note for note in result.notes)


def test_all_runs_unscored_stays_unscored_with_every_raw_reply():
    _, result = repeated([None, None, None], 3)
    assert result.score is None and result.raw_replies == ["bad 1", "bad 2", "bad 3"]
    assert result.usage.calls == 3 and result.details["stability"]["unscored_runs"] == 3


@pytest.mark.parametrize("repeats", [0, 2, -1, True])
def test_repeats_must_be_odd_positive(repeats):
    with pytest.raises(ValueError):
        asyncio.run(run_repeated(SequenceCheck([0.5] * 3), SAMPLE, ScriptedJudge([]), repeats, 0.5))
    with pytest.raises(ConfigError):
        AnswerAccuracyAgent(judge=ScriptedJudge([]), repeats=repeats)


def test_agent_repeats_runs_the_check_n_times_and_reports_stability():
    # three runs of the two templates: (4,4) (0,2) (4,2) -> 1.0, 0.25, 0.75 -> median 0.75, unstable at 0.5
    replies = [{"verdict": v} for v in ("4", "4", "0", "2", "4", "2")]
    judge = ScriptedJudge(replies)
    result = AnswerAccuracyAgent(judge=judge, repeats=3).evaluate({"question": "q?", "answer": "a", "reference": "b"})
    check = result.check("answer_accuracy")
    assert len(judge.requests) == 6 and check.usage.calls == 6
    assert check.details["stability"]["scores"] == [1.0, 0.25, 0.75]
    assert result.score == 0.75 and result["status"] == "PASS"
    assert check.details["stability"]["unstable"] is True
    assert result.unstable is True and result["stability"]["unstable"] is True
    assert (result.stability["low"], result.stability["high"]) == (0.25, 1.0)
    assert any(note.startswith("unstable:") for note in result.notes)


def test_agent_stability_weighs_each_checks_range_and_is_stable_when_all_runs_agree():
    # relevancy yes,yes,yes (1.0 each); factual correct, partly, correct (1, 0.5, 1): combined 0.7..1.0
    def reply(request):
        if request.check == "relevancy":
            return {"verdict": "yes"}
        reply.factual += 1
        return {"verdict": "partly" if reply.factual == 2 else "correct"}
    reply.factual = 0
    result = AccuracyAgent(judge=ScriptedJudge(reply), repeats=3).evaluate({"question": "q?", "answer": "a"})
    assert result.stability["low"] == pytest.approx(0.4 * 1.0 + 0.6 * 0.5)
    assert result.stability["high"] == pytest.approx(1.0)
    assert result.unstable is False and not any(n.startswith("unstable") for n in result.notes)
    assert AccuracyAgent(judge=ScriptedJudge(reply)).evaluate({"question": "q?", "answer": "a"}).stability is None
