"""What ``lvf serve`` counts (GET /stats): requests, generations, tokens and errors, in total and per client.

Clients sharing one server (several benchmark processes, say) each send their own ``model`` name
and read their own counts under ``by_model``, even while their requests interleave. The number
of names is bounded so that a client inventing names cannot grow the server's memory.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from .limits import MAX_STATS_MODELS

__all__ = ["OTHER_MODELS", "ServerStats", "StatsBook", "request_model"]

#: the name counting every model name past the bound
OTHER_MODELS = "(other)"


@dataclass
class ServerStats:
    """What the server did since it started or since the last reset."""

    requests: int = 0          #: chat- and text-completion HTTP requests answered (any status)
    completions: int = 0       #: model generations (a request with n=3 makes three)
    errors: int = 0            #: requests answered with a 4xx/5xx status
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: time requests spent inside the model (summed: with parallel slots it can exceed the wall time)
    busy_seconds: float = 0.0
    cached_prompt_tokens: int = 0  #: prompt tokens llama.cpp reused from its cache (included in prompt_tokens)
    missing_usage: int = 0     #: generations whose backend reported no token counts

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["busy_seconds"] = round(self.busy_seconds, 3)
        return data


class StatsBook:
    """Thread-safe totals plus one :class:`ServerStats` per requested model name (at most ``max_models``)."""

    def __init__(self, max_models: int = MAX_STATS_MODELS) -> None:
        self.max_models = max_models
        self._lock = threading.Lock()
        self._total = ServerStats()
        self._by_model: dict[str, ServerStats] = {}

    def add(self, model: str | None = None, **deltas: float) -> None:
        """Add ``deltas`` (ServerStats field name -> amount) to the totals and to ``model``'s counts."""
        with self._lock:
            targets = [self._total]
            if model is not None:
                if model not in self._by_model and len(self._by_model) >= self.max_models:
                    model = OTHER_MODELS
                targets.append(self._by_model.setdefault(model, ServerStats()))
            for stats in targets:
                for name, delta in deltas.items():
                    setattr(stats, name, getattr(stats, name) + delta)

    def snapshot(self, *, reset: bool = False) -> dict[str, Any]:
        """The totals with ``by_model``; ``reset`` zeroes everything after reading it."""
        with self._lock:
            snapshot = self._total.to_dict()
            snapshot["by_model"] = {name: stats.to_dict() for name, stats in self._by_model.items()}
            if reset:
                self._total = ServerStats()
                self._by_model = {}
        return snapshot


def request_model(body: Any) -> str | None:
    """The ``model`` a request body named (what /stats counts it under), or None."""
    model = body.get("model") if isinstance(body, Mapping) else None
    return model[:200] if isinstance(model, str) and model else None
