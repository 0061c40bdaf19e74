"""A 5 MB answer is not sent whole to the judge: each input is cut at MAX_INPUT_CHARS, and the result says so."""

from __future__ import annotations

from llm_validation_framework import AccuracyAgent, RelevancyAgent
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.text.input_caps import CUT_MARK, MAX_INPUT_CHARS, cap_sample
from llm_validation_framework.types.inputs import parse_sample

HUGE = "word " * 1_048_576  # 5 MB


def best(request):
    return {"verdict": max(request.options, key=request.options.get), "reason": "ok"}


def test_a_5mb_answer_reaches_the_judge_cut_and_the_result_says_so():
    judge = ScriptedJudge(best)
    result = RelevancyAgent(judge=judge).evaluate({"question": "What is this?", "answer": HUGE})
    assert judge.requests and all(len(r.prompt) < MAX_INPUT_CHARS + 5_000 for r in judge.requests)
    assert any(CUT_MARK.format(n=len(HUGE) - MAX_INPUT_CHARS) in r.prompt for r in judge.requests)
    for check in result.checks:
        assert check.details["inputs_cut"] == {"answer": len(HUGE)}
        assert any("cut" in note and "answer (5,242,880 characters)" in note for note in check.notes)


def test_each_context_is_capped_on_its_own():
    long_reference, long_context = "r" * (MAX_INPUT_CHARS + 1), "c" * (MAX_INPUT_CHARS * 2)
    sample, cut = cap_sample(parse_sample({"question": "q" * 10, "answer": "a", "reference": long_reference,
                                           "contexts": ["short", long_context]}))
    assert cut == {"reference": MAX_INPUT_CHARS + 1, "passages[2]": MAX_INPUT_CHARS * 2}
    assert sample.passages[0].text == "short" and sample.question == "q" * 10
    assert sample.passages[1].text.startswith("c" * MAX_INPUT_CHARS)
    assert len(sample.passages[1].text) < MAX_INPUT_CHARS + 100


def test_inputs_under_the_cap_give_the_same_prompts_and_no_note():
    data = {"question": "Where is the Eiffel Tower?", "answer": "In Paris. " * 2000,
            "reference": "Paris, France.", "contexts": ["The Eiffel Tower is in Paris." * 100, "Other."]}
    sample = parse_sample(data)
    assert cap_sample(sample) == (sample, {})  # the very same object: nothing rebuilt
    judge = ScriptedJudge(best)
    result = AccuracyAgent(judge=judge).evaluate(data)
    assert all("inputs_cut" not in check.details and not any("cut" in n for n in check.notes)
               for check in result.checks)
    assert all("characters cut before judging" not in r.prompt for r in judge.requests)


def test_the_injection_scan_reads_only_the_judged_part_of_a_long_answer(monkeypatch):
    """A 2 MB answer read whole cost the embedding model 24 556 sentences (134 s of CPU); the judged
    100 000 characters are 1 222 (7 s)."""
    from llm_validation_framework.text import injection_model

    class Counting:
        threshold = neighbour_threshold = 0.9

        def __init__(self) -> None:
            self.characters = 0

        def probabilities(self, sentences):
            import numpy as np

            self.characters += sum(len(s) for s in sentences)
            return np.zeros(len(sentences))

    detector = Counting()
    injection_model.clear_cache()
    monkeypatch.setattr(injection_model, "load_detector", lambda: detector)
    answer = "The river flows north through the valley. " * 50_000  # 2.1 MB, 50 000 sentences
    for agent in (RelevancyAgent(judge=ScriptedJudge(best)), AccuracyAgent(judge=ScriptedJudge(best))):
        injection_model.clear_cache()
        detector.characters = 0
        agent.evaluate({"question": "Where does the river flow?", "answer": answer, "reference": "North."})
        assert 0 < detector.characters <= MAX_INPUT_CHARS + 200, type(agent).__name__
    injection_model.clear_cache()
