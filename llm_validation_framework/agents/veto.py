"""A veto: "this check below X fails the case", whatever the weighted score says.

    Veto("no_medical_advice")              # below the agent's threshold: FAIL
    Veto("relevancy", below=0.3)           # below 0.3: FAIL
    Veto(polite, reason="the answer is rude")

A weighted score lets a strong check carry a weak one over the pass mark; some checks must not be
carried (a wrong answer is not rescued by being on topic, advice a reader must not get is not
rescued by politeness). A veto applies only to a scored result of its check: a check that is
unscored, not applicable or not run on this case vetoes nothing (the agent's ``on_unscored``
policy decides about unscored checks).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..types.results import CheckResult

if TYPE_CHECKING:  # pragma: no cover
    from ..checks.base import Check

__all__ = ["Veto", "first_veto"]


@dataclass(frozen=True, init=False)
class Veto:
    """Fail the case when ``check`` (a check or its name) scores below ``below``.

    ``below`` None means the agent's threshold at evaluation time (so ``update_threshold`` moves
    it too). ``reason`` says why in the case's notes: a sentence, or a function of the check's
    result returning one (None: the check's name and score)."""

    check: str
    below: float | None = None
    reason: str | Callable[[CheckResult], str] | None = None

    def __init__(self, check: str | Check, below: float | None = None,
                 reason: str | Callable[[CheckResult], str] | None = None) -> None:
        name = check if isinstance(check, str) else getattr(check, "name", None)
        if not isinstance(name, str) or not name:
            raise ConfigError(f"Veto(check=...) must be a check or a check's name, got {check!r}")
        if below is not None:
            if isinstance(below, bool) or not isinstance(below, (int, float)) or math.isnan(below) \
                    or not 0.0 <= below <= 1.0:
                raise ConfigError(f"Veto({name!r}, below=...) must be None (the agent's threshold) or a number "
                                  f"in [0, 1], got {below!r}")
            below = float(below)
        if reason is not None and not (isinstance(reason, str) or callable(reason)):
            raise ConfigError(f"Veto({name!r}, reason=...) must be a sentence or a function of the check's "
                              f"result, got {type(reason).__name__}")
        object.__setattr__(self, "check", name)
        object.__setattr__(self, "below", below)
        object.__setattr__(self, "reason", reason)

    def mark(self, threshold: float) -> float:
        """The score under which this veto fails a case, for an agent whose threshold is ``threshold``."""
        return threshold if self.below is None else self.below

    def applies(self, result: CheckResult, mark: float) -> bool:
        return result.name == self.check and result.score is not None and result.score < mark

    def note(self, result: CheckResult, mark: float) -> str:
        """The note a vetoed case carries: why, and the score against the mark."""
        why = self.reason(result) if callable(self.reason) else self.reason
        why = why or f"{self.check} is below its veto mark"
        return (f"FAIL: {why} ({self.check} {result.score:.2f} < {mark:.2f}); "
                "the other checks do not make up for it")


def first_veto(vetoes: Sequence[Veto], scored: Sequence[CheckResult],
               mark: Callable[[Veto], float]) -> str | None:
    """The note of the first veto (in the agent's order) that one of ``scored`` triggers, else None."""
    for veto in vetoes:
        for result in scored:
            if veto.applies(result, mark(veto)):
                return veto.note(result, mark(veto))
    return None
