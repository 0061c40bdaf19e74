"""Median-of-N: run a check several times and say whether its pass/fail is stable.

``Agent(repeats=N)`` (N odd) runs every check N times through :func:`run_repeated`. The result
is the median run's result with the median score, and ``details["stability"]`` holds every
run's score, the spread (max − min) and ``unstable``: True when the threshold lies inside the
spread, i.e. at least one run would pass and another fail. An unstable result also carries a
note, so it shows in the breakdown.

Repeats only help judges that sample. A judge that reads token probabilities (the local judge,
logprob-reading API judges) or runs at temperature 0 gives the same verdict every time: the
N runs are identical, the spread is 0, and N times the calls buy nothing. A response cache in
front of the judge (the dataset runner's) also makes repeats identical: disable it for a
stability run. Runs are made one after another, so a rate-limited or single-model judge is not
flooded.

Unscored runs are left out of the median and counted (``unscored_runs``); when every run is
unscored the first run's unscored result is returned, with the others' raw replies added.
"""

from __future__ import annotations

import statistics
from typing import Any

from ..checks.base import Check
from ..judges.base import Judge
from ..types.inputs import Sample
from ..types.results import CheckResult
from ..types.usage import Usage

__all__ = ["run_repeated", "stability_summary"]


def stability_summary(scores: list[float], threshold: float) -> dict[str, Any]:
    """Median, spread and whether pass/fail at ``threshold`` flips within the spread."""
    if not scores:
        raise ValueError("stability_summary needs at least one score")
    low, high = min(scores), max(scores)
    return {
        "scores": list(scores),
        "median": statistics.median(scores),
        "spread": high - low,
        "threshold": threshold,
        "unstable": (low >= threshold) != (high >= threshold),
    }


async def run_repeated(check: Check, sample: Sample, judge: Judge, repeats: int, threshold: float) -> CheckResult:
    """Run ``check`` ``repeats`` times (odd) and return the median result with a stability report."""
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1 or repeats % 2 == 0:
        raise ValueError(f"repeats must be an odd positive integer, got {repeats!r}")
    runs = [await check.run(sample, judge) for _ in range(repeats)]
    usage = Usage.sum(r.usage for r in runs)
    scored = [r for r in runs if r.scored]
    if not scored:
        first = runs[0]
        first.usage = usage
        first.raw_replies = [reply for r in runs for reply in r.raw_replies]
        first.details = {**first.details, "stability": {"repeats": repeats, "scores": [], "unscored_runs": repeats}}
        return first
    scores = [r.score for r in scored if r.score is not None]
    summary = stability_summary(scores, threshold)
    summary.update(repeats=repeats, unscored_runs=repeats - len(scored))
    median = summary["median"]
    chosen = min(scored, key=lambda r: abs(r.score - median))
    chosen.score = median
    chosen.usage = usage
    chosen.method = chosen.method if all(r.method == chosen.method for r in scored) else "mixed"
    chosen.details = {**chosen.details, "stability": summary}
    if summary["unscored_runs"]:
        chosen.notes.append(f"{summary['unscored_runs']} of {repeats} runs unscored; median of the other "
                            f"{len(scored)}")
    if summary["unstable"]:
        chosen.notes.append(f"unstable: scores {', '.join(f'{s:.2f}' for s in scores)} straddle the threshold "
                            f"{threshold:.2f}; pass/fail changes between runs")
    return chosen
