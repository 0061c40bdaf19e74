"""Re-ask end to end with the real local judge: a generator whose first answer is wrong and second right.

Marked slow: it loads the local model (run with `make test-slow` or `pytest -m slow`)."""

from __future__ import annotations

import pytest

from llm_validation_framework import AccuracyAgent, Guard

pytestmark = pytest.mark.slow

PASSAGES = ["The Eiffel Tower stands on the Champ de Mars in Paris, France. It was completed in 1889."]
QUESTION = "Where is the Eiffel Tower?"
WRONG = "The Eiffel Tower is in Rome, Italy."
RIGHT = "The Eiffel Tower is in Paris, France."


def test_the_guard_returns_the_reasked_answer_and_the_feedback_names_the_failed_check():
    received: list[str] = []

    def generator(case, feedback):
        received.append(feedback)
        return RIGHT

    agent = AccuracyAgent(provider="local")
    outcome = Guard(agent, on_fail="reask", generator=generator, max_reasks=1).validate(
        {"question": QUESTION, "answer": WRONG, "contexts": PASSAGES})

    assert (outcome.answer, outcome.action, outcome.passed) == (RIGHT, "reask", True), outcome.reason
    first = outcome.attempts[0]
    assert first.status == "FAIL" and len(received) == 1 and received[0] == first.feedback
    failed = [c for c in first.result.checks if c.score is not None and c.score < first.result.threshold]
    assert failed, first.result.reason
    for check in failed:
        assert check.name in received[0] and check.reason in received[0]
