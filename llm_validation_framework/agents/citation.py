"""CitationAgent: citation accuracy (F1), faithfulness of [N] markers and relevancy of external citations.

    agent = CitationAgent(judge=ScriptedJudge(...))                      # all three, weighted
    agent = CitationAgent(checks=["citation_faithfulness"])              # one check alone (threshold 1.0)
    result = agent.evaluate({"question": ..., "answer": "... [1].", "passages": [{"id": "1", "text": ...}]})

Weights default to accuracy 0.5, faithfulness 0.25, relevancy 0.25; a check that does not apply
to a case (no [N] markers for faithfulness, no links/DOIs/author-year citations for relevancy)
is left out and the others' weights are renormalised. Without ``threshold`` the agent uses each
check's own pass mark — accuracy 0.5, faithfulness 1.0 (every marker must be faithful),
relevancy 0.8 — weighted like the score. ``strict_mode=True`` pins the threshold at 1.0. When
accuracy and faithfulness both run, identical support questions reach the judge once per
evaluation.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..checks.base import Check
from ..checks.citation_accuracy import CitationAccuracyCheck
from ..checks.citation_faithfulness import CitationFaithfulnessCheck, Granularity
from ..checks.citation_relevancy import CitationRelevancyCheck, Strategy
from ..citations.memo import VerdictMemo
from ..errors import ConfigError
from ..judges.base import Judge
from ..types.inputs import Sample
from ..types.progress import ProgressCallback
from ..types.results import CheckResult, EvaluationResult
from .base import Agent, InjectionPolicy, UnscoredPolicy, validate_threshold

if TYPE_CHECKING:  # pragma: no cover
    from ..retrieval.provider import RAGProvider

__all__ = ["CitationAgent"]

CHECK_NAMES = ("citation_accuracy", "citation_faithfulness", "citation_relevancy")
DEFAULT_WEIGHTS = {"citation_accuracy": 0.5, "citation_faithfulness": 0.25, "citation_relevancy": 0.25}
#: each check's pass mark when it runs alone (faithfulness is all-or-nothing, so only 1.0 passes)
DEFAULT_THRESHOLDS = {"citation_accuracy": 0.5, "citation_faithfulness": 1.0, "citation_relevancy": 0.8}
_NEEDS_PASSAGES = {"citation_accuracy", "citation_faithfulness"}
_MEMO: contextvars.ContextVar[VerdictMemo | None] = contextvars.ContextVar("citation_memo", default=None)


class CitationAgent(Agent):
    """Weighted citation checks with a pass threshold (see the module docstring).

    The judge and pass-mark parameters are those of every agent
    (:class:`~llm_validation_framework.agents.base.Agent`), except that ``threshold`` None means
    the weighted pass marks of the checks that run. The citation options:

    * ``checks``: which of ``citation_accuracy``, ``citation_faithfulness``,
      ``citation_relevancy`` to run (None: all three); ``weights``: their weights, by name
      (unnamed checks keep the defaults).
    * ``strict_mode``: the threshold is 1.0 and cannot be changed.
    * ``granularity``: what faithfulness asks about: each cited ``"sentence"``, each ``"marker"``
      group, or the whole ``"answer"`` in one call. ``check_uncited``: also ask whether every
      uncited sentence is supported by some passage (one call each).
    * ``multi_turn_strategy``: relevancy judges the ``"last_turn"`` only, or ``"all_turns"``.
    * ``max_concurrency``: judge calls at once per check; ``max_evidence_chars``: how many
      characters of cited passages one support question may carry before the passages are cut to
      their sentences closest to the claim (None: no limit beyond the judge's own);
      ``overlap_weight``: how much word overlap with the cited passages counts beside the judge's
      P(supported) (None: the judge's preference).
    """

    name = "citation"
    uses_passages = True

    def __init__(
        self,
        config_path: str | None = None,
        provider: str | None = None,
        model: str | None = None,
        rag: RAGProvider | None = None,
        threshold: float | None = None,
        *,
        judge: Judge | None = None,
        api_base: str | None = None,
        on_unscored: UnscoredPolicy = "unscored",
        repeats: int = 1,
        on_injection: InjectionPolicy = "judge",
        checks: Sequence[str] | None = None,
        weights: Mapping[str, float] | None = None,
        strict_mode: bool = False,
        multi_turn_strategy: Strategy = "last_turn",
        granularity: Granularity = "sentence",
        check_uncited: bool = False,
        max_concurrency: int = 8,
        max_evidence_chars: int | None = 8000,
        overlap_weight: float | None = None,
    ) -> None:
        names = list(CHECK_NAMES if checks is None else checks)
        if isinstance(checks, str) or not names:
            raise ConfigError(f"checks must be a non-empty list of check names from {list(CHECK_NAMES)}, "
                              f"got {checks!r}")
        unknown = [n for n in names if n not in CHECK_NAMES]
        if unknown or len(set(names)) != len(names):
            raise ConfigError(f"checks: unknown or repeated names {unknown or names}; choose from {list(CHECK_NAMES)}")
        given = dict(weights or {})
        extra = [n for n in given if n not in names]
        if extra:
            raise ConfigError(f"weights: {extra} name checks this agent does not run ({names})")
        self.weights = {}
        for n in names:
            w = given.get(n, DEFAULT_WEIGHTS[n])
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 <= w < float("inf"):
                raise ConfigError(f"weights[{n!r}] must be a non-negative number, got {w!r}")
            self.weights[n] = float(w)
        if sum(self.weights.values()) <= 0:
            raise ConfigError("weights must not all be 0")
        self.strict_mode = bool(strict_mode)
        if self.strict_mode:
            threshold = 1.0
        elif threshold is None:
            total = sum(self.weights.values())
            threshold = round(sum(self.weights[n] * DEFAULT_THRESHOLDS[n] for n in names) / total, 4)
        built: dict[str, Check] = {
            "citation_accuracy": CitationAccuracyCheck(max_concurrency=max_concurrency,
                                                       max_evidence_chars=max_evidence_chars,
                                                       overlap_weight=overlap_weight),
            "citation_faithfulness": CitationFaithfulnessCheck(granularity=granularity, check_uncited=check_uncited,
                                                               max_concurrency=max_concurrency,
                                                               max_evidence_chars=max_evidence_chars,
                                                               overlap_weight=overlap_weight),
            "citation_relevancy": CitationRelevancyCheck(multi_turn_strategy=multi_turn_strategy,
                                                         max_concurrency=max_concurrency),
        }
        super().__init__([(built[n], self.weights[n]) for n in names], threshold, judge=judge, provider=provider,
                         model=model, api_base=api_base, config_path=config_path, rag=rag,
                         on_unscored=on_unscored, on_injection=on_injection, repeats=repeats)
        self.uses_passages = any(n in _NEEDS_PASSAGES for n in names)

    def update_threshold(self, threshold: float) -> None:
        if self.strict_mode:
            raise ConfigError("strict_mode fixes the threshold at 1.0: create the agent with strict_mode=False to "
                              "choose another")
        super().update_threshold(validate_threshold(threshold))

    async def aevaluate(self, data: Any, on_progress: ProgressCallback | None = None) -> EvaluationResult:
        token = _MEMO.set(VerdictMemo() if self.repeats == 1 else None)
        try:
            return await super().aevaluate(data, on_progress=on_progress)
        finally:
            _MEMO.reset(token)

    async def _run_check(self, check: Check, sample: Sample) -> CheckResult:
        memo = _MEMO.get()
        if memo is not None and isinstance(check, (CitationAccuracyCheck, CitationFaithfulnessCheck)):
            return await check.run(sample, self.judge, memo=memo)
        return await super()._run_check(check, sample)
