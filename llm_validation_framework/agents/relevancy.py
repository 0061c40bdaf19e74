"""RelevancyAgent: does the answer address the question?"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..checks.relevancy import RelevancyCheck
from ..judges.base import Judge
from .base import Agent, InjectionPolicy, UnscoredPolicy

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
        on_injection: InjectionPolicy = "judge",
    ) -> None:
        self.check = RelevancyCheck()
        super().__init__([(self.check, 1.0)], threshold, judge=judge, provider=provider, model=model,
                         api_base=api_base, config_path=config_path, rag=rag, on_unscored=on_unscored,
                         on_injection=on_injection, repeats=repeats)
