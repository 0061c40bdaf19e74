"""The shared support judgement: evidence budget from the judge's profile, overlap blend only for probabilities."""

import pytest

from llm_validation_framework import JudgeProfile, ScriptedJudge
from llm_validation_framework.checks.support import SupportCheck, evidence_budget, judge_support
from llm_validation_framework.types.inputs import Passage, parse_sample

PASSAGES = [Passage("1", "The Eiffel Tower was completed in 1889 for the World Fair in Paris."),
            Passage("2", "It is 330 metres tall.")]


def judge_with(reply, **profile):
    return ScriptedJudge(lambda request: reply, profile=JudgeProfile(**profile))


async def test_probability_is_blended_with_overlap_when_the_judge_asks():
    judge = judge_with({"probabilities": {"supported": 0.2, "contradicted": 0.1, "unverifiable": 0.7}},
                       support_overlap_weight=0.5)
    outcome = await judge_support(judge, "The Eiffel Tower was completed in 1889.", PASSAGES)
    assert outcome.overlap == pytest.approx(1.0)
    # the mix 0.6 is within the 0.9 the judge left off "contradicted"
    assert outcome.score == pytest.approx(0.5 * 0.2 + 0.5 * 1.0)


async def test_overlap_never_lifts_a_contradicted_verdict():
    judge = judge_with({"probabilities": {"supported": 0.2, "contradicted": 0.5, "unverifiable": 0.3}},
                       support_overlap_weight=0.6)
    outcome = await judge_support(judge, "The Eiffel Tower was completed in 1889.", PASSAGES)
    assert outcome.overlap == pytest.approx(1.0)
    assert outcome.verdict.label == "contradicted" and outcome.score == pytest.approx(0.2)
    assert not outcome.supported


async def test_no_blend_by_default_or_for_written_labels():
    plain = await judge_support(judge_with({"probabilities": {"supported": 0.2, "contradicted": 0.8}}),
                                "The Eiffel Tower was completed in 1889.", PASSAGES)
    assert plain.score == pytest.approx(0.2) and plain.overlap is None
    parsed = await judge_support(judge_with({"verdict": "contradicted"}, support_overlap_weight=0.5),
                                 "The Eiffel Tower was completed in 1889.", PASSAGES)
    assert parsed.score == 0.0 and parsed.overlap is None


async def test_evidence_is_cut_to_the_judge_budget_keeping_passage_ids():
    long_passage = Passage("7", " ".join(f"Filler sentence number {i} about nothing." for i in range(80))
                           + " The tower opened in 1889.")
    judge = judge_with({"verdict": "supported"}, evidence_chars=300)
    outcome = await judge_support(judge, "The tower opened in 1889.", [long_passage])
    prompt = judge.requests[0].prompt
    assert outcome.trimmed_chars > 0 and 'id="7"' in prompt and "opened in 1889" in prompt
    assert len(prompt) < 900


def test_evidence_budget_takes_the_smallest_limit():
    judge = judge_with({"verdict": "supported"}, evidence_chars=600)
    assert evidence_budget(judge) == 600
    assert evidence_budget(judge, 200) == 200
    assert evidence_budget(ScriptedJudge([])) is None


async def test_support_check_reports_blend_and_trim_in_notes():
    judge = judge_with({"probabilities": {"supported": 0.9, "contradicted": 0.05, "unverifiable": 0.05}},
                       support_overlap_weight=0.5)
    sample = parse_sample({"answer": "It is 330 metres tall.", "contexts": [p.text for p in PASSAGES]})
    result = await SupportCheck().run(sample, judge)
    assert result.score == pytest.approx(0.95)  # min(0.5 x 0.9 + 0.5 x 1.0, 1 - P(contradicted) 0.05)
    assert any("blends" in note for note in result.notes)
    assert result.details["p_supported"] == pytest.approx(0.9)
