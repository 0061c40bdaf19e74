"""The paired bootstrap: a confidence interval for the mean of per-case differences.

Each case contributes one difference (NEW − BASE, its pass 0/1 or its score), so the two runs'
case-to-case variation cancels and only the change is resampled. The cases are drawn with
replacement ``resamples`` times, each draw's mean kept, and the interval is the central
``confidence`` share of those means (the percentile interval). The generator is seeded, so the
same files give the same interval. Every difference 0 gives exactly [0, 0].

The percentile interval assumes the cases are a fair sample of the cases that matter; with few
cases it is too narrow (it cannot reach beyond the differences observed), so the comparison
says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import ConfigError

__all__ = ["bootstrap_interval", "check_bootstrap_options"]

#: resampled cases drawn per block: bounds the memory of one block (8 bytes each) on large files
_BLOCK_CELLS = 1 << 20


def check_bootstrap_options(resamples: int, confidence: float) -> None:
    """A clear error naming the option for a resample count or a confidence level that cannot work."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ConfigError(f"resamples must be a positive integer (e.g. 2000), got {resamples!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise ConfigError(f"confidence must be between 0 and 1 exclusive (e.g. 0.95), got {confidence!r}")


def bootstrap_interval(diffs: Sequence[float], *, resamples: int = 2000, confidence: float = 0.95,
                       seed: int = 0) -> tuple[float, float]:
    """(low, high) of the mean of ``diffs`` at ``confidence``, by the seeded percentile bootstrap."""
    import numpy as np

    check_bootstrap_options(resamples, confidence)
    values = np.asarray(diffs, dtype=float)
    if values.size == 0:
        raise ValueError("bootstrap_interval needs at least one difference")
    if np.all(values == values[0]):  # every resample's mean is that value: no draw can say otherwise
        return float(values[0]), float(values[0])
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_CELLS // values.size)
    means = np.empty(resamples)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        means[start:stop] = values[rng.integers(0, values.size, size=(stop - start, values.size))].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)
