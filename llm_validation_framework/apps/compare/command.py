"""``lvf compare BASE.jsonl NEW.jsonl``: did NEW get worse than BASE, beyond what chance explains?

Exit codes: 0 compared (and, with ``--fail-on-regression`` / ``--fail-on-flip``, nothing to fail
on); 1 with ``--fail-on-regression``: some agent's pass-rate or mean-score difference has its
whole interval below 0, or with ``--fail-on-flip``: some case went from PASS to FAIL (noise
flips over repeats aside), each named on stderr; 2 usage error (a file missing or without case
lines, a bad option). Everything printed goes through :mod:`..terminal`: an id or a reason
cannot send the terminal a command.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from ...errors import LVFError
from ..terminal import console, echo, printable

if TYPE_CHECKING:
    from .model import Comparison

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
@click.option("--fail-on-flip", is_flag=True,
              help="exit 1 when any case went from PASS to FAIL (a noise flip within the case's own spread over "
                   "repeats aside), naming each on stderr; for CI gates where one lost case matters")
@click.option("--html", type=click.Path(dir_okay=False), help="also write a self-contained HTML view here")
@click.option("--json", "as_json", is_flag=True, help="print the comparison as JSON (every flip and id) instead "
              "of tables")
@click.option("--top", type=click.IntRange(min=0), default=20, show_default=True,
              help="flips, unscored cases and unmatched ids listed per agent in the tables")
def compare(base: str, new: str, resamples: int, confidence: float, seed: int, fail_on_regression: bool,
            fail_on_flip: bool, html: str | None, as_json: bool, top: int) -> None:
    """Compare two results files (BASE, then NEW) case by case, per agent.

    Pairs cases by id within each agent: pass rate and mean score of both runs, the difference
    with a paired bootstrap interval, the cases that flipped (worst first), ids in one run only,
    and cases unscored or in error in either run (listed, never counted as failures). With
    repeats, a flip within the case's own spread is marked noise and counted as unchanged.

    \b
    Exit codes: 0 compared; 1 NEW is worse beyond the interval (only with --fail-on-regression) or
    a case flipped from PASS to FAIL (only with --fail-on-flip); 2 usage error.
    """
    from .model import compare_runs

    try:
        comparison = compare_runs(base, new, resamples=resamples, confidence=confidence, seed=seed)
        if html:
            from .page import write_comparison

            write_comparison(comparison, html)
    except LVFError as exc:
        echo(f"error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except OSError as exc:  # unwritable --html
        echo(f"error: {exc.strerror or exc}: {exc.filename or html}", err=True)
        sys.exit(EXIT_USAGE)
    if as_json:  # escapes stay JSON escapes: the output reads back to the same values
        echo(json.dumps(comparison.to_dict(), ensure_ascii=False, indent=2))
    else:
        from .render import render_text

        render_text(comparison, console(), top=top)
    if html:
        echo(f"HTML comparison: {html}", err=as_json)  # stdout stays pure JSON with --json
    flipped = _flips_down(comparison) if fail_on_flip else []
    for line in flipped:
        echo(line, err=True)
    failed = (fail_on_regression and comparison.regressed) or bool(flipped)
    sys.exit(EXIT_REGRESSION if failed else EXIT_OK)


#: ids named per agent when --fail-on-flip fails (all of them are in --json and --html)
_NAMED_FLIPS = 50


def _flips_down(comparison: Comparison) -> list[str]:
    """One line per agent with a PASS->FAIL flip that is not noise, naming the cases; none when nothing flipped."""
    lines = []
    for agent in comparison.agents:
        down = [pair.id for pair in agent.flips if pair.flip == "PASS->FAIL" and not pair.noise]
        if down:
            shown = ", ".join(printable(case_id, keep_lines=False) for case_id in down[:_NAMED_FLIPS])
            more = f", … {len(down) - _NAMED_FLIPS} more" if len(down) > _NAMED_FLIPS else ""
            lines.append(f"flipped PASS->FAIL ({printable(agent.agent, keep_lines=False)}, {len(down)} case(s)): "
                         f"{shown}{more}")
    return lines
