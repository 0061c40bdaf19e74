"""The three reference agents share AccuracyAgent's surface, and their scales suit the local judge."""

import asyncio

import pytest

from llm_validation_framework.agents.reference import AnswerAccuracyAgent, ContextRelevanceAgent, GroundednessAgent
from llm_validation_framework.checks.answer_accuracy import AnswerAccuracyCheck
from llm_validation_framework.checks.context_relevance import ContextRelevanceCheck
from llm_validation_framework.checks.response_groundedness import ResponseGroundednessCheck
from llm_validation_framework.errors import ConfigError
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.types.inputs import parse_sample
from llm_validation_framework.types.progress import ProgressEvent

CASE = {"question": "When was Einstein born?", "answer": "He was born in 1879.", "reference": "1879",
        "contexts": ["Albert Einstein was born March 14, 1879."]}
TOP = {"answer_accuracy": "4", "context_relevance": "2", "response_groundedness": "2"}


@pytest.mark.parametrize("agent_class", [AnswerAccuracyAgent, ContextRelevanceAgent, GroundednessAgent])
def test_same_surface_as_accuracy_agent(agent_class):
    judge = ScriptedJudge(lambda r: {"verdict": TOP[r.check], "reason": "fine"})
    events: list[ProgressEvent] = []
    agent = agent_class(judge=judge, threshold=0.9)
    result = agent.evaluate(CASE, on_progress=events.append)
    assert result["status"] == "PASS" and result["score"] == 1.0 and result["threshold"] == 0.9
    assert result["reason"].endswith("(1.00): fine; fine")
    assert len(result.checks) == 1 and result.checks[0].weight == 1.0
    assert [e.stage for e in events] == ["check_started", "check_finished"]
    assert asyncio.run(agent.aevaluate(CASE)).score == 1.0
    with pytest.raises(ConfigError):
        agent.update_threshold(2)
    assert agent.threshold == 0.9
    agent.update_threshold(0.2)
    assert agent.threshold == 0.2


def test_agent_options_reach_their_checks():
    assert ContextRelevanceAgent(judge=ScriptedJudge([]), per_passage=False).check.per_passage is False
    agent = GroundednessAgent(judge=ScriptedJudge([]), explain_below=0.5, max_sentences=3)
    assert (agent.check.explain_below, agent.check.max_sentences) == (0.5, 3)
    assert AnswerAccuracyAgent(judge=ScriptedJudge([]), prefer_reason=False).check.prefer_reason is False


def test_every_template_request_has_labels_the_local_judge_can_read():
    # LocalJudge reads only the first answer token: every scale's labels must start differently
    from llm_validation_framework.judges.local import build_chat_prompt, check_labels

    judge = ScriptedJudge(lambda r: {"verdict": r.labels[-1]} if "supported" not in r.options
                          else {"verdict": "supported"})
    sample = parse_sample(CASE)
    for check in (AnswerAccuracyCheck(), ContextRelevanceCheck(), ResponseGroundednessCheck()):
        asyncio.run(check.run(sample, judge))
    assert len(judge.requests) == 2 + 2 + 2
    for request in judge.requests:
        check_labels(request.labels)
        # short prompts: every token costs the small local model CPU time
        assert len(build_chat_prompt(request)) < 1500
