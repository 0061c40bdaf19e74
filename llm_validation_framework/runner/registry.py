"""Agents by name, imported only when asked for (a missing one gives a clear error).

``accuracy``, ``relevancy``, ``citation``, ``answer_accuracy``, ``context_relevance``,
``groundedness``; or any ``package.module:ClassName`` of an :class:`Agent` subclass.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError

__all__ = ["AGENTS", "agent_class", "build_agents", "split_agent_names"]

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


def agent_class(name: str) -> type:
    """The Agent class for a registry name or ``module:Class`` path."""
    from ..agents.base import Agent

    if name in AGENTS:
        module_name, class_name = AGENTS[name]
    elif ":" in name:
        module_name, class_name = name.split(":", 1)
    else:
        raise ConfigError(f"unknown agent {name!r}: choose from {', '.join(AGENTS)} "
                          f"(or give a custom one as package.module:ClassName)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"agent {name!r} is not available: importing {module_name} failed ({exc})") from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ConfigError(f"agent {name!r} is not available: {module_name} has no {class_name}")
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise ConfigError(f"{name!r} is not an Agent subclass (got {cls!r})")
    return cls


def build_agents(agents: str | Sequence[Any], judge: Any, *, threshold: float | None = None,
                 rag: Any = None, repeats: int | None = None) -> list[tuple[str, Any]]:
    """``[(result name, agent)]``: names are instantiated with the shared ``judge``; Agent instances are kept."""
    from ..agents.base import Agent

    items: list[Any] = split_agent_names(agents) if isinstance(agents, str) else list(agents)
    if not items:
        raise ConfigError(f"no agent given: pass one or more of {', '.join(AGENTS)}")
    out: list[tuple[str, Any]] = []
    for item in items:
        if isinstance(item, Agent):
            name = item.name
            agent = item
        elif isinstance(item, str):
            for name in split_agent_names(item):
                kwargs: dict[str, Any] = {"judge": judge}
                if threshold is not None:
                    kwargs["threshold"] = threshold
                if rag is not None:
                    kwargs["rag"] = rag
                if repeats is not None:
                    kwargs["repeats"] = repeats
                out.append((name, agent_class(name)(**kwargs)))
            continue
        else:
            raise ConfigError(f"agents must be names or Agent instances, got {type(item).__name__}")
        out.append((name, agent))
    names = [name for name, _ in out]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"agent {duplicates[0]!r} is given twice: each agent's results are keyed by its name")
    return out
