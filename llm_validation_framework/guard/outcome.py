"""What a guard returns: the answer to show, whether it passed, every attempt, and which action ran.

The actions are a closed set (:data:`GuardAction`); ``decided_by`` says whether the judge's verdict
decided, or a timeout or a judge failure did (then ``fail_open`` says whether the answer was let
through unchecked because the guard was built to fail open).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..types.results import EvaluationResult

__all__ = ["AttemptStatus", "DecidedBy", "FailAction", "FailPolicy", "GuardAction", "GuardAttempt", "GuardOutcome",
           "feedback_for"]

#: what the guard does with an answer that failed its checks
FailAction = Literal["raise", "fallback", "reask", "flag"]
#: what the guard does when the judge failed or timed out: treat the answer as failed, or let it through
FailPolicy = Literal["fail_closed", "fail_open"]
#: what the guard did: ``pass`` (the first answer passed), ``reask`` (a re-asked answer passed),
#: ``fallback``, ``flag`` (the answer is shown, marked), ``raise``, ``fail_open`` (shown unchecked)
GuardAction = Literal["pass", "reask", "fallback", "flag", "raise", "fail_open"]
#: one attempt's state: the agent's status, or TIMEOUT / ERROR when no result came back
AttemptStatus = Literal["PASS", "FAIL", "UNSCORED", "TIMEOUT", "ERROR"]
#: what decided a refusal: the judge's verdict, or the policy for a judge that timed out or failed
DecidedBy = Literal["verdict", "timeout", "judge_error"]


@dataclass
class GuardAttempt:
    """One answer the guard judged. ``feedback`` is what the generator was told after it (None: not re-asked)."""

    answer: str | None
    status: AttemptStatus
    result: EvaluationResult | None = None
    error: str | None = None
    feedback: str | None = None
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "status": self.status, "error": self.error, "feedback": self.feedback,
                "duration_s": round(self.duration_s, 4),
                "result": None if self.result is None else self.result.to_dict()}


@dataclass
class GuardOutcome:
    """A guard's decision on one case.

    * ``answer``: what to show the user (the original, a re-asked, a fallback answer; None after ``raise``).
    * ``passed``: True only when the shown answer was judged and passed.
    * ``action``: which :data:`GuardAction` ran.
    * ``result``: the last evaluation result (None when the last evaluation timed out or raised).
    * ``attempts``: every answer judged, in order, with the feedback that followed it.
    * ``decided_by``: ``"verdict"``, ``"timeout"`` or ``"judge_error"`` (the judge failed: the result is
      UNSCORED, or the evaluation raised a judge or retrieval error).
    * ``fail_open``: True when the judge could not decide and the guard let the answer through.
    * ``case``: the case of the last attempt (the re-asked answer in it).
    """

    answer: str | None
    passed: bool
    action: GuardAction
    result: EvaluationResult | None
    attempts: list[GuardAttempt] = field(default_factory=list)
    decided_by: DecidedBy = "verdict"
    fail_open: bool = False
    case: Mapping[str, Any] | Any = None

    @property
    def flagged(self) -> bool:
        """The answer is shown but did not pass (``flag``, or ``fail_open``)."""
        return self.answer is not None and not self.passed and self.action in ("flag", "fail_open")

    @property
    def reask_count(self) -> int:
        return max(0, len(self.attempts) - 1)

    @property
    def reason(self) -> str:
        """Why: the last result's reason, or what kept the judge from deciding."""
        last = self.attempts[-1] if self.attempts else None
        if last is not None and last.result is None:
            return last.error or last.status.lower()
        return self.result.reason if self.result is not None else ""

    def to_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "passed": self.passed, "action": self.action, "decided_by": self.decided_by,
                "fail_open": self.fail_open, "reason": self.reason,
                "result": None if self.result is None else self.result.to_dict(),
                "attempts": [attempt.to_dict() for attempt in self.attempts]}

    def __repr__(self) -> str:
        return (f"GuardOutcome(action={self.action!r}, passed={self.passed}, decided_by={self.decided_by!r}, "
                f"attempts={len(self.attempts)})")


#: result notes about the run, not the answer: they tell a generator nothing it could fix
_NOT_ABOUT_THE_ANSWER = ("unscored checks", "weights renormalised", "unstable", "no applicable check")


def feedback_for(result: EvaluationResult) -> str:
    """The text a re-asked generator receives: each failed check's name, score and reason, and any rule
    that failed the case whatever its score (a veto note)."""
    failed = [c for c in result.checks if c.applicable and c.score is not None and c.score < result.threshold]
    lines = [f"- {c.name} (score {c.score:.2f}): {c.reason}" for c in failed]
    lines += [f"- {note}" for note in result.notes if not note.startswith(_NOT_ABOUT_THE_ANSWER)]
    if not lines:
        lines = [f"- {result.reason}"]
    return ("The previous answer did not pass the answer checks (threshold "
            f"{result.threshold:.2f}, score {result.score if result.score is None else round(result.score, 2)}):\n"
            + "\n".join(lines) + "\nWrite a new answer that fixes these problems.")
