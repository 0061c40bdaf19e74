"""Judge scripts importable by worker processes (runner workers=N tests): module-level, so they pickle."""

from __future__ import annotations

import os

from llm_validation_framework.errors import ConfigError, JudgeCallError
from llm_validation_framework.judges.base import VerdictRequest


def by_answer(request: VerdictRequest) -> dict:
    """Best verdict, worst for BAD, a judge outage for DOWN, a configuration error for NOKEY, death for DIE."""
    if "DIE" in request.prompt:
        os._exit(3)
    if "NOKEY" in request.prompt:
        raise ConfigError("no API key for the judge: set OPENAI_API_KEY")
    if "DOWN" in request.prompt:
        raise JudgeCallError("503 after 4 retries", status_code=503)
    label = (min if "BAD" in request.prompt else max)(request.options, key=request.options.get)
    return {"verdict": label, "reason": f"pid {os.getpid()}"}
