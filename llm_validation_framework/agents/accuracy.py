"""AccuracyAgent: is the answer correct? ``0.4 × relevancy + 0.6 × factual``, PASS at ≥ threshold.

Two vetoes (:class:`~.veto.Veto`) fail the case whatever the combined score: a factual part below
the threshold (a wrong answer is not rescued by being on topic), and a relevancy part below the
internal relevancy agent's threshold (a true answer to another question is not rescued by being
true).

Without passages the factual judge uses its own knowledge (lenient on brief correct answers);
with a RAGProvider (or the case's contexts) the retrieved passages are the source of truth.
With a reference answer (``data["reference"]`` / ``data["references"]``) the factual part is the
``answer_accuracy`` check against it instead (see checks/answer_accuracy.py).
The relevancy part is the agent's internal :class:`RelevancyAgent`, whose threshold
:meth:`update_threshold` keeps in step and the relevancy veto reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..checks.answer_accuracy import AnswerAccuracyCheck
from ..checks.base import Check
from ..checks.factual import FactualCheck
from ..checks.relevancy import RelevancyCheck
from ..judges.base import Judge
from ..types.inputs import Sample
from ..types.results import CheckResult
from .base import Agent, InjectionPolicy, UnscoredPolicy
from .relevancy import RelevancyAgent
from .veto import Veto

if TYPE_CHECKING:  # pragma: no cover
    from ..retrieval.provider import RAGProvider

__all__ = ["AccuracyAgent"]

RELEVANCY_WEIGHT = 0.4
FACTUAL_WEIGHT = 0.6


def _factual_why(result: CheckResult) -> str:
    if result.details.get("mode") == "grounded":
        return "the passages do not support the answer"
    return "the judge finds the answer incorrect"


# A wrong answer fails however relevant it is: 0.4 x relevancy alone carries any factual score above
# 1/6 over the default threshold, so on-topic answers the factual part calls wrong would pass
# (docs/agents.md has what this did to PASS against human labels, in every mode). And an answer to
# another question fails however true it is: 0.6 x a correct factual part alone reaches 0.6.
ACCURACY_VETOES = (
    Veto(FactualCheck.name, reason=_factual_why),
    Veto(AnswerAccuracyCheck.name, reason="the answer does not match the reference"),
    Veto(RelevancyCheck.name, reason="the answer does not address the question"),
)


class AccuracyAgent(Agent):
    """Is the answer correct and on topic? See the module docstring for how the score is made, and
    :class:`~llm_validation_framework.agents.base.Agent` for the parameters."""

    name = "accuracy"
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
    ) -> None:
        super().__init__(None, threshold, ACCURACY_VETOES, judge=judge, provider=provider, model=model,
                         api_base=api_base, config_path=config_path, rag=rag, on_unscored=on_unscored,
                         on_injection=on_injection, repeats=repeats)
        self.relevancy_agent = RelevancyAgent(judge=self.judge, threshold=self.threshold,
                                              on_unscored=self.on_unscored)
        self.factual = FactualCheck()
        self.answer_accuracy = AnswerAccuracyCheck()

    def update_threshold(self, threshold: float) -> None:
        super().update_threshold(threshold)
        self.relevancy_agent.update_threshold(threshold)

    def plan(self, sample: Sample) -> Sequence[tuple[Check, float]]:
        relevancy = [(check, RELEVANCY_WEIGHT * weight) for check, weight in self.relevancy_agent.plan(sample)]
        return [*relevancy, (self._factual_check(sample), FACTUAL_WEIGHT)]

    def _veto_mark(self, veto: Veto) -> float:
        # the relevancy gate follows the internal relevancy agent's pass mark
        if veto.check == self.relevancy_agent.check.name:
            return self.relevancy_agent.threshold
        return super()._veto_mark(veto)

    def _factual_check(self, sample: Sample) -> Check:
        # a case with a reference answer is checked against it: the breakdown then shows
        # "answer_accuracy" (against the reference; see AnswerAccuracyCheck) in the factual slot instead of "factual"
        if sample.reference or sample.references:
            return self.answer_accuracy
        return self.factual
