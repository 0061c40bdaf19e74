"""How a composed agent's parts are checked and named: its weighted checks, its vetoes, its name.

Each rule fails at construction with a ConfigError naming the entry and the fix, so a mistake in a
composition shows before any case is judged.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence

from ..checks.base import Check
from ..errors import ConfigError
from .veto import Veto

__all__ = ["agent_name", "validate_vetoes", "weighted_checks"]


def weighted_checks(checks: Sequence[tuple[Check, float] | Check] | None) -> list[tuple[Check, float]]:
    """``checks`` as ``[(check, weight)]``, or a ConfigError naming the entry and the fix."""
    if checks is None:
        return []
    if isinstance(checks, (str, bytes, Mapping)) or not isinstance(checks, Sequence):
        raise ConfigError(f"checks must be a list of (check, weight) pairs, got {type(checks).__name__}: "
                          f"{checks!r:.80} (config_path, provider, model and rag are keywords: config_path=...)")
    out: list[tuple[Check, float]] = []
    for index, item in enumerate(checks):
        check, weight = (item, 1.0) if isinstance(item, Check) else item if _is_pair(item) else (None, None)
        if not isinstance(check, Check):
            raise ConfigError(f"checks[{index}] must be a Check or a (check, weight) pair, got {item!r:.80}")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0.0 <= weight < math.inf:
            raise ConfigError(f"checks[{index}] ({check.name}): the weight must be a number >= 0, got {weight!r}")
        out.append((check, float(weight)))
    names = [check.name for check, _ in out]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConfigError(f"checks: two checks are named {repeated[0]!r}; results and vetoes find a check by its "
                          "name, so give each its own (e.g. Criteria('polite_tone', ...))")
    if out and not any(weight > 0 for _, weight in out):
        raise ConfigError("checks: every weight is 0; give at least one check a positive weight")
    return out


def validate_vetoes(vetoes: Sequence[Veto], checks: Sequence[tuple[Check, float]]) -> tuple[Veto, ...]:
    """``vetoes`` as a tuple; with fixed ``checks``, each must name one of them."""
    if isinstance(vetoes, Veto):
        vetoes = (vetoes,)
    if isinstance(vetoes, (str, bytes)) or not isinstance(vetoes, Sequence):
        raise ConfigError(f"vetoes must be a list of Veto(...), got {type(vetoes).__name__}")
    names = [check.name for check, _ in checks]
    for index, veto in enumerate(vetoes):
        if not isinstance(veto, Veto):
            raise ConfigError(f"vetoes[{index}] must be a Veto(check, below=...), got {veto!r:.80}")
        if names and veto.check not in names:
            raise ConfigError(f"vetoes[{index}]: Veto({veto.check!r}) names no check of this agent "
                              f"(its checks: {', '.join(names)})")
    return tuple(vetoes)


_names_lock = threading.Lock()
_names_used: dict[str, int] = {}


def agent_name(name: str | None, cls: type, checks: Sequence[tuple[Check, float]]) -> str:
    """The name given, else the class's (a preset), else ``agent(<check names>)`` numbered within the
    process (``#2`` …): results are keyed by agent name, so two composed agents must not share one."""
    if name is not None:
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"name must be a non-empty string, got {name!r}")
        return name
    preset = getattr(cls, "name", "")
    if isinstance(preset, str) and preset:
        return preset
    base = f"agent({'+'.join(check.name for check, _ in checks)})" if checks else cls.__name__
    with _names_lock:
        count = _names_used[base] = _names_used.get(base, 0) + 1
    return base if count == 1 else f"{base}#{count}"


def _is_pair(item: object) -> bool:
    return isinstance(item, (tuple, list)) and len(item) == 2
