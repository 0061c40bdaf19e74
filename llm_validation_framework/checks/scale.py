"""A rating scale for a criteria check: labels, the score each stands for, and what each means.

    Scale({"yes": (1.0, "fully meets it"), "partly": (0.5, "meets part of it"), "no": (0.0, "does not")})
    Scale.rubric(["incoherent", "mostly incoherent", "partly coherent", "mostly coherent", "fully coherent"])

The judge answers with one label; a judge that gives token probabilities makes the score the
probability-weighted mean of the levels' scores. Labels must begin differently (the local judge
reads only the first answer token), so a rubric numbers its levels 1 to at most 9.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import ConfigError

__all__ = ["YES_PARTLY_NO", "Level", "Scale"]


@dataclass(frozen=True)
class Level:
    """One level of a scale: the ``label`` the judge writes, its ``score`` in [0, 1] and its ``meaning``."""

    label: str
    score: float
    meaning: str


@dataclass(frozen=True, init=False)
class Scale:
    """Ordered levels (see the module docstring). ``levels`` maps each label to ``(score, meaning)``,
    or is a list of :class:`Level`."""

    levels: tuple[Level, ...]

    def __init__(self, levels: Mapping[str, tuple[float, str]] | Sequence[Level]) -> None:
        items = _levels(levels)
        if len(items) < 2:
            raise ConfigError(f"a scale needs at least two levels, got {len(items)}")
        seen: list[str] = []
        for level in items:
            label = level.label
            if not isinstance(label, str) or not label or label != label.strip():
                raise ConfigError(f"scale label {label!r} must be a non-empty string without surrounding spaces")
            if isinstance(level.score, bool) or not isinstance(level.score, (int, float)) \
                    or math.isnan(level.score) or not 0.0 <= level.score <= 1.0:
                raise ConfigError(f"scale level {label!r}: the score must be a number in [0, 1], got {level.score!r}")
            if not isinstance(level.meaning, str) or not level.meaning.strip():
                raise ConfigError(f"scale level {label!r}: say what it means (a sentence the judge reads)")
            for other in seen:
                a, b = label.lower(), other.lower()
                if a.startswith(b) or b.startswith(a):
                    raise ConfigError(f"scale labels {other!r} and {label!r}: no label may begin another (the "
                                      "local judge reads the first token of the answer); rename one")
            seen.append(label)
        object.__setattr__(self, "levels", tuple(Level(lv.label, float(lv.score), lv.meaning.strip()) for lv in items))

    @classmethod
    def rubric(cls, anchors: Sequence[str]) -> Scale:
        """Levels ``"1"`` … ``"n"`` (2 ≤ n ≤ 9), one anchor sentence each, lowest first; scores 0 … 1 evenly."""
        if isinstance(anchors, str) or not 2 <= len(anchors) <= 9:
            raise ConfigError("Scale.rubric needs a list of 2 to 9 anchor sentences, lowest level first")
        top = len(anchors) - 1
        return cls([Level(str(i + 1), i / top, anchor) for i, anchor in enumerate(anchors)])

    @property
    def options(self) -> dict[str, float]:
        """Label → score, as a verdict request takes them."""
        return {level.label: level.score for level in self.levels}

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(level.label for level in self.levels)

    def describe(self) -> str:
        """One line per level, as the judge reads them: ``- label: meaning``."""
        return "\n".join(f"- {level.label}: {level.meaning}" for level in self.levels)


def _levels(levels: object) -> list[Level]:
    if isinstance(levels, Mapping):
        out = []
        for label, value in levels.items():
            if not (isinstance(value, (tuple, list)) and len(value) == 2):
                raise ConfigError(f"scale level {label!r} must be (score, meaning), got {value!r}")
            out.append(Level(label, value[0], value[1]))
        return out
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Iterable):
        raise ConfigError(f"a scale is {{label: (score, meaning)}} or a list of Level, got {type(levels).__name__}")
    out = list(levels)
    for item in out:
        if not isinstance(item, Level):
            raise ConfigError(f"a scale's levels must be Level(label, score, meaning), got {item!r}")
    return out


#: the default scale: does the case meet the criterion?
YES_PARTLY_NO = Scale({
    "yes": (1.0, "the case fully meets the criterion"),
    "partly": (0.5, "the case meets part of the criterion, or meets it with clear flaws"),
    "no": (0.0, "the case does not meet the criterion"),
})
