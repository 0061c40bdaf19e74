"""Judge scripts for the Ray tests (module-level, importable by Ray's worker processes) and the
private-network check that the Ray tests need."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

from llm_validation_framework.errors import ConfigError, JudgeCallError
from llm_validation_framework.judges.base import VerdictRequest
from llm_validation_framework.judges.scripted import ScriptedJudge


def in_private_network() -> bool:
    """True inside a network namespace whose only interface is loopback (``unshare -n``)."""
    try:
        lines = Path("/proc/net/dev").read_text().splitlines()[2:]
    except OSError:
        return False
    return [line.split(":")[0].strip() for line in lines] == ["lo"]


def by_answer(request: VerdictRequest) -> dict:
    """Best verdict; worst for BAD; a judge outage for DOWN; a configuration error for NOKEY; CRASH:<path>
    kills this process the first time (the path marks it done); DIE kills it every time."""
    crash = re.search(r"CRASH:(\S+?)\.?(?:\s|$)", request.prompt)
    if crash and not Path(crash.group(1)).exists():
        Path(crash.group(1)).write_text("crashed once")
        os.kill(os.getpid(), signal.SIGKILL)
    if "DIE" in request.prompt:
        os.kill(os.getpid(), signal.SIGKILL)
    if "NOKEY" in request.prompt:
        raise ConfigError("no API key for the judge: set OPENAI_API_KEY")
    if "DOWN" in request.prompt:
        raise JudgeCallError("503 after 4 retries", status_code=503)
    label = (min if "BAD" in request.prompt else max)(request.options, key=request.options.get)
    return {"verdict": label, "reason": "scripted"}


def slow_judge() -> ScriptedJudge:
    """by_answer after 50 ms a call: long enough for a run to be stopped in its middle (``--judge`` target)."""
    return ScriptedJudge(by_answer, delay=0.05)
