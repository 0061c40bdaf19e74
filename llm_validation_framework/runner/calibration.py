"""A pass mark fitted to human labels: the threshold on the agent's score that agrees best with them.

A case passes when its score reaches the threshold (``score >= threshold``). Given each case's
score and its human label (pass or fail), :func:`fit_threshold` tries every cut between two
neighbouring scores and keeps the one with the highest balanced accuracy (the mean of the share
of pass labels passed and the share of fail labels failed, so a set with few fail labels cannot
be served by passing everything). Among equally good cuts it keeps the middle one. That cut
estimates where a pass-labelled case's score becomes as likely as a fail-labelled one's (where the
two labels' score distributions cross), whatever the share of each label.

At the fitted threshold and, when given, at the current one it reports the confusion table,
balanced accuracy and Cohen's kappa (agreement beyond what the two marginals give by chance),
each with a seeded bootstrap interval. The bootstrap is stratified: pass labels and fail labels
are resampled separately, so every resample keeps both classes and their counts. Refitting the
threshold on every resample gives the threshold's own interval. The fitted threshold's balanced
accuracy is measured on the labels it was fitted on and so is optimistic; the held-out figure
fits on each resample and scores the cases that resample left out.

Too few labels of either class make all of this noise, so fitting refuses below
:data:`MIN_PER_CLASS` of each (a clear :class:`~llm_validation_framework.errors.InputError`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, InputError

__all__ = ["MIN_PER_CLASS", "Agreement", "Calibration", "Confusion", "agreement_at", "check_label_counts",
           "fit_threshold"]

#: labels of each class (pass, fail) below which no threshold is fitted
MIN_PER_CLASS = 10


@dataclass(frozen=True)
class Confusion:
    """The cases by verdict (score at or above the threshold: PASS) and human label."""

    pass_labelled_pass: int
    pass_labelled_fail: int
    fail_labelled_pass: int
    fail_labelled_fail: int

    def to_dict(self) -> dict[str, int]:
        return {"pass_labelled_pass": self.pass_labelled_pass, "pass_labelled_fail": self.pass_labelled_fail,
                "fail_labelled_pass": self.fail_labelled_pass, "fail_labelled_fail": self.fail_labelled_fail}


@dataclass(frozen=True)
class Agreement:
    """How PASS/FAIL at one ``threshold`` agrees with the labels; intervals are (low, high)."""

    threshold: float
    confusion: Confusion
    balanced_accuracy: float
    kappa: float
    balanced_accuracy_interval: tuple[float, float]
    kappa_interval: tuple[float, float]

    def to_dict(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "confusion": self.confusion.to_dict(),
                "balanced_accuracy": self.balanced_accuracy, "kappa": self.kappa,
                "balanced_accuracy_interval": list(self.balanced_accuracy_interval),
                "kappa_interval": list(self.kappa_interval)}


@dataclass(frozen=True)
class Calibration:
    """A fitted pass mark: :attr:`threshold` and how it agrees with the labels, beside the current one.

    ``agent``, ``label`` and ``skipped`` (cases left out, by reason) are filled when the scores
    came from a results file (:func:`~llm_validation_framework.runner.calibrate_results.calibrate_threshold`).
    """

    fitted: Agreement
    current: Agreement | None
    threshold_interval: tuple[float, float]
    held_out_balanced_accuracy: float | None
    positives: int
    negatives: int
    resamples: int
    confidence: float
    seed: int
    notes: tuple[str, ...] = ()
    agent: str | None = None
    label: str | None = None
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def threshold(self) -> float:
        return self.fitted.threshold

    def write_to(self, suite: str | os.PathLike[str]) -> None:
        """Write :attr:`threshold` into the suite file ``suite`` (its top-level ``threshold``; comments
        and layout kept), as ``lvf calibrate --write`` does. A file that is not a valid suite is
        refused (ConfigError naming its line) and left as it was."""
        from ..agents.suite_spec import read_suite
        from ..infra.toml_file import set_top_level_number

        read_suite(suite)
        set_top_level_number(suite, "threshold", self.threshold)

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "label": self.label, "threshold": self.threshold,
                "threshold_interval": list(self.threshold_interval), "fitted": self.fitted.to_dict(),
                "current": None if self.current is None else self.current.to_dict(),
                "held_out_balanced_accuracy": self.held_out_balanced_accuracy, "positives": self.positives,
                "negatives": self.negatives, "skipped": dict(self.skipped), "resamples": self.resamples,
                "confidence": self.confidence, "seed": self.seed, "notes": list(self.notes)}


def check_label_counts(positives: int, negatives: int, min_per_class: int, *, field: str = "labels",
                       where: str = "") -> None:
    """Refuse (InputError naming ``field``) when either class has fewer than ``min_per_class`` labels."""
    if positives >= min_per_class and negatives >= min_per_class:
        return
    short = "pass" if positives < min_per_class else "fail"
    raise InputError(
        f"{field}: {positives} pass and {negatives} fail label(s){where}; fitting a threshold needs at least "
        f"{min_per_class} of each, or the agreement figures are noise. Label more cases that should "
        f"{short} (a lower minimum is min_per_class / --min-per-class, at your own risk)", field=field)


def fit_threshold(scores: Sequence[float], labels: Sequence[bool], *, current: float | None = None,
                  resamples: int = 2000, confidence: float = 0.95, seed: int = 0,
                  min_per_class: int = MIN_PER_CLASS) -> Calibration:
    """The threshold on ``scores`` that best agrees with ``labels`` (True: the case should pass).

    ``current``: a threshold to report beside the fitted one. ``resamples``, ``confidence`` and
    ``seed`` set the bootstrap (same inputs and seed, same intervals). Raises InputError when
    the inputs differ in length, a score is not a finite number, or either class has fewer than
    ``min_per_class`` labels.
    """
    import numpy as np

    _check_options(resamples, confidence, min_per_class, current)
    if len(scores) != len(labels):
        raise InputError(f"scores and labels differ in length ({len(scores)} vs {len(labels)})", field="labels")
    s = np.asarray(scores, dtype=float)
    if s.size and not np.all(np.isfinite(s)):
        raise InputError("scores: every score must be a finite number", field="scores")
    y = np.asarray([bool(v) for v in labels], dtype=bool)
    positives, negatives = int(y.sum()), int((~y).sum())
    check_label_counts(positives, negatives, min_per_class)

    threshold = _best_threshold(s, y)
    rng = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    fixed = [threshold] + ([current] if current is not None else [])
    refits = np.empty(resamples)
    ba = np.empty((resamples, len(fixed)))
    kappa = np.empty((resamples, len(fixed)))
    held_out: list[float] = []
    for r in range(resamples):
        idx = np.concatenate([rng.choice(pos, pos.size), rng.choice(neg, neg.size)])
        rs, ry = s[idx], y[idx]
        refits[r] = _best_threshold(rs, ry)
        for j, t in enumerate(fixed):
            ba[r, j], kappa[r, j] = _scores(_confusion(rs, ry, t))
        left_out = np.ones(s.size, dtype=bool)
        left_out[idx] = False
        if y[left_out].any() and (~y[left_out]).any():
            held_out.append(_scores(_confusion(s[left_out], y[left_out], refits[r]))[0])

    tail = (1 - confidence) / 2

    def interval(values: Any) -> tuple[float, float]:
        low, high = np.quantile(values, [tail, 1 - tail])
        return float(low), float(high)

    agreements = [Agreement(t, _confusion(s, y, t), *_scores(_confusion(s, y, t)), interval(ba[:, j]),
                            interval(kappa[:, j])) for j, t in enumerate(fixed)]
    notes = []
    if np.unique(s).size == 1:
        notes.append(f"every case has the same score ({s[0]:g}): the scores cannot separate the labels")
    return Calibration(agreements[0], agreements[1] if current is not None else None, interval(refits),
                       float(np.mean(held_out)) if held_out else None, positives, negatives, resamples,
                       confidence, seed, tuple(notes))


def agreement_at(scores: Sequence[float], labels: Sequence[bool], threshold: float) -> tuple[Confusion, float, float]:
    """(confusion table, balanced accuracy, Cohen's kappa) of PASS at ``threshold`` against ``labels``."""
    import numpy as np

    confusion = _confusion(np.asarray(scores, dtype=float), np.asarray(labels, dtype=bool), threshold)
    return (confusion, *_scores(confusion))


# -- the arithmetic -----------------------------------------------------------------------------------
def _confusion(s: Any, y: Any, threshold: float) -> Confusion:
    passed = s >= threshold
    return Confusion(int((passed & y).sum()), int((passed & ~y).sum()), int((~passed & y).sum()),
                     int((~passed & ~y).sum()))


def _scores(c: Confusion) -> tuple[float, float]:
    """(balanced accuracy, Cohen's kappa) of a confusion table holding both label classes."""
    pos = c.pass_labelled_pass + c.fail_labelled_pass
    neg = c.pass_labelled_fail + c.fail_labelled_fail
    n = pos + neg
    balanced = (c.pass_labelled_pass / pos + c.fail_labelled_fail / neg) / 2
    observed = (c.pass_labelled_pass + c.fail_labelled_fail) / n
    passed = c.pass_labelled_pass + c.pass_labelled_fail
    chance = (passed * pos + (n - passed) * neg) / (n * n)
    # chance reaches 1 only when verdicts and labels are each all one class: impossible with both labels
    kappa = (observed - chance) / (1 - chance) if chance < 1 else 0.0
    return float(balanced), float(kappa)


def _best_threshold(s: Any, y: Any) -> float:
    """The cut with the highest balanced accuracy; the middle one among ties.

    Cuts lie between neighbouring distinct scores (every threshold in such a gap gives the same
    verdicts), plus the lowest score itself (everything passes)."""
    import numpy as np

    values, inverse = np.unique(s, return_inverse=True)
    pos_at = np.bincount(inverse, weights=y, minlength=values.size)
    neg_at = np.bincount(inverse, weights=~y, minlength=values.size)
    # passing from distinct value k upwards: counts at and above k
    tp = np.cumsum(pos_at[::-1])[::-1]
    fp = np.cumsum(neg_at[::-1])[::-1]
    balanced = (tp / pos_at.sum() + 1 - fp / neg_at.sum()) / 2
    best = np.flatnonzero(balanced >= balanced.max() - 1e-12)
    k = int(best[len(best) // 2])
    return float(values[0]) if k == 0 else _round_between(float(values[k - 1]), float(values[k]))


def _round_between(below: float, at: float) -> float:
    """The midpoint of (below, at], rounded to the fewest decimals that keep it inside the gap."""
    middle = (below + at) / 2
    for digits in range(2, 10):
        value = round(middle, digits)
        if below < value <= at:
            return value
    return middle


def _check_options(resamples: int, confidence: float, min_per_class: int, current: float | None) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ConfigError(f"resamples must be a positive integer (e.g. 2000), got {resamples!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise ConfigError(f"confidence must be between 0 and 1 exclusive (e.g. 0.95), got {confidence!r}")
    if isinstance(min_per_class, bool) or not isinstance(min_per_class, int) or min_per_class < 1:
        raise ConfigError(f"min_per_class must be a positive integer, got {min_per_class!r}")
    if current is not None and (isinstance(current, bool) or not isinstance(current, (int, float))
                                or not math.isfinite(current)):
        raise ConfigError(f"current must be a threshold number, got {current!r}")
