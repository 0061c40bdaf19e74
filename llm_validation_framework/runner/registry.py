"""Agents by name, imported only when asked for (a missing one gives a clear error).

``accuracy``, ``relevancy``, ``citation``, ``answer_accuracy``, ``context_relevance``,
``groundedness``; or ``module:attribute`` naming one of your own: an :class:`Agent` subclass, a
function returning an agent (called with the keywords a class gets: ``judge`` and, when set,
``threshold``, ``rag``, ``repeats``), or an agent, copied to use the run's judge.

A ``module`` is found as ``python -m`` and pytest find it: in the current directory first, then on
the path, so ``lvf run --agent my_agents:polite`` works beside ``my_agents.py`` with no
``PYTHONPATH``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from ..errors import ConfigError
from ..infra.user_modules import import_user_module

if TYPE_CHECKING:
    from ..agents.base import Agent
    from ..judges.base import Judge
    from ..retrieval.provider import RAGProvider

#: the agents of a run: registry names or ``module:attribute`` paths (comma-separated in one string
#: or listed), and Agent instances
AgentSpec: TypeAlias = "str | Sequence[str | Agent]"

__all__ = ["AGENTS", "AgentSpec", "agent_class", "agent_target", "build_agents", "import_user_module",
           "split_agent_names"]

#: name → (module, class)
AGENTS: dict[str, tuple[str, str]] = {
    "accuracy": ("llm_validation_framework.agents.accuracy", "AccuracyAgent"),
    "relevancy": ("llm_validation_framework.agents.relevancy", "RelevancyAgent"),
    "citation": ("llm_validation_framework.agents.citation", "CitationAgent"),
    "answer_accuracy": ("llm_validation_framework.agents.reference", "AnswerAccuracyAgent"),
    "context_relevance": ("llm_validation_framework.agents.reference", "ContextRelevanceAgent"),
    "groundedness": ("llm_validation_framework.agents.reference", "GroundednessAgent"),
}


def split_agent_names(value: str | Sequence[str]) -> list[str]:
    """``"accuracy,citation"`` or ``["accuracy", "citation,groundedness"]`` → a list of names."""
    items = [value] if isinstance(value, str) else list(value)
    names = [part.strip() for item in items for part in str(item).split(",") if part.strip()]
    if not names:
        raise ConfigError(f"no agent given: pass --agent with one or more of {', '.join(AGENTS)}")
    return names


def agent_target(name: str) -> Any:
    """What a registry name or ``module:attribute`` names: an Agent subclass, a function returning an
    agent, or an agent (nothing is built or called here)."""
    from ..agents.base import Agent

    if name in AGENTS:
        module_name, attribute = AGENTS[name]
    elif ":" in name:
        module_name, attribute = name.split(":", 1)
    else:
        raise ConfigError(f"unknown agent {name!r}: choose from {', '.join(AGENTS)} "
                          f"(or give your own as module:Class, module:function or module:agent)")
    if not module_name or not attribute:
        raise ConfigError(f"agent {name!r}: write module:attribute, e.g. my_agents:PoliteAgent")
    try:
        module = import_user_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"agent {name!r} is not available: importing {module_name} failed ({exc}); "
                          f"run from the directory holding {module_name.split('.')[0]}.py or install it") from exc
    target = getattr(module, attribute, None)
    if target is None:
        raise ConfigError(f"agent {name!r} is not available: {module_name} has no {attribute}")
    if isinstance(target, type) and not issubclass(target, Agent):
        raise ConfigError(f"{name!r} is not an Agent subclass (got {target!r})")
    if not (isinstance(target, (type, Agent)) or callable(target)):
        raise ConfigError(f"{name!r} is not an Agent, an Agent subclass or a function returning one "
                          f"(got {type(target).__name__})")
    return target


def agent_class(name: str) -> type[Agent]:
    """The Agent class for a registry name or ``module:Class`` path."""
    target = agent_target(name)
    if not isinstance(target, type):
        raise ConfigError(f"{name!r} is not an Agent subclass (got {target!r})")
    return target


def _build_one(name: str, judge: Judge | None, options: dict[str, Any]) -> Agent:
    """The agent ``name`` stands for, asking ``judge`` with ``options`` (threshold, rag, repeats) applied."""
    from ..agents.base import Agent

    target = agent_target(name)
    if isinstance(target, Agent):
        # a copy: the threshold and options below must not change the user's module-level object
        agent = target.with_judge(judge) if judge is not None else copy.copy(target)
        if "threshold" in options:
            agent.update_threshold(options["threshold"])
        for key in ("rag", "repeats"):
            if key in options:
                setattr(agent, key, options[key])
        return agent
    agent = target(judge=judge, **options)
    if not isinstance(agent, Agent):
        raise ConfigError(f"agent {name!r}: the function returned {type(agent).__name__}, not an Agent")
    return agent


def build_agents(agents: AgentSpec, judge: Judge | None, *, threshold: float | None = None,
                 rag: RAGProvider | None = None, repeats: int | None = None) -> list[tuple[str, Agent]]:
    """``[(result name, agent)]``: names are instantiated with the shared ``judge``; Agent instances are kept."""
    from ..agents.base import Agent

    items: list[str | Agent] = list(split_agent_names(agents)) if isinstance(agents, str) else list(agents)
    if not items:
        raise ConfigError(f"no agent given: pass one or more of {', '.join(AGENTS)}")
    out: list[tuple[str, Agent]] = []
    for item in items:
        if isinstance(item, Agent):
            name = item.name
            agent = item
        elif isinstance(item, str):
            for name in split_agent_names(item):
                options: dict[str, Any] = {}
                if threshold is not None:
                    options["threshold"] = threshold
                if rag is not None:
                    options["rag"] = rag
                if repeats is not None:
                    options["repeats"] = repeats
                agent = _build_one(name, judge, options)
                out.append((name, agent))  # keyed by the name given: a Ray actor rebuilds it from that
            continue
        else:
            raise ConfigError(f"agents must be names or Agent instances, got {type(item).__name__}")
        out.append((name, agent))
    names = [name for name, _ in out]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"agent {duplicates[0]!r} is given twice: each agent's results are keyed by its name")
    return out
