"""context_relevance: all-passages template + per-passage template (max), 0/1/2 ratings, calls per case."""

import asyncio
import re

import pytest

from llm_validation_framework.agents.reference import ContextRelevanceAgent
from llm_validation_framework.checks.context_relevance import ContextRelevanceCheck
from llm_validation_framework.errors import ConfigError, InputError, JudgeCallError
from llm_validation_framework.types.inputs import Passage, parse_sample
from llm_validation_framework.judges.profile import JudgeProfile
from llm_validation_framework.judges.scripted import ScriptedJudge

EINSTEIN = {"question": "When and where was Albert Einstein born?",
            "contexts": ["Albert Einstein was born March 14, 1879.",
                         "The Eiffel Tower is in Paris.",
                         "Albert Einstein was born at Ulm, in Württemberg, Germany."]}


def is_all(request):
    return "How relevant are the passages" in request.prompt


def passages_in(request):
    return re.findall(r'<passage id="([^"]+)">', request.prompt)


def run(data, judge, **kwargs):
    return asyncio.run(ContextRelevanceCheck(**kwargs).run(parse_sample(data), judge))


def scripted(all_reply, per_passage):
    """Template 1 gets ``all_reply``; template 2 gets ``per_passage(passage_text)``."""
    def reply(request):
        if is_all(request):
            return all_reply
        return per_passage(request.prompt)
    return ScriptedJudge(reply)


def einstein_only(prompt):
    return {"verdict": "2"} if "Einstein" in prompt.split("</question>")[1] else {"verdict": "0"}


def test_overall_is_mean_of_all_passages_rating_and_best_passage():
    judge = scripted({"verdict": "1"}, einstein_only)
    result = run(EINSTEIN, judge)
    assert result.score == pytest.approx((0.5 + 1.0) / 2)
    assert [row["score"] for row in result.details["per_passage"]] == [1.0, 0.0, 1.0]
    assert result.details["off_topic"] == ["2"]
    assert result.details["judge_calls"] == 4 == len(judge.requests)


def test_each_per_passage_request_holds_one_passage_and_the_first_holds_all():
    judge = scripted({"verdict": "2"}, einstein_only)
    run(EINSTEIN, judge)
    whole = [r for r in judge.requests if is_all(r)]
    single = [r for r in judge.requests if not is_all(r)]
    assert len(whole) == 1 and passages_in(whole[0]) == ["1", "2", "3"]
    assert sorted(passages_in(r)[0] for r in single) == ["1", "2", "3"]
    assert all(len(passages_in(r)) == 1 for r in single)
    assert whole[0].prompt.splitlines()[-4] != single[0].prompt.splitlines()[-4]


@pytest.mark.parametrize("label, expected", [("0", 0.0), ("1", 0.5), ("2", 1.0)])
def test_zero_one_two_maps_to_unit_interval(label, expected):
    result = run(EINSTEIN, ScriptedJudge(lambda r: {"verdict": label}))
    assert result.score == expected


def test_single_passage_costs_exactly_two_calls_like_the_seed():
    judge = scripted({"verdict": "2"}, lambda p: {"verdict": "1"})
    result = run({"question": "q?", "contexts": ["one passage"]}, judge)
    assert len(judge.requests) == 2 and result.score == pytest.approx(0.75)


def test_per_passage_off_asks_two_templates_over_all_passages():
    judge = ScriptedJudge([{"verdict": "2"}, {"verdict": "0"}])
    result = run(EINSTEIN, judge, per_passage=False)
    assert len(judge.requests) == 2 and result.score == 0.5
    assert all(passages_in(r) == ["1", "2", "3"] for r in judge.requests)
    assert "per_passage" not in result.details


def test_probabilities_give_expected_rating():
    judge = ScriptedJudge(lambda r: {"probabilities": {"0": 0.2, "1": 0.2, "2": 0.6}})
    result = run({"question": "q?", "contexts": ["p"]}, judge)
    assert result.method == "logprobs" and result.score == pytest.approx(0.7)


def test_all_passages_template_invalid_keeps_per_passage_rating():
    judge = scripted('{"verdict": "two"}', einstein_only)
    result = run(EINSTEIN, judge)
    assert result.score == 1.0
    assert any("all_passages" in note for note in result.notes)


def test_every_per_passage_call_failing_keeps_all_passages_rating():
    judge = scripted({"verdict": "1"}, lambda p: JudgeCallError("timeout"))
    result = run(EINSTEIN, judge)
    assert result.score == 0.5
    assert any("per_passage_max" in note for note in result.notes)
    assert all(row["score"] is None for row in result.details["per_passage"])


def test_some_passages_unrated_are_named_and_left_out_of_the_max():
    judge = scripted({"verdict": "0"}, lambda p: JudgeCallError("503") if "Ulm" in p else {"verdict": "1"})
    result = run(EINSTEIN, judge)
    assert result.score == pytest.approx((0.0 + 0.5) / 2)
    assert any("3" in note and "without a valid rating" in note for note in result.notes)


def test_no_valid_rating_is_unscored_with_raw_replies():
    judge = ScriptedJudge(lambda r: "relevance 2 out of 2, maybe 1")
    result = run(EINSTEIN, judge)
    assert result.score is None and len(result.raw_replies) == 4
    assert ContextRelevanceAgent(judge=judge).evaluate(EINSTEIN)["status"] == "UNSCORED"


def test_blank_passage_is_rated_zero_without_a_call():
    judge = scripted({"verdict": "2"}, lambda p: {"verdict": "2"})
    result = run({"question": "q?", "contexts": ["relevant text", "   "]}, judge)
    assert len(judge.requests) == 2
    assert result.details["per_passage"][1] == {"id": "2", "score": 0.0, "label": None, "method": "deterministic",
                                                "reason": "blank passage"}
    assert result.details["off_topic"] == ["2"] and result.score == 1.0


@pytest.mark.parametrize("data, field", [
    ({"question": "q?"}, "contexts"),
    ({"question": "q?", "contexts": []}, "contexts"),
    ({"question": "q?", "contexts": ["", "  "]}, "contexts"),
    ({"contexts": ["p"]}, "question"),
])
def test_missing_or_empty_contexts_raise_input_error(data, field):
    judge = ScriptedJudge([])
    with pytest.raises(InputError, match=field) as info:
        ContextRelevanceAgent(judge=judge).evaluate(data)
    assert info.value.field == field and judge.requests == []


def test_agent_uses_rag_passages_when_the_case_has_none():
    class FakeRAG:
        def __init__(self):
            self.queries = []

        async def aretrieve(self, query):
            self.queries.append(query)
            return [Passage("7", "Albert Einstein was born in Ulm.")]

    rag = FakeRAG()
    judge = ScriptedJudge(lambda r: {"verdict": "2"})
    agent = ContextRelevanceAgent(judge=judge, rag=rag, threshold=0.7)
    result = agent.evaluate({"question": "Where was Einstein born?"})
    assert rag.queries == ["Where was Einstein born?"]
    assert result["status"] == "PASS" and result.checks[0].details["per_passage"][0]["id"] == "7"


def test_agent_threshold_and_update_threshold():
    judge = scripted({"verdict": "1"}, lambda p: {"verdict": "1"})
    agent = ContextRelevanceAgent(judge=judge, threshold=0.6)
    assert agent.evaluate(EINSTEIN)["status"] == "FAIL"
    agent.update_threshold(0.5)
    assert agent.evaluate(EINSTEIN)["status"] == "PASS"


def test_a_judge_that_prefers_yes_no_gets_a_yes_no_question_per_passage():
    def reply(request):
        if is_all(request):
            return {"verdict": "2"}
        assert list(request.options) == ["yes", "no"]
        return {"probabilities": {"yes": 0.9 if "Einstein" in request.prompt.split("<passage")[1] else 0.1,
                                  "no": 0.1 if "Einstein" in request.prompt.split("<passage")[1] else 0.9}}
    judge = ScriptedJudge(reply, profile=JudgeProfile(prefers_yes_no=True))  # what LocalJudge says of itself
    result = run(EINSTEIN, judge)
    rows = {row["id"]: row for row in result.details["per_passage"]}
    assert rows["2"]["score"] == pytest.approx(0.1) and result.details["off_topic"] == ["2"]
    assert result.score == pytest.approx((1.0 + 0.9) / 2)
    # told explicitly, the check asks the seed's 0/1/2 rating whatever the judge prefers
    rating = ScriptedJudge(lambda r: {"verdict": "2"}, profile=JudgeProfile(prefers_yes_no=True))
    assert run(EINSTEIN, rating, passage_verdict="rating").score == 1.0
    assert all(list(r.options) == ["0", "1", "2"] for r in rating.requests)
    with pytest.raises(ConfigError, match="passage_verdict"):
        ContextRelevanceCheck(passage_verdict="maybe")


def test_head_decided_passages_score_alone_and_the_set_rating_is_only_reported():
    from llm_validation_framework.judges.base import Verdict

    def reply(request):
        if is_all(request):
            return {"verdict": "0"}
        p = 0.9 if "Einstein" in request.prompt.split("</question>")[1] else 0.1
        return Verdict(label="2" if p > 0.5 else "0", score=p, method="head")

    result = run(EINSTEIN, ScriptedJudge(reply), passage_verdict="rating")
    assert result.score == pytest.approx(0.9)  # not (0 + 0.9) / 2
    assert result.details["score_from"] == "per_passage_max (learned head)"
    assert result.details["ratings"][0]["score"] == 0.0  # the set's rating is still asked and shown


def test_one_passage_not_decided_by_a_head_keeps_the_mean_of_both_templates():
    from llm_validation_framework.judges.base import Verdict

    def reply(request):
        if is_all(request):
            return {"verdict": "0"}
        if "Eiffel" in request.prompt:
            return {"verdict": "0"}
        return Verdict(label="2", score=0.9, method="head")

    result = run(EINSTEIN, ScriptedJudge(reply), passage_verdict="rating")
    assert result.score == pytest.approx((0.0 + 0.9) / 2)
    assert "score_from" not in result.details


def test_requests_without_a_judge_ask_the_rating_form():
    asked = ContextRelevanceCheck().requests(parse_sample(EINSTEIN))
    assert [list(request.options) for _, request in asked[1:]] == [["0", "1", "2"]] * (len(asked) - 1)
