"""response_groundedness: two 0/1/2 templates, unsupported statements from JSON judges or a sentence pass."""

import asyncio
import re

import pytest

from llm_validation_framework.agents.reference import GroundednessAgent
from llm_validation_framework.checks.response_groundedness import ResponseGroundednessCheck
from llm_validation_framework.text.sentences import split_sentences
from llm_validation_framework.errors import ConfigError, InputError, JudgeCallError
from llm_validation_framework.types.inputs import parse_sample
from llm_validation_framework.judges.profile import JudgeProfile
from llm_validation_framework.judges.scripted import ScriptedJudge

CASE = {"question": "Tell me about Einstein's birth.",
        "answer": "Albert Einstein was born in 1879. He was born in Paris.",
        "contexts": ["Albert Einstein was born March 14, 1879.",
                     "Albert Einstein was born at Ulm, in Württemberg, Germany."]}


def statements(text: str) -> list[str]:
    """The answer's sentences as the check judges them (the "lines" rules)."""
    return [s.text for s in split_sentences(text, style="lines")]


def run(data, judge, **kwargs):
    return asyncio.run(ResponseGroundednessCheck(**kwargs).run(parse_sample(data), judge))


def claim(request):
    found = re.findall(r"<claim>\n(.*?)\n</claim>", request.prompt, flags=re.S)
    return found[0] if found else None


def rating_or_support(rating, support):
    """Ratings for the two templates; ``support(claim)`` for sentence support requests."""
    return ScriptedJudge(lambda r: support(claim(r)) if claim(r) is not None else rating(r))


@pytest.mark.parametrize("label, expected", [("0", 0.0), ("1", 0.5), ("2", 1.0)])
def test_zero_one_two_maps_to_unit_interval(label, expected):
    judge = ScriptedJudge(lambda r: {"verdict": label, "unsupported": []})
    assert run(CASE, judge).score == expected


def test_two_templates_over_the_same_passages_and_response():
    judge = ScriptedJudge([{"verdict": "2"}, {"verdict": "1", "unsupported": []}])
    result = run(CASE, judge)
    assert result.score == pytest.approx(0.75)
    first, second = judge.requests
    assert first.prompt.splitlines()[-4] != second.prompt.splitlines()[-4]
    for request in judge.requests:
        assert request.options == {"0": 0.0, "1": 0.5, "2": 1.0}
        assert "unsupported" in request.extra_fields
        assert request.prompt.count("<passage id=") == 2 and CASE["answer"] in request.prompt


def test_fully_grounded_needs_no_explanation_and_two_calls():
    judge = ScriptedJudge([{"verdict": "2"}, {"verdict": "2"}])
    result = run(CASE, judge)
    assert result.score == 1.0 and "unsupported" not in result.details and len(judge.requests) == 2


def test_json_judge_names_unsupported_statements_without_extra_calls():
    judge = ScriptedJudge([
        '{"reason": "Paris is not in the passages", "unsupported": ["He was born in Paris."], "verdict": "1"}',
        '{"reason": "birthplace wrong", "unsupported": ["He was born in Paris.", " "], "verdict": "1"}'])
    result = run(CASE, judge)
    assert result.score == 0.5 and len(judge.requests) == 2
    assert result.details["unsupported"] == ["He was born in Paris."]
    assert result.details["unsupported_source"] == "judge"


def test_probability_judge_gets_a_sentence_pass_naming_the_unsupported_sentence():
    judge = rating_or_support(
        lambda r: {"probabilities": {"0": 0.3, "1": 0.4, "2": 0.3}},
        lambda c: {"probabilities": {"supported": 0.9 if "1879" in c else 0.05, "contradicted": 0.05,
                                     "unverifiable": 0.05 if "1879" in c else 0.9}})
    result = run(CASE, judge)
    assert result.score == pytest.approx(0.5)
    claims = [claim(r) for r in judge.requests if claim(r) is not None]
    assert sorted(claims) == sorted(statements(CASE["answer"]))
    assert result.details["unsupported"] == ["He was born in Paris."]
    assert result.details["judge_calls"] == 4 == result.usage.calls
    assert [row["sentence"] for row in result.details["sentences"]] == statements(CASE["answer"])


def test_sentence_pass_lists_least_supported_when_none_is_below_half():
    judge = rating_or_support(lambda r: {"verdict": "1"},
                              lambda c: {"probabilities": {"supported": 0.6 if "Paris" in c else 0.95,
                                                           "unverifiable": 0.4 if "Paris" in c else 0.05}})
    result = run(CASE, judge)
    assert result.details["unsupported"] == ["He was born in Paris."]
    assert any("least-supported" in note for note in result.notes)


def test_single_sentence_answer_is_itself_the_unsupported_statement():
    judge = ScriptedJudge([{"verdict": "0"}, {"verdict": "0"}])
    result = run(dict(CASE, answer="He was born in Paris."), judge)
    assert len(judge.requests) == 2 and result.details["unsupported"] == ["He was born in Paris."]


def test_sentence_pass_is_capped():
    answer = " ".join(f"Statement number {i} is here." for i in range(5))
    judge = rating_or_support(lambda r: {"verdict": "0"}, lambda c: {"verdict": "unverifiable"})
    result = run(dict(CASE, answer=answer), judge, max_sentences=3)
    assert len(result.details["sentences"]) == 3 and len(judge.requests) == 5
    assert any("limited to the first 3 of 5" in note for note in result.notes)


def test_sentence_support_failure_is_kept_not_counted():
    judge = rating_or_support(lambda r: {"verdict": "1"},
                              lambda c: JudgeCallError("timeout") if "1879" in c else {"verdict": "unverifiable"})
    result = run(CASE, judge)
    assert result.score == 0.5
    assert result.details["unsupported"] == ["He was born in Paris."]
    assert "JudgeCallError" in result.details["sentences"][0]["error"]


def test_one_valid_rating_of_two():
    judge = ScriptedJudge(['{"verdict": "1 or 2"}', {"verdict": "2"}])
    result = run(CASE, judge)
    assert result.score == 1.0 and any("statements_in_passages" in n for n in result.notes)


def test_no_valid_rating_is_unscored_with_raw_replies():
    replies = ["2", "Score: 1/2"]
    result = run(CASE, ScriptedJudge(replies))
    assert result.score is None and result.raw_replies == replies


@pytest.mark.parametrize("data, field", [
    ({"answer": "a"}, "contexts"),
    ({"answer": "a", "contexts": []}, "contexts"),
    ({"answer": "a", "contexts": [" "]}, "contexts"),
    ({"contexts": ["p"]}, "answer"),
])
def test_missing_inputs_raise_input_error_naming_the_field(data, field):
    judge = ScriptedJudge([])
    with pytest.raises(InputError, match=field) as info:
        GroundednessAgent(judge=judge).evaluate(data)
    assert info.value.field == field and judge.requests == []


@pytest.mark.parametrize("kwargs", [{"explain_below": 1.5}, {"max_sentences": 0}])
def test_bad_options_are_config_errors(kwargs):
    with pytest.raises(ConfigError):
        GroundednessAgent(judge=ScriptedJudge([]), **kwargs)


@pytest.mark.parametrize("text, expected", [
    ("One. Two! Three?", ["One.", "Two!", "Three?"]),
    ("Dr. Smith met e.g. Mr. Jones. Then he left.", ["Dr. Smith met e.g. Mr. Jones.", "Then he left."]),
    ("- first item\n- second item", ["first item", "second item"]),
    ("Born in 1879. In Ulm (Germany).", ["Born in 1879.", "In Ulm (Germany)."]),
    ("J. S. Bach was a composer.", ["J. S. Bach was a composer."]),
    ("No end punctuation", ["No end punctuation"]),
])
def test_statements_are_the_lines_sentences(text, expected):
    assert statements(text) == expected


def test_long_passages_are_cut_to_what_the_judge_reads_well_keeping_the_relevant_sentence():
    filler = " ".join(f"Unrelated filler sentence number {i} about gardening." for i in range(60))
    data = {"answer": "The bridge opened in 1932.", "contexts": [filler + " The bridge opened to traffic in 1932."]}
    judge = ScriptedJudge(lambda r: {"verdict": "2"}, profile=JudgeProfile(evidence_chars=300))  # local-model-like
    result = run(data, judge)
    assert result.score == 1.0 and result.details["evidence_trimmed_chars"] > 2000
    assert all("opened to traffic in 1932" in r.prompt and len(r.prompt) < 1500 for r in judge.requests)
    whole = ScriptedJudge(lambda r: {"verdict": "2"})  # an API judge: no hint, everything sent
    run(data, whole)
    assert all("number 59" in r.prompt for r in whole.requests)
