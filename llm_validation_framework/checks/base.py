"""A check is one small contract: configuration in ``__init__``, ``async run(sample, judge)``.

Checks hold no per-sample state, so one instance can score many samples at once. A check
never knows which judge runs it: it builds :class:`VerdictRequest` objects and reads
:class:`Verdict` objects. A :class:`JudgeError` becomes an unscored :class:`CheckResult`;
any other exception is a bug or bad input and propagates.

Every check's result notes a prompt-injection attempt in the case's inputs (the field and the
kind, :mod:`~llm_validation_framework.text.injection`): ``run`` of each subclass is wrapped once,
here, so no check has to remember it.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable
from typing import ClassVar

from ..errors import JudgeError
from ..types.inputs import Sample
from ..judges.base import Judge, Verdict, VerdictRequest
from ..text.injection import injection_note, read_sample, scan_sample
from ..types.results import CheckResult

__all__ = ["Check", "ask_once", "combine_methods", "label_reason", "note_injections", "verdict_result"]


class Check(ABC):
    #: short identifier used in results, weights and progress events
    name: ClassVar[str] = "check"
    #: label in the combined reason, e.g. "Relevancy (0.85): …"
    display: ClassVar[str] = "Check"
    #: fields of the sample this check needs (see Sample.require)
    requires: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    async def run(self, sample: Sample, judge: Judge) -> CheckResult:
        """Score one sample."""

    def validate(self, sample: Sample) -> None:
        sample.require(*self.requires, check=self.name)

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        run = cls.__dict__.get("run")
        if run is not None and not getattr(run, "notes_injections", False):
            cls.run = _noting_injections(run)


def _noting_injections(run: Callable[..., Awaitable[CheckResult]]) -> Callable[..., Awaitable[CheckResult]]:
    @functools.wraps(run)
    async def noting(self: Check, sample: Sample, judge: Judge, **options: object) -> CheckResult:
        # first: reads every input with the other cases of this moment in one batch, so the prompts'
        # defusing (and the note below) find them read
        await read_sample(sample)
        return note_injections(await run(self, sample, judge, **options), sample)

    noting.notes_injections = True  # type: ignore[attr-defined]
    return noting


def note_injections(result: CheckResult, sample: Sample) -> CheckResult:
    """``result`` with a note and ``details["injection"]`` (``{field: [kinds]}``) when ``sample``'s
    inputs hold an injection attempt; unchanged otherwise (and never noted twice)."""
    found = scan_sample(sample)
    if found and "injection" not in result.details:
        result.notes.append(injection_note(found))
        result.details["injection"] = {name: list(kinds) for name, kinds in found.items()}
    return result


def verdict_result(name: str, verdict: Verdict, request: VerdictRequest, **details) -> CheckResult:
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


async def ask_once(name: str, judge: Judge, request: VerdictRequest, **details) -> CheckResult:
    """Ask one request; a judge failure becomes an unscored result with the evidence kept."""
    try:
        verdict = await judge.verdict(request)
    except JudgeError as exc:
        return CheckResult.unscored(name, exc, prompt_hash=request.prompt_hash)
    return verdict_result(name, verdict, request, **details)
