"""A blend never outvotes the judge's own verdict: word overlap or coverage may lift what the judge
left uncommitted, never what it called contradicted, incorrect or no."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_validation_framework.checks.answer_accuracy import ACCURACY_OPTIONS
from llm_validation_framework.checks.relevancy import RELEVANCY_OPTIONS
from llm_validation_framework.checks.support import SUPPORT_NEGATIVES, SUPPORT_OPTIONS, build_support_request
from llm_validation_framework.judges.base import Verdict, VerdictRequest, blend_verdict, expected_score, negative_mass

PASS_MARK = 0.5


def request_for(options, negatives=None) -> VerdictRequest:
    return VerdictRequest(check="c", instructions="i", prompt="p", options=options, negatives=negatives)


def verdict_for(options, probabilities) -> Verdict:
    total = sum(probabilities.values())
    probabilities = {k: v / total for k, v in probabilities.items()}
    label = max(probabilities, key=probabilities.get)
    return Verdict(label=label, score=expected_score(options, probabilities), method="logprobs",
                   probabilities=probabilities)


SCALES = [(SUPPORT_OPTIONS, SUPPORT_NEGATIVES), (ACCURACY_OPTIONS, None), (RELEVANCY_OPTIONS, None),
          ({"yes": 1.0, "no": 0.0}, None)]
#: any scale, any probabilities over it, any signal and weight
any_blend = given(scale=st.sampled_from(SCALES), weights=st.lists(st.floats(0.001, 1.0), min_size=3, max_size=3),
                  signal=st.floats(0.0, 1.0), weight=st.floats(0.0, 1.0))


@settings(deadline=None, max_examples=300)
@any_blend
def test_a_negative_label_never_blends_above_the_pass_mark(scale, weights, signal, weight):
    options, negatives = scale
    request = request_for(options, negatives)
    verdict = verdict_for(options, dict(zip(options, weights)))
    blended = blend_verdict(request, verdict, signal, weight)
    assert 0.0 <= blended <= 1.0
    if verdict.label in request.negative_labels:
        assert blended <= PASS_MARK + 1e-9
        assert blended <= verdict.score + 1e-9  # the blend can only lower it
    # never more than the mass the judge did not put on a negative label
    assert blended <= 1.0 - negative_mass(request, verdict) + 1e-9


@settings(deadline=None, max_examples=200)
@any_blend
def test_a_signal_that_is_no_evidence_only_lowers(scale, weights, signal, weight):
    options, negatives = scale
    request = request_for(options, negatives)
    verdict = verdict_for(options, dict(zip(options, weights)))
    assert blend_verdict(request, verdict, signal, weight, lift=False) <= verdict.score + 1e-9


def test_the_one_fact_changed_case_fails():
    # what the local judge said of "a 900 Wh battery" against a passage saying 500 Wh: overlap 0.9
    request = build_support_request("The bike has a 900 Wh battery.", ["The bike has a 500 Wh battery."])
    verdict = verdict_for(SUPPORT_OPTIONS, {"supported": 0.02, "contradicted": 0.9, "unverifiable": 0.08})
    assert blend_verdict(request, verdict, 0.9, 0.6) < PASS_MARK
    # the same probabilities with the unbounded mix passed: 0.4 x 0.02 + 0.6 x 0.9 = 0.548
    assert 0.4 * 0.02 + 0.6 * 0.9 >= PASS_MARK


def test_overlap_still_lifts_what_the_judge_left_unverifiable():
    request = build_support_request("Paris is in France.", ["Paris is in France."])
    verdict = verdict_for(SUPPORT_OPTIONS, {"supported": 0.3, "contradicted": 0.02, "unverifiable": 0.68})
    blended = blend_verdict(request, verdict, 1.0, 0.6)
    assert blended >= PASS_MARK
    assert blended == pytest.approx(0.4 * 0.3 + 0.6 * 1.0)


def test_support_names_contradicted_as_its_only_negative():
    request = build_support_request("c", ["p"])
    assert request.negative_labels == ("contradicted",)
    assert request_for(ACCURACY_OPTIONS).negative_labels == ("0",)
    assert request_for(SUPPORT_OPTIONS).negative_labels == ("contradicted", "unverifiable")


def test_bad_arguments_are_named():
    request = request_for(RELEVANCY_OPTIONS)
    verdict = verdict_for(RELEVANCY_OPTIONS, {"yes": 1, "partly": 1, "no": 1})
    with pytest.raises(ValueError, match="weight"):
        blend_verdict(request, verdict, 0.5, 1.5)
    with pytest.raises(ValueError, match="signal"):
        blend_verdict(request, verdict, 1.5, 0.5)
    with pytest.raises(ValueError, match="negative label 'yes'"):
        request_for(RELEVANCY_OPTIONS, negatives=("yes",))


def test_a_parsed_negative_verdict_is_never_lifted():
    request = request_for(SUPPORT_OPTIONS, SUPPORT_NEGATIVES)
    verdict = Verdict(label="contradicted", score=0.0, method="parsed")
    assert blend_verdict(request, verdict, 1.0, 0.9) == 0.0


def test_the_blend_is_bounded_by_the_mass_off_the_negative_label():
    request = build_support_request("c", ["p"])
    verdict = verdict_for(SUPPORT_OPTIONS, {"supported": 0.45, "contradicted": 0.35, "unverifiable": 0.2})
    # the unbounded mix would be 0.4 x 0.45 + 0.6 x 1.0 = 0.78; the judge left 0.65 off "contradicted"
    assert blend_verdict(request, verdict, 1.0, 0.6) == pytest.approx(0.65)
