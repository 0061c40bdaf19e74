"""Single-check agents after ragas' NVIDIA metrics: answer accuracy, context relevance, groundedness.

Each takes the parameters every agent takes (see :class:`~llm_validation_framework.agents.base.Agent`)
and then its check's own options. The score is the one check's score; the case passes when it
reaches ``threshold``. Context relevance and groundedness read ``data["contexts"]`` (or
``data["passages"]``), else the RAGProvider's passages for the question.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..checks.answer_accuracy import AnswerAccuracyCheck
from ..checks.context_relevance import ContextRelevanceCheck
from ..checks.response_groundedness import ResponseGroundednessCheck
from ..judges.base import Judge
from .base import Agent, InjectionPolicy, UnscoredPolicy

if TYPE_CHECKING:  # pragma: no cover
    from ..retrieval.provider import RAGProvider

__all__ = ["AnswerAccuracyAgent", "ContextRelevanceAgent", "GroundednessAgent"]


class AnswerAccuracyAgent(Agent):
    """Does the answer give the reference answer? Needs ``question``, ``answer`` and ``reference``
    (or ``references``: several acceptable answers).

    Two judge calls per case, the second with the roles of answer and reference swapped; one with
    the local judge, or with ``swap_roles=False`` (None: the judge's preference). ``prefer_reason``:
    ask for a written reason where the judge can give one. ``overlap_weight``: how much the
    answer's word coverage of the reference counts beside the judge (None: the judge's preference,
    0.5 for the local judge, 0 for API judges)."""

    name = "answer_accuracy"

    def __init__(
        self,
        config_path: str | None = None,
        provider: str | None = None,
        model: str | None = None,
        rag: RAGProvider | None = None,
        threshold: float = 0.5,
        *,
        judge: Judge | None = None,
        api_base: str | None = None,
        on_unscored: UnscoredPolicy = "unscored",
        repeats: int = 1,
        on_injection: InjectionPolicy = "judge",
        prefer_reason: bool = True,
        swap_roles: bool | None = None,
        overlap_weight: float | None = None,
    ) -> None:
        self.check = AnswerAccuracyCheck(prefer_reason=prefer_reason, swap_roles=swap_roles,
                                         overlap_weight=overlap_weight)
        super().__init__([(self.check, 1.0)], threshold, judge=judge, provider=provider, model=model,
                         api_base=api_base, config_path=config_path, rag=rag, on_unscored=on_unscored,
                         on_injection=on_injection, repeats=repeats)


class ContextRelevanceAgent(Agent):
    """Are the retrieved passages relevant to the question? Needs ``question`` and ``contexts`` (or a
    RAGProvider).

    ``per_passage``: one judge call per passage plus one (False: two calls whatever the number of
    passages). ``prefer_reason``: ask for a written reason where the judge can give one."""

    name = "context_relevance"
    uses_passages = True

    def __init__(
        self,
        config_path: str | None = None,
        provider: str | None = None,
        model: str | None = None,
        rag: RAGProvider | None = None,
        threshold: float = 0.5,
        *,
        judge: Judge | None = None,
        api_base: str | None = None,
        on_unscored: UnscoredPolicy = "unscored",
        repeats: int = 1,
        on_injection: InjectionPolicy = "judge",
        per_passage: bool = True,
        prefer_reason: bool = False,
    ) -> None:
        self.check = ContextRelevanceCheck(per_passage=per_passage, prefer_reason=prefer_reason)
        super().__init__([(self.check, 1.0)], threshold, judge=judge, provider=provider, model=model,
                         api_base=api_base, config_path=config_path, rag=rag, on_unscored=on_unscored,
                         on_injection=on_injection, repeats=repeats)


class GroundednessAgent(Agent):
    """Is the answer grounded in the passages? Needs ``answer`` and ``contexts`` (or a RAGProvider
    plus ``question``).

    Two judge calls. When a judge that gives only probabilities scores the answer below
    ``explain_below``, one more call per sentence (at most ``max_sentences``) names the
    unsupported statements. ``prefer_reason``: ask for a written reason where the judge can give
    one."""

    name = "groundedness"
    uses_passages = True

    def __init__(
        self,
        config_path: str | None = None,
        provider: str | None = None,
        model: str | None = None,
        rag: RAGProvider | None = None,
        threshold: float = 0.5,
        *,
        judge: Judge | None = None,
        api_base: str | None = None,
        on_unscored: UnscoredPolicy = "unscored",
        repeats: int = 1,
        on_injection: InjectionPolicy = "judge",
        explain_below: float = 0.9,
        max_sentences: int = 10,
        prefer_reason: bool = True,
    ) -> None:
        self.check = ResponseGroundednessCheck(explain_below=explain_below, max_sentences=max_sentences,
                                               prefer_reason=prefer_reason)
        super().__init__([(self.check, 1.0)], threshold, judge=judge, provider=provider, model=model,
                         api_base=api_base, config_path=config_path, rag=rag, on_unscored=on_unscored,
                         on_injection=on_injection, repeats=repeats)
