"""Single-check agents for ragas' NVIDIA metrics: answer accuracy, context relevance, groundedness.

Same constructor, ``threshold``, ``update_threshold``, ``evaluate``/``aevaluate`` and result
shape as :class:`~llm_validation_framework.agents.accuracy.AccuracyAgent`:

    AnswerAccuracyAgent(config_path=None, provider=..., model=..., rag=None, threshold=0.5,
                        *, judge=None, api_base=None, on_unscored="unscored", repeats=1)

The score is the one check's score; PASS when it is ≥ threshold. Context relevance and
groundedness read ``data["contexts"]`` (or ``data["passages"]``), else the RAGProvider's
passages for the question.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..checks.answer_accuracy import AnswerAccuracyCheck
from ..checks.base import Check
from ..checks.context_relevance import ContextRelevanceCheck
from ..checks.response_groundedness import ResponseGroundednessCheck
from ..types.inputs import Sample
from .base import Agent

__all__ = ["AnswerAccuracyAgent", "ContextRelevanceAgent", "GroundednessAgent"]


class AnswerAccuracyAgent(Agent):
    """Does the answer give the reference answer? Needs ``question``, ``answer`` and ``reference``
    (or ``references``: several acceptable answers). Two judge calls per case (the second with the
    roles swapped); one with the local judge, or with ``swap_roles=False``. ``overlap_weight``:
    how much the answer's coverage of the gold answer counts (None: the judge's preference, 0.5
    for the local judge, 0 for API judges)."""

    name = "answer_accuracy"

    def __init__(self, *args: Any, prefer_reason: bool = True, swap_roles: bool | None = None,
                 overlap_weight: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.check = AnswerAccuracyCheck(prefer_reason=prefer_reason, swap_roles=swap_roles,
                                         overlap_weight=overlap_weight)

    def plan(self, sample: Sample) -> Sequence[tuple[Check, float]]:
        return [(self.check, 1.0)]


class ContextRelevanceAgent(Agent):
    """Are the retrieved passages relevant to the question? Needs ``question`` and ``contexts`` (or a
    RAGProvider). 1 + one judge call per passage (``per_passage=False``: always two)."""

    name = "context_relevance"
    uses_passages = True

    def __init__(self, *args: Any, per_passage: bool = True, prefer_reason: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.check = ContextRelevanceCheck(per_passage=per_passage, prefer_reason=prefer_reason)

    def plan(self, sample: Sample) -> Sequence[tuple[Check, float]]:
        return [(self.check, 1.0)]


class GroundednessAgent(Agent):
    """Is the answer grounded in the passages? Needs ``answer`` and ``contexts`` (or a RAGProvider
    plus ``question``). Two judge calls, plus one per sentence to name the unsupported statements
    when a probability-only judge scores it below ``explain_below``."""

    name = "groundedness"
    uses_passages = True

    def __init__(self, *args: Any, explain_below: float = 0.9, max_sentences: int = 10, prefer_reason: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.check = ResponseGroundednessCheck(explain_below=explain_below, max_sentences=max_sentences,
                                               prefer_reason=prefer_reason)

    def plan(self, sample: Sample) -> Sequence[tuple[Check, float]]:
        return [(self.check, 1.0)]
