"""``lvf calibrate results.jsonl --label FIELD``: the pass mark that agrees best with your own labels.

Prints, at the fitted threshold and at the one the cases were judged at: the confusion table,
balanced accuracy and Cohen's kappa with seeded bootstrap intervals, the threshold's own interval
and a held-out balanced accuracy (the statistics: :mod:`~llm_validation_framework.runner.calibration`).
``--write suite.toml`` puts the fitted threshold into a suite file.

Exit codes: 0 calibrated; 2 usage error (no such label, too few labels of a class, a bad option).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from ..errors import LVFError
from .terminal import console, echo

__all__ = ["EXIT_OK", "EXIT_USAGE", "calibrate"]

EXIT_OK, EXIT_USAGE = 0, 2


@click.command()
@click.argument("results", type=click.Path(exists=True, dir_okay=False))
@click.option("--label", "-l", required=True, metavar="FIELD",
              help="the cases' field holding the human verdict (pass/fail, yes/no, 1/0, or a score with "
                   "--label-pass-at)")
@click.option("--agent", "-a", help="the agent to calibrate (needed when the file holds several)")
@click.option("--label-pass-at", type=float, metavar="SCORE",
              help="for labels that are scores (a 1-5 rating …): the lowest that counts as a pass")
@click.option("--min-per-class", type=click.IntRange(min=1), default=10, show_default=True,
              help="refuse below this many pass labels or fail labels")
@click.option("--resamples", type=click.IntRange(min=1), default=2000, show_default=True, help="bootstrap resamples")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="confidence level of the intervals")
@click.option("--seed", type=int, default=0, show_default=True,
              help="seed of the bootstrap (same seed, same intervals)")
@click.option("--write", "suite_path", type=click.Path(exists=True, dir_okay=False), metavar="SUITE.toml",
              help="write the fitted threshold into this suite file (its top-level `threshold`)")
@click.option("--json", "as_json", is_flag=True, help="print the calibration as JSON")
def calibrate(results: str, label: str, agent: str | None, label_pass_at: float | None, min_per_class: int,
              resamples: int, confidence: float, seed: int, suite_path: str | None, as_json: bool) -> None:
    """Fit an agent's pass threshold to a human label the cases of RESULTS carry.

    The label is a field of the dataset's rows (kept in the results file with each case).
    Reports balanced accuracy, Cohen's kappa and the confusion table at the fitted threshold and
    at the current one, with bootstrap intervals; refuses when either class has fewer than
    --min-per-class labels.

    \b
    lvf calibrate results.jsonl --label human
    lvf calibrate results.jsonl --label rating --label-pass-at 4 --agent relevancy --write suite.toml
    """
    from ..runner.calibrate_results import calibrate_threshold

    try:
        calibration = calibrate_threshold(results, label, agent=agent, label_pass_at=label_pass_at,
                                          resamples=resamples, confidence=confidence, seed=seed,
                                          min_per_class=min_per_class)
        if suite_path:
            calibration.write_to(suite_path)
    except LVFError as exc:
        echo(f"error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except OSError as exc:  # an unwritable suite file
        echo(f"error: {exc.strerror or exc}: {exc.filename or suite_path}", err=True)
        sys.exit(EXIT_USAGE)
    if as_json:
        echo(json.dumps(calibration.to_dict(), ensure_ascii=False, indent=2))
    else:
        render_calibration(calibration, console())
    if suite_path:
        echo(f"wrote threshold = {calibration.threshold!r} to {suite_path}", err=as_json)
    sys.exit(EXIT_OK)


def render_calibration(calibration: Any, console: Any) -> None:
    """The calibration as a table: one row for the fitted threshold, one for the current one."""
    from rich.markup import escape
    from rich.table import Table

    c = calibration
    left_out = "; ".join(f"{n} {why}" for why, n in c.skipped.items() if n)
    console.print(f"[bold]{escape(str(c.agent))}[/] against label [bold]{escape(str(c.label))}[/]: "
                  f"{c.positives} pass and {c.negatives} fail labels" + (f" (left out: {escape(left_out)})"
                                                                         if left_out else ""),
                  highlight=False, soft_wrap=True)
    share = f"{c.confidence:.0%}"
    table = Table(caption=escape(f"[low–high]: {share} bootstrap intervals, {c.resamples} stratified resamples, "
                                 f"seed {c.seed}"), caption_justify="left")
    for column in ("threshold", "balanced accuracy", "kappa", "PASS, label pass", "PASS, label fail",
                   "FAIL, label pass", "FAIL, label fail"):
        table.add_column(column, justify="left" if column == "threshold" else "right", no_wrap=True)
    rows = [("fitted", c.fitted, c.threshold_interval)] + ([("current", c.current, None)] if c.current else [])
    for name, agreement, spread in rows:
        where = f"{name} {agreement.threshold:g}" + (f" [{spread[0]:g}–{spread[1]:g}]" if spread else "")
        m = agreement.confusion
        table.add_row(where, _with_interval(agreement.balanced_accuracy, agreement.balanced_accuracy_interval),
                      _with_interval(agreement.kappa, agreement.kappa_interval), str(m.pass_labelled_pass),
                      str(m.pass_labelled_fail), str(m.fail_labelled_pass), str(m.fail_labelled_fail))
    console.print(table)
    if c.held_out_balanced_accuracy is not None:
        console.print(f"held-out balanced accuracy of fitting a threshold: {c.held_out_balanced_accuracy:.3f} "
                      "(fitted on each resample, scored on the cases it left out; the fitted row above is "
                      "scored on the labels it was fitted on)", highlight=False, soft_wrap=True)
    for note in c.notes:
        console.print(f"note: {escape(note)}", highlight=False, soft_wrap=True)


def _with_interval(value: float, interval: tuple[float, float]) -> str:
    return f"{value:.3f} [{interval[0]:.3f}–{interval[1]:.3f}]"
