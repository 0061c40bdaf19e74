"""AccuracyAgent with passages: an answer they do not support fails, however relevant it is."""

from __future__ import annotations

import json

import pytest

from llm_validation_framework import AccuracyAgent, JudgeProfile, ScriptedJudge

CASE = {"question": "Who founded Acme Robotics according to our docs?",
        "answer": "Acme Robotics was founded by Tom Baker in 1995.",
        "contexts": ["Acme Robotics was founded in 2010 by Jane Smith, a former NASA engineer."]}


def judge(support_label: str) -> ScriptedJudge:
    """On topic for relevancy; ``support_label`` for support; blends support with word overlap as the
    local judge does, so an unsupported claim that shares the passages' words keeps a partial score."""
    def reply(request):
        if "supported" not in request.labels:
            return json.dumps({"verdict": request.labels[0], "reason": "scripted"})
        probabilities = dict.fromkeys(request.labels, 0.02)
        probabilities[support_label] = 0.96
        return {"probabilities": probabilities}  # read from probabilities, as the local judge does

    return ScriptedJudge(reply, profile=JudgeProfile(support_overlap_weight=0.5))


def test_a_relevant_answer_the_passages_do_not_support_fails_with_a_note():
    # every fact of this answer is in the passage (overlap may lift it), yet the judge finds no support
    case = {**CASE, "answer": "Acme Robotics was founded by a NASA engineer in its first year."}
    result = AccuracyAgent(judge=judge("unverifiable")).evaluate(case)
    factual = next(r for r in result.checks if r.name == "factual")
    assert 0.5 * 0.4 < factual.score < 0.5  # the overlap blend alone
    assert result.score >= 0.5  # 0.4 x relevancy + 0.6 x factual: the formula would pass it
    assert result.status == "FAIL"
    assert any("passages do not support the answer" in note for note in result.notes)


def test_a_contradicted_answer_keeps_the_judges_score_whatever_its_overlap():
    result = AccuracyAgent(judge=judge("contradicted")).evaluate(CASE)
    factual = next(r for r in result.checks if r.name == "factual")
    assert factual.details["label"] == "contradicted"
    assert factual.score == pytest.approx(0.02)  # P(supported): the overlap blend may only lower it
    assert result.status == "FAIL"


def test_the_veto_leaves_supported_answers_to_the_score():
    supported = AccuracyAgent(judge=judge("supported")).evaluate(CASE)
    assert supported.status == "PASS" and not any("do not support" in n for n in supported.notes)
    no_passages = {"question": CASE["question"], "answer": CASE["answer"]}
    knowledge = AccuracyAgent(judge=judge("contradicted")).evaluate(no_passages)
    assert not any("do not support" in n for n in knowledge.notes)


REFERENCE_CASE = {"question": "What is the boiling point of water at sea level?",
                  "answer": "Water boils at 50 degrees Celsius at sea level.", "reference": "100 degrees Celsius"}


def reference_judge(wrong: float, half: float, right: float) -> ScriptedJudge:
    """Fully relevant; the answer against the reference rated 0 / 2 / 4 with these probabilities."""
    def reply(request):
        if request.check == "answer_accuracy":
            return {"probabilities": {"0": wrong, "2": half, "4": right}}
        return json.dumps({"verdict": request.labels[0], "reason": "scripted"})

    return ScriptedJudge(reply)


def test_a_relevant_answer_the_reference_contradicts_fails_with_a_note():
    result = AccuracyAgent(judge=reference_judge(0.5, 0.3, 0.2)).evaluate(REFERENCE_CASE)
    accuracy = next(r for r in result.checks if r.name == "answer_accuracy")
    assert accuracy.score == pytest.approx(0.35)
    assert result.score >= 0.5  # 0.4 x relevancy + 0.6 x 0.35: the formula alone would pass it
    assert result.status == "FAIL"
    assert any("does not match the reference" in note for note in result.notes)


def test_the_reference_veto_follows_the_threshold_and_spares_right_answers():
    right = AccuracyAgent(judge=reference_judge(0.02, 0.02, 0.96)).evaluate(REFERENCE_CASE)
    assert right.status == "PASS" and not any("reference" in n for n in right.notes)
    lenient = AccuracyAgent(judge=reference_judge(0.5, 0.3, 0.2), threshold=0.3).evaluate(REFERENCE_CASE)
    assert lenient.status == "PASS"  # the rating clears a threshold of 0.3, so nothing vetoes it


def knowledge_judge(p_correct: float) -> ScriptedJudge:
    """Fully relevant; the judge's own knowledge calls the answer correct with ``p_correct``."""
    def reply(request):
        if request.check == "factual":
            correct, wrong = request.labels[0], request.labels[-1]
            return {"probabilities": {correct: p_correct, wrong: 1.0 - p_correct}}
        return json.dumps({"verdict": request.labels[0], "reason": "scripted"})

    return ScriptedJudge(reply)


def test_without_passages_or_reference_a_relevant_answer_the_judge_calls_wrong_fails_too():
    case = {"question": "How many legs does a spider have?", "answer": "A spider has six legs."}
    wrong = AccuracyAgent(judge=knowledge_judge(0.3)).evaluate(case)
    assert wrong.score >= 0.5 and wrong.status == "FAIL"  # 0.4 + 0.6 x 0.3 would pass without the rule
    assert any("finds the answer incorrect" in note for note in wrong.notes)
    right = AccuracyAgent(judge=knowledge_judge(0.9)).evaluate(case)
    assert right.status == "PASS" and not any("incorrect" in note for note in right.notes)
