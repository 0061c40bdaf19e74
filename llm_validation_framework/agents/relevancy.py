"""RelevancyAgent: does the answer address the question?"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..checks.base import Check
from ..checks.relevancy import RelevancyCheck
from ..judges.base import Judge
from ..types.inputs import Sample
from .base import Agent, UnscoredPolicy

if TYPE_CHECKING:  # pragma: no cover
    from ..retrieval.provider import RAGProvider

__all__ = ["RelevancyAgent"]


class RelevancyAgent(Agent):
    """Does the answer address the question? One relevancy check; the case passes when its score
    reaches ``threshold``. Parameters: see :class:`~llm_validation_framework.agents.base.Agent`."""

    name = "relevancy"

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
    ) -> None:
        super().__init__(config_path, provider, model, rag, threshold, judge=judge, api_base=api_base,
                         on_unscored=on_unscored, repeats=repeats)
        self.check = RelevancyCheck()

    def plan(self, sample: Sample) -> Sequence[tuple[Check, float]]:
        return [(self.check, 1.0)]
