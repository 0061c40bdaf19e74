"""Progress events an agent emits while it works, and a callback guard that never loses a result."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["ProgressEvent", "ProgressCallback", "emit"]

logger = logging.getLogger("llm_validation_framework")

Stage = Literal["retrieval_started", "retrieval_finished", "check_started", "check_finished"]


@dataclass(frozen=True)
class ProgressEvent:
    agent: str
    stage: Stage
    check: str | None = None
    score: float | None = None
    index: int = 0
    total: int = 0
    message: str = ""

    def __str__(self) -> str:
        what = self.check or "retrieval"
        score = "" if self.score is None else f" score={self.score:.2f}"
        return f"[{self.agent}] {self.stage.replace('_', ' ')}: {what} ({self.index}/{self.total}){score}"


ProgressCallback = Callable[[ProgressEvent], object]


def emit(callback: ProgressCallback | None, event: ProgressEvent) -> None:
    """Call the user's callback; an exception in it is logged, never allowed to lose the evaluation."""
    if callback is None:
        return
    try:
        callback(event)
    except Exception as exc:  # noqa: BLE001 - user code must not break the evaluation
        logger.warning("on_progress callback raised %s: %s (ignored)", type(exc).__name__, exc)
