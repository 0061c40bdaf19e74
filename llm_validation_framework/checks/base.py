"""A check is one small contract: configuration in ``__init__``, ``async run(sample, judge)``.

Checks hold no per-sample state, so one instance can score many samples at once. A check
never knows which judge runs it: it builds :class:`VerdictRequest` objects and reads
:class:`Verdict` objects. A :class:`JudgeError` becomes an unscored :class:`CheckResult`;
any other exception is a bug or bad input and propagates.

A check reads the case the agent screened for prompt injection before any check ran
(:mod:`~llm_validation_framework.text.screening`), so the defence does not depend on the check's
prompt; the agent notes on each result what screening found and did. A check that calls no judge
sets ``screened = False`` and reads the case as written (no order can sway it, and the defence must
not hide from it what the answer says).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, ClassVar

from ..errors import JudgeError
from ..types.inputs import Sample
from ..judges.base import Judge, Verdict, VerdictRequest
from ..types.results import CheckResult

__all__ = ["Check", "ask_once", "combine_methods", "label_reason", "verdict_result"]


class Check(ABC):
    #: short identifier used in results, weights and progress events (a check built from arguments,
    #: such as Criteria, sets it per instance)
    name: str = "check"
    #: label in the combined reason, e.g. "Relevancy (0.85): …"
    display: str = "Check"
    #: fields of the sample this check needs (see Sample.require)
    requires: tuple[str, ...] = ()
    #: whether ``run`` reads the case as screened for prompt injection (every check that asks a judge)
    #: or as written (a check that calls no judge)
    screened: ClassVar[bool] = True

    @abstractmethod
    async def run(self, sample: Sample, judge: Judge) -> CheckResult:
        """Score one sample."""

    def validate(self, sample: Sample) -> None:
        sample.require(*self.requires, check=self.name)


def verdict_result(name: str, verdict: Verdict, request: VerdictRequest, **details: Any) -> CheckResult:
    """A CheckResult from a single verdict."""
    if verdict.probabilities:
        details.setdefault("probabilities", dict(verdict.probabilities))
    details.setdefault("label", verdict.label)
    return CheckResult(name=name, score=verdict.score, reason=verdict.reason or label_reason(verdict),
                       method=verdict.method, usage=verdict.usage, raw_replies=[verdict.raw] if verdict.raw else [],
                       prompt_hash=request.prompt_hash, notes=list(verdict.notes), details=details)


def combine_methods(methods: Iterable[str]) -> str:
    """A result's method from its verdicts': the one they share, ``"mixed"``, or ``"deterministic"`` for none."""
    found = set(methods)
    if not found:
        return "deterministic"
    return found.pop() if len(found) == 1 else "mixed"


def label_reason(verdict: Verdict) -> str:
    """A one-line reason when the judge gave none: the label and, if known, its probability."""
    if verdict.probabilities and verdict.label in verdict.probabilities:
        return f"judged {verdict.label} (p={verdict.probabilities[verdict.label]:.2f})"
    return f"judged {verdict.label}"


async def ask_once(name: str, judge: Judge, request: VerdictRequest, **details: Any) -> CheckResult:
    """Ask one request; a judge failure becomes an unscored result with the evidence kept."""
    try:
        verdict = await judge.verdict(request)
    except JudgeError as exc:
        return CheckResult.unscored(name, exc, prompt_hash=request.prompt_hash)
    return verdict_result(name, verdict, request, **details)
