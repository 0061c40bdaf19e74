import pytest

from llm_validation_framework.errors import VerdictParseError
from llm_validation_framework.judges.base import VerdictRequest, expected_score
from llm_validation_framework.judges.parsing import (
    parse_verdict,
    verdict_json_instructions,
    verdict_json_schema,
    verdict_model,
)

YESNO = VerdictRequest(check="t", instructions="i", prompt="p", options={"yes": 1.0, "no": 0.0})
RATING = VerdictRequest(check="r", instructions="i", prompt="p", options={"0": 0.0, "2": 0.5, "4": 1.0},
                        prefer_reason=False)


def test_plain_json():
    parsed = parse_verdict('{"reason": "fine", "verdict": "yes"}', YESNO)
    assert (parsed.label, parsed.reason) == ("yes", "fine")


def test_fenced_json_and_surrounding_prose():
    parsed = parse_verdict('Sure!\n```json\n{"reason": "x", "verdict": "no"}\n```\nDone.', YESNO)
    assert parsed.label == "no"


def test_numeric_rating_accepts_int_and_string():
    assert parse_verdict('{"verdict": 4}', RATING).label == "4"
    assert parse_verdict('{"verdict": "2"}', RATING).label == "2"


def test_rating_outside_scale_is_rejected():
    with pytest.raises(VerdictParseError, match="allowed verdicts: 0, 2, 4"):
        parse_verdict('{"verdict": 3}', RATING)


def test_prose_with_several_digits_is_not_a_rating():
    # ragas takes the first digit anywhere; "0 ... 4" would score 0. We refuse to guess.
    with pytest.raises(VerdictParseError) as info:
        parse_verdict("I would rate it between 0 and 4, probably 4.", RATING)
    assert info.value.raw_replies == ["I would rate it between 0 and 4, probably 4."]


def test_label_must_match_exactly_one_option():
    with pytest.raises(VerdictParseError):
        parse_verdict('{"verdict": "maybe"}', YESNO)


def test_first_valid_object_wins_over_invalid_ones():
    assert parse_verdict('{"score": 1} then {"verdict": "yes"}', YESNO).label == "yes"


def test_instructions_list_labels_and_reason_first():
    text = verdict_json_instructions(YESNO)
    assert text.index('"reason"') < text.index('"verdict"')
    assert '"yes" | "no"' in text


def test_expected_score_renormalises_over_options():
    assert expected_score({"yes": 1.0, "no": 0.0}, {"yes": 0.6, "no": 0.2, "maybe": 0.2}) == pytest.approx(0.75)
    with pytest.raises(ValueError):
        expected_score({"yes": 1.0, "no": 0.0}, {"other": 1.0})


@pytest.mark.parametrize("options", [{"yes": 1.0}, {"yes": 1.5, "no": 0.0}, {" yes": 1.0, "no": 0.0}])
def test_bad_options_rejected(options):
    with pytest.raises(ValueError):
        VerdictRequest(check="t", instructions="i", prompt="p", options=options)


def test_cached_json_schema_matches_the_model_and_is_a_fresh_copy_per_shape():
    schema = verdict_json_schema(YESNO)
    assert schema == verdict_model(YESNO).model_json_schema()
    assert verdict_json_schema(RATING)["properties"]["verdict"]["enum"] == ["0", "2", "4"]
    assert "reason" not in verdict_json_schema(RATING)["properties"]
    schema["properties"]["verdict"]["enum"].append("maybe")  # a caller editing its copy in place
    assert verdict_json_schema(YESNO)["properties"]["verdict"]["enum"] == ["yes", "no"]
