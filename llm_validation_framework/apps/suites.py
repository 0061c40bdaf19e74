"""``--suite suite.toml`` of ``lvf run`` and ``lvf check``: agents declared in suite files.

The files are read and checked first (:func:`check_suites`), before any judge is built, so a
mistake costs nothing; the agents are built once the judge is ready (:func:`suite_agents`).
``--threshold`` and ``--repeats`` given on the command line apply to these agents too, over what
their files say, as they do to every agent named with ``--agent``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError

__all__ = ["check_suites", "suite_agents"]


def check_suites(paths: Sequence[str], agent_names: Sequence[str]) -> None:
    """Read every suite file (a mistake is a ConfigError naming its line); one of ``--agent`` or
    ``--suite`` is needed."""
    from ..agents.suite_spec import read_suite

    if not paths and not agent_names:
        raise ConfigError("give the agent(s) to run: --agent NAME (accuracy, relevancy …) or --suite suite.toml")
    for path in paths:
        read_suite(path)


def suite_agents(paths: Sequence[str], judge: Any, *, threshold: float | None = None,
                 repeats: int | None = None) -> list[Any]:
    """The agents of the suite files at ``paths``, asking ``judge``."""
    from ..agents.base import Agent

    agents = []
    for path in paths:
        agent = Agent.from_file(path, judge=judge)
        if threshold is not None:
            agent.update_threshold(threshold)
        if repeats is not None:
            if repeats % 2 == 0:
                raise ConfigError(f"--repeats must be odd (1, 3, 5 …), got {repeats}")
            agent.repeats = repeats
        agents.append(agent)
    return agents
