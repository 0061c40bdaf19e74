"""Prompt hashes for the results header, found without calling any model.

Each agent is copied with a judge that records every request's ``prompt_hash`` and answers
nothing (a JudgeCallError: the checks become unscored), and evaluated on two tiny probe
cases (with and without passages). Best effort: an object that cannot be copied so is
skipped, and a check may use a prompt variant the probes do not reach; every case line
records the hash actually used and the footer collects them.
"""

from __future__ import annotations

from typing import Any

from ..errors import JudgeCallError
from ..judges.base import Judge, Verdict, VerdictRequest

__all__ = ["probe_prompt_hashes"]

async def probe_prompt_hashes(built: list[tuple[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """``{agent: {check: [prompt hashes]}}`` (see the module docstring)."""
    out: dict[str, dict[str, list[str]]] = {}
    for name, agent in built:
        judge = getattr(agent, "judge", None)
        probe = _ProbeJudge(judge if isinstance(judge, Judge) else None)
        try:
            twin = agent.with_judge(probe)
            twin.rag = None  # the probe never asks the user's retriever
        except Exception:  # noqa: BLE001 - an agent-like object without with_judge: no probe
            continue
        for case in _PROBE_CASES:
            try:
                await twin.aevaluate(case)
            except Exception:  # noqa: BLE001 - the probe judge answers nothing; agents may raise
                pass
        out[name] = {check: sorted(hashes) for check, hashes in sorted(probe.hashes.items())}
    return out


_PROBE_CASES = (
    {"question": "Probe question?", "answer": "Probe answer [1].", "reference": "Probe reference.",
     "contexts": ["Probe passage."]},
    {"question": "Probe question?", "answer": "Probe answer.", "reference": "Probe reference."},
)


class _ProbeJudge(Judge):
    name = "probe"

    def __init__(self, like: Judge | None = None) -> None:
        self.hashes: dict[str, set[str]] = {}
        if like is not None:  # the requests the run's judge will get (e.g. the local judge's yes/no form)
            self.profile = like.profile

    async def verdict(self, request: VerdictRequest) -> Verdict:
        self.hashes.setdefault(request.check, set()).add(request.prompt_hash)
        raise JudgeCallError("probe: no model is called")
