"""A grounded answer that copies its passage and changes one fact FAILS with the offline judge.

Word overlap with the passage stays near 0.9 for such an answer, and the unbounded blend used to
carry it over the pass mark while the reason read "judged contradicted".
"""

from __future__ import annotations

import pytest

CASES = [
    ("How big is the Voltra E5's battery?",
     "The Voltra E5 e-bike has a 500 Wh battery and a range of 90 km on a single charge.",
     "The Voltra E5 e-bike has a 900 Wh battery and a range of 90 km on a single charge."),
    ("When did the Harbour Bridge open?",
     "The Harbour Bridge was opened to traffic on 19 March 1932 after eight years of construction.",
     "The Harbour Bridge was opened to traffic on 19 March 1952 after eight years of construction."),
    ("Who leads the Aurora research project?",
     "The Aurora research project is led by Dr. Amara Okafor at the Lagos Institute of Technology.",
     "The Aurora research project is led by Dr. Peter Okafor at the Lagos Institute of Technology."),
    ("What warranty does the Kettle Pro come with?",
     "Every Kettle Pro comes with a two-year warranty covering parts and labour.",
     "Every Kettle Pro comes with a ten-year warranty covering parts and labour."),
]


@pytest.fixture(scope="module")
def agent():
    from llm_validation_framework import AccuracyAgent

    return AccuracyAgent(provider="local")


@pytest.mark.slow
@pytest.mark.parametrize("question, passage, answer", CASES, ids=["battery", "date", "name", "warranty"])
def test_a_copied_answer_with_one_fact_changed_fails(agent, question, passage, answer):
    result = agent.evaluate({"question": question, "answer": answer, "contexts": [passage]})
    factual = next(r for r in result.checks if r.name == "factual")
    assert result.status == "FAIL", (result.score, result.reason, factual.details)
    assert factual.score < 0.5
    assert factual.details["overlap"] > 0.7  # the answer keeps the passage's words
    assert any("do not support" in note for note in result.notes) or result.score < agent.threshold
