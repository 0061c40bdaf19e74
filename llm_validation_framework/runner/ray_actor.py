"""The Ray actor of a distributed run: builds its judge and agents once, then evaluates units.

This module does not import Ray: :mod:`runner.ray_executor` wraps :class:`UnitActor` with
``ray.remote`` when a run asks for Ray, so the class stays importable (and testable) without it.

One actor holds one copy of what is expensive to build: the judge (a LocalJudge loads its model
once per actor, with llama.cpp threads equal to the CPUs the actor holds), the sqlite judge cache
and the agents. Its methods are coroutines, so an API judge's calls for the units sent to it run
concurrently inside the actor; the driver decides how many units are in flight.
"""

from __future__ import annotations

import os
from typing import Any

from ..judges.base import Judge
from .dataset import CaseRow
from .units import aclose_quietly, evaluate_unit

__all__ = ["UnitActor"]


class UnitActor:
    """Evaluates (case, agent) units with agents built by name on ``judge``.

    ``cache_path`` None: no judge cache. ``cpus``: the CPUs Ray reserved for this actor; an
    in-process model judge (LocalJudge) runs with that many threads."""

    def __init__(self, judge: Judge, agent_names: tuple[str, ...], cache_path: str | None,
                 threshold: float | None, repeats: int | None, cpus: float) -> None:
        from ..judges.cache import CachedJudge
        from ..text.embeddings import get_encoder
        from .registry import build_agents

        if judge.profile.in_process_model and hasattr(judge, "n_threads"):
            judge.n_threads = max(1, int(cpus))
        # the embedding model (injection detector, similarity) keeps to the actor's CPUs as well
        get_encoder().threads = max(1, int(cpus))
        self._judge = judge
        self._shared = CachedJudge(judge, cache_path) if cache_path is not None else judge
        self._agents = dict(build_agents(list(agent_names), self._shared, threshold=threshold, repeats=repeats))

    async def ready(self) -> int:
        """Finish the slow set-up before the first unit (litellm's import, a model load, the injection
        detector's embedding model, which every check reads its inputs with); the pid."""
        from ..text.injection_model import load_detector

        await self._judge.prepare()
        load_detector()
        return os.getpid()

    async def evaluate(self, row: CaseRow, name: str) -> dict[str, Any]:
        """The results line of agent ``name`` on ``row`` (a case's failure is its ERROR line)."""
        return await evaluate_unit(row, name, self._agents[name])

    async def close(self) -> None:
        """Close the cache file and the judge's clients."""
        from ..judges.cache import CachedJudge

        if isinstance(self._shared, CachedJudge):
            self._shared.close()
        await aclose_quietly(self._judge)
