"""Token and cost accounting shared by judges, checks and results."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

__all__ = ["Usage"]


@dataclass(frozen=True)
class Usage:
    """What judge calls cost. ``cost_usd`` is None when the provider's price is unknown."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0
    cached_calls: int = 0

    def __add__(self, other: Usage) -> Usage:
        if self.cost_usd is None or other.cost_usd is None:
            cost = None
        else:
            cost = self.cost_usd + other.cost_usd
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=cost,
            cached_calls=self.cached_calls + other.cached_calls,
        )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def sum(cls, items: Iterable[Usage]) -> Usage:
        total = cls()
        for item in items:
            total = total + item
        return total
