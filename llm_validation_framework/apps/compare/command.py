"""``lvf compare BASE.jsonl NEW.jsonl``: did NEW get worse than BASE, beyond what chance explains?

Exit codes: 0 compared (and, with ``--fail-on-regression``, no regression); 1 with
``--fail-on-regression`` only: some agent's pass-rate or mean-score difference has its whole
interval below 0; 2 usage error (a file missing or without case lines, a bad option).
"""

from __future__ import annotations

import json
import sys

import click

from ...errors import LVFError

__all__ = ["EXIT_OK", "EXIT_REGRESSION", "EXIT_USAGE", "compare"]

EXIT_OK, EXIT_REGRESSION, EXIT_USAGE = 0, 1, 2


@click.command()
@click.argument("base", type=click.Path(exists=True, dir_okay=False))
@click.argument("new", type=click.Path(exists=True, dir_okay=False))
@click.option("--resamples", type=click.IntRange(min=1), default=2000, show_default=True,
              help="bootstrap resamples")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="confidence level of the intervals")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the bootstrap (same seed, same interval)")
@click.option("--fail-on-regression", is_flag=True,
              help="exit 1 when, for some agent, the interval of the pass-rate or mean-score difference lies "
                   "wholly below 0")
@click.option("--html", type=click.Path(dir_okay=False), help="also write a self-contained HTML view here")
@click.option("--json", "as_json", is_flag=True, help="print the comparison as JSON (every flip and id) instead "
              "of tables")
@click.option("--top", type=click.IntRange(min=0), default=20, show_default=True,
              help="flips, unscored cases and unmatched ids listed per agent in the tables")
def compare(base: str, new: str, resamples: int, confidence: float, seed: int, fail_on_regression: bool,
            html: str | None, as_json: bool, top: int) -> None:
    """Compare two results files (BASE, then NEW) case by case, per agent.

    Pairs cases by id within each agent: pass rate and mean score of both runs, the difference
    with a paired bootstrap interval, the cases that flipped (worst first), ids in one run only,
    and cases unscored or in error in either run (listed, never counted as failures). With
    repeats, a flip within the case's own spread is marked noise and counted as unchanged.

    \b
    Exit codes: 0 compared; 1 NEW is worse beyond the interval (only with --fail-on-regression);
    2 usage error.
    """
    from .model import compare_runs

    try:
        comparison = compare_runs(base, new, resamples=resamples, confidence=confidence, seed=seed)
        if html:
            from .page import write_comparison

            write_comparison(comparison, html)
    except LVFError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except OSError as exc:  # unwritable --html
        click.echo(f"error: {exc.strerror or exc}: {exc.filename or html}", err=True)
        sys.exit(EXIT_USAGE)
    if as_json:
        click.echo(json.dumps(comparison.to_dict(), ensure_ascii=False, indent=2))
    else:
        from .render import render_text

        render_text(comparison, _console(), top=top)
    if html:
        click.echo(f"HTML comparison: {html}", err=as_json)  # stdout stays pure JSON with --json
    sys.exit(EXIT_REGRESSION if fail_on_regression and comparison.regressed else EXIT_OK)


def _console():
    from rich.console import Console

    # a pipe or a CI log has no width: rich would squeeze the tables into 80 columns
    return Console(soft_wrap=False, width=None if sys.stdout.isatty() else 160)
