"""Guard: every on_fail action, every judge-failure and timeout policy, re-asks and their limit (offline,
ScriptedJudge)."""

from __future__ import annotations

import asyncio

import pytest

from llm_validation_framework import AccuracyAgent, RAGProvider, RelevancyAgent, ScriptedJudge
from llm_validation_framework.errors import (
    AnswerRejectedError,
    ConfigError,
    GuardError,
    InputError,
    JudgeCallError,
    LVFError,
    UnverifiedAnswerError,
)
from llm_validation_framework.guard import Guard, GuardOutcome, feedback_for
from llm_validation_framework.types.inputs import Sample

QUESTION = "Where is the Eiffel Tower?"
RIGHT = "The Eiffel Tower is in Paris."
WRONG = "Bananas are rich in potassium."
CASE = {"question": QUESTION, "answer": WRONG}


def paris_judge(**kwargs) -> ScriptedJudge:
    """Relevant when the answer names Paris; the reason says so either way."""
    def reply(request):
        if "Paris" in request.prompt:
            return {"verdict": "yes", "reason": "it says where the tower is"}
        return {"verdict": "no", "reason": "the answer talks about bananas, not the tower"}
    return ScriptedJudge(reply, **kwargs)


def down_judge() -> ScriptedJudge:
    return ScriptedJudge(lambda request: JudgeCallError("HTTP 503 from the judge", status_code=503))


def agent(judge=None) -> RelevancyAgent:
    return RelevancyAgent(judge=judge or paris_judge())


class Generator:
    """Answers from a list, recording the feedback it was given."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.feedback: list[str] = []
        self.cases: list[dict] = []

    def __call__(self, case, feedback):
        self.cases.append(case)
        self.feedback.append(feedback)
        return self.answers.pop(0)


# -- a passing answer ------------------------------------------------------------------------------
def test_a_passing_answer_is_shown_as_it_is():
    outcome = Guard(agent()).validate({"question": QUESTION, "answer": RIGHT})
    assert isinstance(outcome, GuardOutcome)
    assert (outcome.answer, outcome.passed, outcome.action, outcome.decided_by) == (RIGHT, True, "pass", "verdict")
    assert outcome.result.status == "PASS" and len(outcome.attempts) == 1 and not outcome.fail_open


# -- on_fail ---------------------------------------------------------------------------------------
def test_raise_carries_the_result():
    with pytest.raises(AnswerRejectedError, match="bananas") as caught:
        Guard(agent(), on_fail="raise").validate(CASE)
    assert isinstance(caught.value, GuardError) and isinstance(caught.value, LVFError)
    assert caught.value.result.status == "FAIL"
    assert caught.value.outcome.action == "raise" and caught.value.outcome.answer is None


def test_fallback_string():
    outcome = Guard(agent(), on_fail="fallback", fallback="I can't answer that.").validate(CASE)
    assert (outcome.answer, outcome.passed, outcome.action) == ("I can't answer that.", False, "fallback")
    assert outcome.result.status == "FAIL" and outcome.attempts[0].answer == WRONG


def test_fallback_function_of_the_result_sync_and_async():
    seen = []

    def fallback(result):
        seen.append(result)
        return f"Sorry ({result.status})"

    async def afallback(result):
        return "async sorry"

    assert Guard(agent(), on_fail="fallback", fallback=fallback).validate(CASE).answer == "Sorry (FAIL)"
    assert seen[0].status == "FAIL"
    assert Guard(agent(), on_fail="fallback", fallback=afallback).validate(CASE).answer == "async sorry"


def test_flag_shows_the_answer_marked():
    outcome = Guard(agent(), on_fail="flag").validate(CASE)
    assert (outcome.answer, outcome.passed, outcome.action, outcome.flagged) == (WRONG, False, "flag", True)


def test_reask_returns_the_second_answer_and_the_feedback_names_the_failed_check():
    generator = Generator(RIGHT)
    outcome = Guard(agent(), on_fail="reask", generator=generator).validate(CASE)
    assert (outcome.answer, outcome.passed, outcome.action) == (RIGHT, True, "reask")
    assert [a.answer for a in outcome.attempts] == [WRONG, RIGHT]
    assert len(generator.feedback) == 1
    assert "relevancy" in generator.feedback[0] and "bananas, not the tower" in generator.feedback[0]
    assert outcome.attempts[0].feedback == generator.feedback[0] and outcome.attempts[1].feedback is None
    assert generator.cases[0]["answer"] == WRONG and outcome.case["answer"] == RIGHT


@pytest.mark.parametrize("max_reasks", [0, 1, 3])
def test_max_reasks_is_honoured_then_the_error(max_reasks):
    generator = Generator(*[WRONG + f" ({i})" for i in range(5)])
    with pytest.raises(AnswerRejectedError) as caught:
        Guard(agent(), on_fail="reask", generator=generator, max_reasks=max_reasks).validate(CASE)
    assert len(generator.feedback) == max_reasks
    assert len(caught.value.outcome.attempts) == max_reasks + 1


def test_spent_reasks_end_in_the_fallback_when_there_is_one():
    generator = Generator(WRONG, WRONG)
    outcome = Guard(agent(), on_fail="reask", generator=generator, max_reasks=2, fallback="fallback").validate(CASE)
    assert (outcome.answer, outcome.action, len(outcome.attempts)) == ("fallback", "fallback", 3)


def test_reask_with_an_async_generator_returning_a_whole_case():
    async def generator(case, feedback):
        await asyncio.sleep(0)
        return {**case, "answer": RIGHT, "metadata": {"regenerated": True}}

    outcome = Guard(agent(), on_fail="reask", generator=generator).validate(CASE)
    assert outcome.passed and outcome.case["metadata"] == {"regenerated": True}


def test_reask_needs_a_generator():
    with pytest.raises(ConfigError, match="generator"):
        Guard(agent(), on_fail="reask").validate(CASE)


def test_a_generator_returning_something_else_is_a_clear_error():
    with pytest.raises(ConfigError, match="new answer"):
        Guard(agent(), on_fail="reask", generator=lambda case, feedback: 42).validate(CASE)


# -- the judge fails: never a silent pass ----------------------------------------------------------
@pytest.mark.parametrize("on_fail, fallback", [("raise", None), ("fallback", "fb"), ("reask", None),
                                                ("reask", "fb"), ("flag", None)])
def test_a_judge_that_is_down_is_never_a_pass(on_fail, fallback):
    generator = Generator(RIGHT)
    guard = Guard(agent(down_judge()), on_fail=on_fail, fallback=fallback, generator=generator)
    if on_fail == "raise" or (on_fail == "reask" and fallback is None):
        with pytest.raises(UnverifiedAnswerError, match="could not be checked") as caught:
            guard.validate(CASE)
        outcome = caught.value.outcome
    else:
        outcome = guard.validate(CASE)
        assert outcome.answer == (WRONG if on_fail == "flag" else "fb")
    assert outcome.passed is False and outcome.fail_open is False
    assert outcome.decided_by == "judge_error" and outcome.result.status == "UNSCORED"
    assert generator.feedback == []  # a new answer would meet the same judge: no re-ask


def test_a_judge_that_is_down_fails_open_only_when_chosen():
    outcome = Guard(agent(down_judge()), on_fail="raise", on_judge_error="fail_open").validate(CASE)
    assert (outcome.answer, outcome.passed, outcome.action, outcome.fail_open) == (WRONG, False, "fail_open", True)
    assert outcome.decided_by == "judge_error" and outcome.flagged
    assert "HTTP 503" in outcome.reason


def test_a_retriever_that_raises_counts_as_the_judge_failing():
    class Broken:
        def invoke(self, query):
            raise OSError("vector store unreachable")

    accuracy = AccuracyAgent(judge=paris_judge(), rag=RAGProvider(Broken()))
    outcome = Guard(accuracy, on_fail="fallback", fallback="fb").validate(CASE)
    assert (outcome.answer, outcome.decided_by, outcome.attempts[0].status) == ("fb", "judge_error", "ERROR")
    assert "RetrievalError" in outcome.reason


# -- timeouts --------------------------------------------------------------------------------------
def test_a_timeout_fails_closed_by_default():
    guard = Guard(agent(paris_judge(delay=2.0)), on_fail="fallback", fallback="fb", timeout=0.05)
    outcome = guard.validate({"question": QUESTION, "answer": RIGHT})
    assert (outcome.answer, outcome.passed, outcome.decided_by, outcome.result) == ("fb", False, "timeout", None)
    assert outcome.attempts[0].status == "TIMEOUT" and "0.05 s" in outcome.reason


def test_a_timeout_raises_unverified_with_on_fail_raise():
    with pytest.raises(UnverifiedAnswerError, match="timeout"):
        Guard(agent(paris_judge(delay=2.0)), timeout=0.05).validate({"question": QUESTION, "answer": RIGHT})


def test_a_timeout_fails_open_only_when_chosen_and_separately_from_judge_errors():
    slow = agent(paris_judge(delay=2.0))
    outcome = Guard(slow, timeout=0.05, on_timeout="fail_open").validate(CASE)
    assert (outcome.answer, outcome.action, outcome.fail_open, outcome.decided_by) == (WRONG, "fail_open", True,
                                                                                       "timeout")
    with pytest.raises(UnverifiedAnswerError):  # open on judge errors is not open on timeouts
        Guard(slow, timeout=0.05, on_judge_error="fail_open").validate(CASE)


def test_a_fast_judge_is_not_cut_by_the_timeout():
    outcome = Guard(agent(), timeout=5).validate({"question": QUESTION, "answer": RIGHT})
    assert outcome.passed and outcome.attempts[0].duration_s < 5


# -- inputs, loops, configuration ------------------------------------------------------------------
async def test_avalidate_inside_a_running_loop_and_validate_refuses_there():
    outcome = await Guard(agent()).avalidate({"question": QUESTION, "answer": RIGHT})
    assert outcome.passed
    with pytest.raises(RuntimeError, match="avalidate"):
        Guard(agent()).validate(CASE)


def test_a_sample_is_a_case_too():
    outcome = Guard(agent(), on_fail="reask", generator=Generator(RIGHT)).validate(Sample(question=QUESTION,
                                                                                           answer=WRONG))
    assert outcome.passed and outcome.case.answer == RIGHT


@pytest.mark.parametrize("case", [{"question": QUESTION}, {"question": QUESTION, "answer": "  "}, "text"])
def test_a_case_without_an_answer_is_an_input_error(case):
    with pytest.raises(InputError, match="answer|case dict"):
        Guard(agent()).validate(case)


@pytest.mark.parametrize("kwargs, match", [
    ({"on_fail": "refrain"}, "on_fail"),
    ({"on_fail": "fallback"}, "fallback="),
    ({"fallback": 3}, "fallback"),
    ({"max_reasks": -1}, "max_reasks"),
    ({"max_reasks": True}, "max_reasks"),
    ({"timeout": 0}, "timeout"),
    ({"timeout": "1"}, "timeout"),
    ({"on_timeout": "open"}, "on_timeout"),
    ({"on_judge_error": "closed"}, "on_judge_error"),
    ({"generator": "gpt"}, "generator"),
])
def test_bad_settings_name_the_field(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        Guard(agent(), **kwargs)


def test_the_agent_must_be_an_agent():
    with pytest.raises(ConfigError, match="agent must be an Agent"):
        Guard(ScriptedJudge([]))


def test_feedback_lists_the_failed_checks_and_a_veto():
    judge = ScriptedJudge(lambda request: {"relevancy": {"verdict": "yes", "reason": "on topic"},
                                           "factual": {"verdict": "incorrect", "reason": "it is in Paris"}}[
                                               request.check])
    result = AccuracyAgent(judge=judge).evaluate({"question": QUESTION, "answer": "It is in Rome."})
    text = feedback_for(result)
    assert "factual (score 0.00): it is in Paris" in text and "relevancy (score" not in text
    assert text.endswith("Write a new answer that fixes these problems.")


def test_outcome_to_dict_is_plain_data():
    import json

    outcome = Guard(agent(), on_fail="reask", generator=Generator(RIGHT)).validate(CASE)
    data = json.loads(json.dumps(outcome.to_dict()))
    assert data["action"] == "reask" and [a["status"] for a in data["attempts"]] == ["FAIL", "PASS"]
