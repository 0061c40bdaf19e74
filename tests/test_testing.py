"""assert_passes / assert_fails for users' own test suites, and the cached-judge fixture."""

from __future__ import annotations

import pytest

from llm_validation_framework.agents.accuracy import AccuracyAgent
from llm_validation_framework.agents.relevancy import RelevancyAgent
from llm_validation_framework.checks.factual import FACTUAL_OPTIONS
from llm_validation_framework.checks.relevancy import RELEVANCY_OPTIONS
from llm_validation_framework.errors import ConfigError, JudgeCallError
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.testing import aassert_passes, assert_fails, assert_passes, format_failure

CASE = {"question": "Where is the Eiffel Tower?", "answer": "The Eiffel Tower is located in Paris, France."}


def judge_for(relevancy: str, factual: str, reason: str = "") -> ScriptedJudge:
    def reply(request):
        label = relevancy if request.check == "relevancy" else factual
        return {"verdict": label, "reason": reason or f"{request.check} says {label}"}
    return ScriptedJudge(reply)


def labels(check: str) -> tuple[str, str]:
    """(best, worst) labels of a check's options."""
    options = RELEVANCY_OPTIONS if check == "relevancy" else FACTUAL_OPTIONS
    return max(options, key=options.get), min(options, key=options.get)


def test_passing_case_returns_the_result():
    good_r, _ = labels("relevancy")
    good_f, _ = labels("factual")
    result = assert_passes(AccuracyAgent(judge=judge_for(good_r, good_f)), CASE)
    assert result.status == "PASS"


def test_failure_message_has_score_threshold_and_each_checks_reason():
    good_r, _ = labels("relevancy")
    _, bad_f = labels("factual")
    agent = AccuracyAgent(judge=judge_for(good_r, bad_f), threshold=0.7)
    with pytest.raises(AssertionError) as info:
        assert_passes(agent, {"question": "Where is the Eiffel Tower?", "answer": "In Rome."})
    message = str(info.value)
    assert message.startswith("AccuracyAgent FAIL: score 0.400 < threshold 0.700")
    assert "relevancy" in message and "factual" in message
    assert f"factual says {bad_f}" in message and f"relevancy says {good_r}" in message
    assert "weight 0.4" in message and "weight 0.6" in message


def test_threshold_override_does_not_change_the_agent():
    good_r, _ = labels("relevancy")
    _, bad_f = labels("factual")
    agent = AccuracyAgent(judge=judge_for(good_r, bad_f))
    assert_passes(agent, CASE, threshold=0.3)  # 0.4 >= 0.3
    with pytest.raises(AssertionError, match="asserted with 0.900"):
        assert_passes(agent, CASE, threshold=0.9)
    assert agent.threshold == 0.5
    with pytest.raises(ConfigError):
        assert_passes(agent, CASE, threshold=1.5)
    with pytest.raises(AssertionError, match="min_score 0.500"):
        assert_passes(agent, CASE, threshold=0.3, min_score=0.5)


def test_unscored_is_a_failure_that_says_why():
    agent = RelevancyAgent(judge=ScriptedJudge([JudgeCallError("503 after retries")]))
    with pytest.raises(AssertionError) as info:
        assert_passes(agent, CASE)
    assert "UNSCORED" in str(info.value) and "503 after retries" in str(info.value)


def test_assert_fails_catches_a_judge_that_lets_a_wrong_answer_through():
    good_r, bad_r = labels("relevancy")
    assert_fails(RelevancyAgent(judge=judge_for(bad_r, "n/a")), CASE)
    with pytest.raises(AssertionError, match="PASS but expected FAIL"):
        assert_fails(RelevancyAgent(judge=judge_for(good_r, "n/a")), CASE)


async def test_async_variant_inside_a_running_loop():
    good_r, _ = labels("relevancy")
    result = await aassert_passes(RelevancyAgent(judge=judge_for(good_r, "n/a")), CASE)
    assert result.passed


def test_format_failure_is_readable_for_long_reasons():
    good_r, _ = labels("relevancy")
    result = RelevancyAgent(judge=judge_for(good_r, "n/a", reason="word " * 200)).evaluate(CASE)
    text = format_failure(result, headline="FAIL")
    assert text.splitlines()[0] == "relevancy FAIL" and len(text.splitlines()[1]) < 400


# lvf_cached_judge comes from the package's pytest11 plugin, as it does in users' suites (no import)
def test_cached_judge_fixture_replays_without_calls(lvf_cached_judge):
    good_r, _ = labels("relevancy")
    first = ScriptedJudge([{"verdict": good_r, "reason": "once"}])
    assert_passes(RelevancyAgent(judge=lvf_cached_judge(first)), CASE)
    empty = ScriptedJudge([])  # would raise ScriptExhaustedError if asked
    result = assert_passes(RelevancyAgent(judge=lvf_cached_judge(empty)), CASE)
    assert result.usage.cached_calls == 1 and result.usage.calls == 0
