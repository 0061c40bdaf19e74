"""What an evaluation returns: one :class:`CheckResult` per sub-check inside an :class:`EvaluationResult`.

``EvaluationResult`` reads as a dict (``result["status"]``, ``result["score"]``,
``result["reason"]`` …) and also has attributes and a per-check breakdown. A check the judge
could not score is *unscored* (``score is None``) with the error and raw replies kept, never a
silent 0.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .usage import Usage

__all__ = ["CheckResult", "EvaluationResult", "Status"]

Status = Literal["PASS", "FAIL", "UNSCORED"]


@dataclass
class CheckResult:
    """One sub-check's outcome.

    ``method`` says how the score was obtained: ``logprobs`` (probability-weighted), ``parsed``
    (the judge's written label), ``deterministic`` (no judge), ``mixed`` or ``none`` (unscored).
    ``details`` holds the check's breakdown (rows per sentence / citation / passage, signals).
    """

    name: str
    score: float | None
    reason: str = ""
    method: str = "parsed"
    details: dict[str, Any] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    raw_replies: list[str] = field(default_factory=list)
    prompt_hash: str | None = None
    notes: list[str] = field(default_factory=list)
    weight: float | None = None
    applicable: bool = True

    @property
    def scored(self) -> bool:
        return self.score is not None

    @classmethod
    def unscored(cls, name: str, error: BaseException | str, *, raw_replies: list[str] | None = None,
                 usage: Usage | None = None, prompt_hash: str | None = None,
                 details: dict[str, Any] | None = None) -> CheckResult:
        message = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
        replies = raw_replies if raw_replies is not None else list(getattr(error, "raw_replies", []) or [])
        carried = getattr(error, "usage", None)
        if usage is None and isinstance(carried, Usage):
            usage = carried
        return cls(name=name, score=None, reason=f"unscored: {message}", method="none", error=message,
                   raw_replies=replies, usage=usage or Usage(), prompt_hash=prompt_hash, details=details or {})

    @classmethod
    def not_applicable(cls, name: str, reason: str, **details: Any) -> CheckResult:
        return cls(name=name, score=None, reason=reason, method="none", applicable=False, details=dict(details))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "score": self.score,
            "reason": self.reason,
            "method": self.method,
            "weight": self.weight,
            "applicable": self.applicable,
            "error": self.error,
            "raw_replies": list(self.raw_replies),
            "prompt_hash": self.prompt_hash,
            "notes": list(self.notes),
            "usage": self.usage.to_dict(),
            "details": self.details,
        }


@dataclass
class EvaluationResult(Mapping):
    """An agent's verdict on one case. Works as a read-only dict and as an object."""

    agent: str
    status: Status
    score: float | None
    threshold: float
    reason: str
    checks: list[CheckResult] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    duration_s: float = 0.0
    judge: str = ""
    notes: list[str] = field(default_factory=list)
    #: with ``repeats=N``: the combined score's low / high over the runs and whether pass/fail flips
    stability: dict[str, Any] | None = None

    _KEYS = ("status", "score", "reason", "threshold", "agent", "checks", "usage", "duration_s", "judge", "notes",
             "stability")

    @property
    def passed(self) -> bool:
        return self.status == "PASS"

    @property
    def unstable(self) -> bool:
        """True when repeated runs put the combined score on both sides of the threshold."""
        return bool(self.stability and self.stability.get("unstable"))

    def check(self, name: str) -> CheckResult:
        for item in self.checks:
            if item.name == name:
                return item
        raise KeyError(f"no check named {name!r}; checks: {[c.name for c in self.checks]}")

    def __getitem__(self, key: str) -> Any:
        if key not in self._KEYS:
            raise KeyError(key)
        value = getattr(self, key)
        if key == "checks":
            return [c.to_dict() for c in value]
        if key == "usage":
            return value.to_dict()
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._KEYS)

    def __len__(self) -> int:
        return len(self._KEYS)

    def to_dict(self) -> dict[str, Any]:
        return {key: self[key] for key in self._KEYS}

    def __repr__(self) -> str:
        score = "None" if self.score is None else f"{self.score:.3f}"
        return (f"EvaluationResult(agent={self.agent!r}, status={self.status!r}, score={score}, "
                f"threshold={self.threshold})")
