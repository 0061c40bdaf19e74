"""RelevancyAgent: does the answer address the question?"""

from __future__ import annotations

from collections.abc import Sequence

from ..checks.base import Check
from ..checks.relevancy import RelevancyCheck
from ..types.inputs import Sample
from .base import Agent

__all__ = ["RelevancyAgent"]


class RelevancyAgent(Agent):
    """One relevancy check; PASS when its score ≥ threshold.

    Same constructor as :class:`AccuracyAgent`: ``RelevancyAgent(config_path=None,
    provider="anthropic", model="claude-haiku-4-5-20251001", rag=None, threshold=0.5, *, judge=None,
    api_base=None)``.
    """

    name = "relevancy"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.check = RelevancyCheck()

    def plan(self, sample: Sample) -> Sequence[tuple[Check, float]]:
        return [(self.check, 1.0)]
