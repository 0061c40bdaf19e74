"""Score calibration of the local judge: a Platt map per check.

A small model rarely gives a rating scale's top value, so its expected ratings bunch below 0.5
whatever the input, and a fixed 0.5 threshold then fails every case although the ranking is
informative. A monotone map ``sigmoid(a * logit(score) + b)`` moves the decision point to where
the labels separate without changing the ranking. The shipped maps (:data:`DEFAULT_CALIBRATION`)
were fitted by ``benchmarks/fit_calibration.py`` on human-labelled development rows for the
default model only: a map fitted on one model says nothing about another. The rows, fits and
held-out results are in docs/local-judge.md ("Why these defaults").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...errors import ConfigError

__all__ = ["Calibration", "DEFAULT_CALIBRATION", "calibrate", "calibration_from"]


@dataclass(frozen=True)
class Calibration:
    """A Platt map for one check's scores: ``sigmoid(a * logit(score) + b)``, and where it came from."""

    a: float
    b: float
    fitted_on: str = ""

    def __call__(self, score: float) -> float:
        p = min(max(score, 1e-4), 1.0 - 1e-4)
        return 1.0 / (1.0 + math.exp(-(self.a * math.log(p / (1.0 - p)) + self.b)))


#: Calibration of the default model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M), verdicts without a
#: reason, fitted on ``judge_quality.py --calibration none`` predictions for development rows
#: disjoint from the held-out rows the docs report. Each map is fitted on the requests this judge
#: actually sends: the per-passage yes/no question for context relevance (see ``JudgeProfile.prefers_yes_no``),
#: answer accuracy's first template only (see ``JudgeProfile.swapped_roles``). Checks whose scores already
#: separate near 0.5, or that have no labelled rows (support, relevancy, factual …), have no map.
DEFAULT_CALIBRATION: dict[str, Calibration] = {
    "context_relevance": Calibration(2.8068, 2.7594, "labelled relevance development rows, both templates"),
    "context_relevance[yes/no]": Calibration(1.7378, 3.5334, "labelled relevance development rows, yes/no question"),
    "answer_accuracy": Calibration(3.3939, 0.4237, "labelled answer-accuracy development rows, template 1"),
    "response_groundedness": Calibration(6.7298, 2.9976, "labelled support development rows, both templates"),
}


def calibrate(calibration: Mapping[str, Calibration], check: str, score: float,
              labels: Sequence[str] = ()) -> float | None:
    """The calibrated score, or None when there is no map.

    A key ``"check[label/label]"`` (e.g. ``"context_relevance[yes/no]"``) is for that check's
    requests with exactly those labels; a plain ``"check"`` key is for its other requests.
    """
    mapping = calibration.get(f"{check}[{'/'.join(labels)}]") if labels else None
    if mapping is None:
        mapping = calibration.get(check)
    return None if mapping is None else mapping(score)


def calibration_from(value: object, *, default_model: bool) -> dict[str, Calibration]:
    """The per-check maps a ``calibration=`` argument asks for.

    ``"default"``: the shipped maps for the default model, none for any other; None or ``{}``:
    raw expected scores; a mapping of check name to a :class:`Calibration` or a pair ``(a, b)``.
    """
    if value == "default":
        return dict(DEFAULT_CALIBRATION) if default_model else {}
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"calibration must be 'default', None or a mapping of check name to (a, b), got {value!r}")
    out: dict[str, Calibration] = {}
    for check, item in value.items():
        if isinstance(item, Calibration):
            out[str(check)] = item
        elif (isinstance(item, (tuple, list)) and len(item) == 2
              and all(isinstance(v, (int, float)) and math.isfinite(v) for v in item)):
            out[str(check)] = Calibration(float(item[0]), float(item[1]), "given")
        else:
            raise ConfigError(f"calibration[{check!r}] must be a Calibration or a pair of finite numbers (a, b), "
                             f"got {item!r}")
    return out
