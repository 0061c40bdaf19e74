import pytest

from llm_validation_framework import JudgeCallError, ScriptedJudge, ScriptExhaustedError
from llm_validation_framework.judges.base import VerdictRequest

REQ = VerdictRequest(check="t", instructions="i", prompt="p", options={"yes": 1.0, "no": 0.0})


async def test_list_replies_in_order_and_recorded():
    judge = ScriptedJudge(['{"verdict": "yes", "reason": "r"}', {"verdict": "no"}])
    first = await judge.verdict(REQ)
    second = await judge.verdict(REQ)
    assert (first.label, first.score, first.reason) == ("yes", 1.0, "r")
    assert (second.label, second.score, second.method) == ("no", 0.0, "parsed")
    assert judge.requests == [REQ, REQ]


async def test_exhausted_script_fails_loudly():
    judge = ScriptedJudge([{"verdict": "yes"}])
    await judge.verdict(REQ)
    with pytest.raises(ScriptExhaustedError, match="ran out of replies"):
        await judge.verdict(REQ)


async def test_callable_and_probabilities():
    judge = ScriptedJudge(lambda request: {"probabilities": {"yes": 0.8, "no": 0.2}})
    verdict = await judge.verdict(REQ)
    assert verdict.method == "logprobs"
    assert verdict.label == "yes"
    assert verdict.score == pytest.approx(0.8)


async def test_exception_reply_is_raised():
    judge = ScriptedJudge([JudgeCallError("down", status_code=503)])
    with pytest.raises(JudgeCallError):
        await judge.verdict(REQ)


async def test_unknown_label_is_a_script_error():
    judge = ScriptedJudge([{"verdict": "perhaps"}])
    with pytest.raises(ValueError, match="not one of"):
        await judge.verdict(REQ)
