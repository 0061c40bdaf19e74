"""A near-copy of a passage with one fact changed is found, and scored contradicted where the judge asks.

The rule must catch the changed fact (a number, a month, a name, an opposite, a negation) and leave
alone what a paraphrase or an added detail looks like, since it overrides the judge's own reading.
"""

import pytest

from llm_validation_framework import AccuracyAgent, JudgeProfile, ScriptedJudge
from llm_validation_framework.checks.answer_accuracy import AnswerAccuracyCheck
from llm_validation_framework.checks.support import SupportCheck
from llm_validation_framework.text.substitution import find_substitution, unstated_facts
from llm_validation_framework.types.inputs import parse_sample

PASSAGE = ("The Harbour Bridge opened to traffic on 19 March 1932. The project was led by Dr. Amara Okafor. "
           "The e-bike has a 500 Wh battery and a range of 90 km. It comes with a two-year warranty. "
           "Sales rose by 12% in the northern region, to 1.5 million units.")


@pytest.mark.parametrize("claim, kind, said, given", [
    ("The e-bike has a 900 Wh battery and a range of 90 km.", "number", "900", "500"),
    ("The Harbour Bridge opened to traffic on 19 March 1952.", "number", "1952", "1932"),
    ("The project was led by Dr. Peter Okafor.", "name", "Peter", "Amara"),
    ("It comes with a ten-year warranty.", "number", "ten", "two"),
    ("The Harbour Bridge opened to traffic on 19 May 1932.", "month", "May", "March"),
    ("Sales rose by 12% in the southern region, to 1.5 million units.", "opposite", "southern", "northern"),
    ("It does not come with a two-year warranty.", "negation", "does not come", "it comes"),
])
def test_a_copy_with_one_fact_changed_is_found(claim, kind, said, given):
    found = find_substitution(claim, [PASSAGE])
    assert found is not None and (found.kind, found.claim_says, found.passage_says) == (kind, said, given)
    assert given in found.describe() and said in found.describe()


SONG = ("Raindrops was recorded in 1969. It sold two million copies. The single by B. J. Thomas topped the "
        "chart. Article 20 of the US-China Tax Treaty exempts visiting students.")


@pytest.mark.parametrize("claim, said, given", [
    ("The single by B.J. Patricia topped the chart.", "Patricia", "Thomas"),  # initials written together
    # the name stands in another sentence than the one copied: the initial beside it ties it to its place
    ("B.J. Patricia recorded Raindrops in 1969, selling two million copies.", "Patricia", "Thomas"),
    ("Article 20 of the US-Japan Tax Treaty exempts visiting students.", "Japan", "China"),  # a joined name
])
def test_a_changed_name_after_initials_or_a_hyphen_is_found(claim, said, given):
    found = find_substitution(claim, [SONG])
    assert found is not None and (found.kind, found.claim_says, found.passage_says) == ("name", said, given)


@pytest.mark.parametrize("claim", [
    "The e-bike has a 500 Wh battery and a range of 90 km.",  # the copy itself
    "The Harbour Bridge opened on 19 March 1932, and Dr. Amara Okafor led the project.",
    "It comes with a 2-year warranty.",  # a digit for a number word
    "Sales rose by 12% in the northern region, to 1,500,000 units.",  # the same number written out
    "Sales rose to more than a million units in the northern region.",  # a bound the passage meets
    "Sales rose by about 10% in the northern region.",  # an approximation
    "The e-bike has a 500 Wh battery, a range of 90 km and weighs 22 kg.",  # an added detail, not a changed one
    "The bridge [1] opened to traffic on 19 March 1932 [2].",  # citation markers are no numbers
    "No, the e-bike has a 500 Wh battery and a range of 90 km.",  # an answer's "No" negates no copied word
    "The battery of the e-bike is large.",  # no fact to compare
])
def test_a_faithful_copy_a_paraphrase_or_an_addition_is_not(claim):
    assert find_substitution(claim, [PASSAGE]) is None


def test_every_sentence_of_an_answer_is_compared():
    answer = "The Harbour Bridge opened to traffic on 19 March 1932. The e-bike has a 700 Wh battery."
    found = find_substitution(answer, [PASSAGE])
    assert found is not None and found.claim_says == "700"


def test_a_claim_that_copies_nothing_is_left_to_the_judge():
    assert find_substitution("Bridges in 1950 were built by Peter.", [PASSAGE]) is None
    assert find_substitution("", [PASSAGE]) is None and find_substitution("A claim.", []) is None


def test_the_facts_a_claim_adds_are_named():
    assert unstated_facts("The e-bike, sold in June by Voltra, has a 500 Wh battery and weighs 22 kg.",
                          [PASSAGE]) == ["22", "June", "Voltra"]
    assert unstated_facts("Sales rose by about 10% in the northern region.", [PASSAGE]) == []


def unverifiable_judge(request):
    probabilities = dict.fromkeys(request.labels, 0.05)
    probabilities["unverifiable" if "unverifiable" in request.labels else request.labels[0]] = 0.9
    return {"probabilities": probabilities}


async def test_overlap_lifts_a_copy_but_not_a_claim_with_a_fact_the_passages_lack():
    judge = ScriptedJudge(unverifiable_judge, profile=JudgeProfile(support_overlap_weight=0.6))
    copy = await SupportCheck().run(parse_sample({"answer": "The e-bike has a 500 Wh battery and a range of 90 km.",
                                                  "contexts": [PASSAGE]}), judge)
    added = await SupportCheck().run(parse_sample({"answer": "The e-bike has a 500 Wh battery and a range of 90 km "
                                                             "in Oslo.", "contexts": [PASSAGE]}), judge)
    assert copy.score > 0.5  # the judge's "unverifiable" lifted by the copied words
    assert added.score == pytest.approx(0.05)  # "Oslo" is in no passage: overlap is no evidence for it


def supported_judge(rule: bool) -> ScriptedJudge:
    """Reads every claim as supported (p 0.98), as a small model reads a near-copy."""
    def reply(request):
        probabilities = dict.fromkeys(request.labels, 0.01)
        probabilities[request.labels[-1] if "supported" not in request.labels else "supported"] = 0.98
        return {"probabilities": probabilities}

    return ScriptedJudge(reply, profile=JudgeProfile(support_overlap_weight=0.6, answer_overlap_weight=0.5,
                                                     substitution_rule=rule))


async def test_the_support_check_scores_a_changed_copy_as_contradicted_when_the_judge_asks():
    sample = parse_sample({"answer": "The e-bike has a 900 Wh battery and a range of 90 km.", "contexts": [PASSAGE]})
    ruled = await SupportCheck().run(sample, supported_judge(True))
    assert ruled.score == 0.0
    assert ruled.reason == 'contradicted: the passage gives "500" where the claim says "900"'
    assert ruled.details["substitution"] == {"kind": "number", "claim_says": "900", "passage_says": "500"}
    assert any("one fact changed" in note and "judge read supported" in note for note in ruled.notes)
    plain = await SupportCheck().run(sample, supported_judge(False))
    assert plain.score > 0.9 and "substitution" not in plain.details


async def test_a_faithful_copy_keeps_the_judges_score():
    sample = parse_sample({"answer": "The e-bike has a 500 Wh battery and a range of 90 km.", "contexts": [PASSAGE]})
    result = await SupportCheck().run(sample, supported_judge(True))
    assert result.score > 0.9 and "substitution" not in result.details


async def test_answer_accuracy_scores_a_changed_copy_of_the_reference_as_incorrect():
    data = {"question": "When did the Houston Astros win the World Series?",
            "answer": "The Houston Astros won the 2010 World Series.",
            "reference": "The Houston Astros won the 2017 World Series."}
    ruled = await AnswerAccuracyCheck().run(parse_sample(data), supported_judge(True))
    assert ruled.score == 0.0 and ruled.reason == 'incorrect: the reference gives "2017" where the answer says "2010"'
    right = await AnswerAccuracyCheck().run(parse_sample({**data, "answer": data["reference"]}),
                                            supported_judge(True))
    assert right.score > 0.5


def test_a_grounded_agent_fails_the_changed_copy_and_says_why():
    case = {"question": "How big is the e-bike's battery?",
            "answer": "The e-bike has a 900 Wh battery and a range of 90 km.", "contexts": [PASSAGE]}
    result = AccuracyAgent(judge=supported_judge(True)).evaluate(case)
    factual = next(r for r in result.checks if r.name == "factual")
    assert result.status == "FAIL" and factual.score == 0.0
    assert '"500"' in factual.reason and '"900"' in factual.reason
