"""The comparison as text for a terminal or a CI log (rich), and the number formats shared with the HTML.

Every text from a results file (ids, reasons, errors, agent names) goes through :func:`_shown`:
its terminal controls and bidirectional controls escaped (an id cannot clear the screen or set the
window title), then rich's markup escape (an id like ``[red]x[/]`` prints as written).
"""

from __future__ import annotations

from typing import Any

from ..terminal import printable
from .model import AgentComparison, CaseOutcome, CasePair, Comparison, Difference

__all__ = ["format_difference", "format_points", "format_rate", "format_score", "format_signed", "outcome_text",
           "render_text", "verdict", "why_not_scored"]

#: characters of a reason shown in the text tables (the JSON and HTML views keep it whole)
REASON_WIDTH = 100
#: columns from which the per-agent summary is a table (narrower: one line per agent)
WIDE = 150


def format_rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def format_score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def format_signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def format_points(value: float | None) -> str:
    """A pass-rate difference in percentage points."""
    return "-" if value is None else f"{value * 100:+.1f}"


def format_difference(diff: Difference, points: bool) -> str:
    """``-30.0 [-43.3, -16.7]``: the difference and its interval (pass rates in percentage points)."""
    fmt = format_points if points else format_signed
    if diff.diff is None:
        return "-"
    return fmt(diff.diff) + ("" if diff.low is None else f" [{fmt(diff.low)}, {fmt(diff.high)}]")


def verdict(agent: AgentComparison) -> str:
    """REGRESSION (some interval wholly below 0), improved (one wholly above, none below), no change, or -."""
    if not agent.paired:
        return "-"
    if agent.regressed:
        return "REGRESSION"
    if agent.pass_rate.improved or agent.mean_score.improved:
        return "improved"
    return "no change"


def outcome_text(outcome: CaseOutcome) -> str:
    text = outcome.status if outcome.score is None else f"{outcome.status} {outcome.score:.3f}"
    if outcome.low is not None and outcome.high is not None:
        text += f" ({outcome.low:.2f}–{outcome.high:.2f})"
    return text


def render_text(comparison: Comparison, console: Any, top: int = 20) -> None:
    """Print the per-agent table, then each agent's flips, unscored pairs and unmatched ids (``top`` each)."""
    from rich import box
    from rich.table import Table

    level = f"{comparison.confidence:.0%}"
    console.print(f"[bold]lvf compare[/]  BASE {_shown(str(comparison.base.path))}  ->  NEW "
                  f"{_shown(str(comparison.new.path))}", highlight=False, soft_wrap=True)
    console.print(f"differences NEW - BASE over the cases scored in both, {level} paired bootstrap interval "
                  f"({comparison.resamples} resamples, seed {comparison.seed})", highlight=False, soft_wrap=True)
    columns = ("agent", "verdict", "paired", "pass rate", f"diff pp [{level}]", "mean score", f"diff [{level}]",
               "flips down/up/noise", "unscored", "only B/N")
    rows = []
    for agent in comparison.agents:
        down = sum(pair.flip == "PASS->FAIL" for pair in agent.flips)
        colour = {"REGRESSION": "bold red", "improved": "green"}.get(verdict(agent))
        rows.append((_shown(agent.agent), f"[{colour}]{verdict(agent)}[/]" if colour else verdict(agent),
                     str(len(agent.paired)),
                     f"{format_rate(agent.pass_rate.base)} -> {format_rate(agent.pass_rate.new)}",
                     format_difference(agent.pass_rate, points=True),
                     f"{format_score(agent.mean_score.base)} -> {format_score(agent.mean_score.new)}",
                     format_difference(agent.mean_score, points=False),
                     f"{down}/{len(agent.flips) - down}/{agent.noise_flips}", str(len(agent.not_scored)),
                     f"{len(agent.only_base)}/{len(agent.only_new)}"))
    if console.width >= WIDE:
        table = Table(show_header=True, box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 0))
        for number, column in enumerate(columns):
            table.add_column(column, justify="left" if number < 2 else "right", no_wrap=number > 0,
                             min_width=10 if number == 0 else None)
        for row in rows:
            table.add_row(*row)
        console.print(table)
    else:  # ten columns do not fit in 80: one line per agent
        for row in rows:
            console.print(f"[bold]{row[0]}[/]: {row[1]}; {row[2]} paired; pass rate {row[3]}, diff {row[4]} pp; "
                          f"mean score {row[5]}, diff {row[6]}; flips down/up/noise {row[7]}; {row[8]} unscored; "
                          f"only BASE/NEW {row[9]}", highlight=False, soft_wrap=True)
    for agent in comparison.agents:
        _details(agent, console, top)
    for note in comparison.notes:
        console.print(f"note: {_shown(note)}", highlight=False, soft_wrap=True)
    regressed = [agent.agent for agent in comparison.agents if agent.regressed]
    if regressed:
        console.print(f"[bold red]NEW is worse than BASE beyond the {level} interval[/] for: "
                      f"{_shown(', '.join(regressed))}", highlight=False, soft_wrap=True)
    else:
        console.print(f"no regression beyond the {level} interval", highlight=False, soft_wrap=True)


def _details(agent: AgentComparison, console: Any, top: int) -> None:
    from rich.table import Table

    name = _shown(agent.agent)
    if agent.flips:
        table = Table(title=f"{name}: flips, worst first", title_justify="left")
        for column in ("id", "flip", "BASE", "NEW", "score diff", "noise", "NEW reason"):
            table.add_column(column, overflow="fold")
        for pair in agent.flips[:top]:
            table.add_row(_shown(pair.id), pair.flip or "", _shown(outcome_text(pair.base)),
                          _shown(outcome_text(pair.new)), format_signed(pair.delta), "noise" if pair.noise else "",
                          _shown(_cut(pair.new.reason)))
        console.print(table)
        _more(len(agent.flips), top, console)
    if agent.not_scored:
        table = Table(title=f"{name}: unscored or error in either run (not counted)", title_justify="left")
        for column in ("id", "BASE", "NEW", "why"):
            table.add_column(column, overflow="fold")
        for pair in agent.not_scored[:top]:
            table.add_row(_shown(pair.id), _shown(outcome_text(pair.base)), _shown(outcome_text(pair.new)),
                          _shown(_cut(why_not_scored(pair))))
        console.print(table)
        _more(len(agent.not_scored), top, console)
    for label, ids in (("in BASE only", agent.only_base), ("in NEW only", agent.only_new)):
        if ids:
            shown = ", ".join(ids[:top]) + (f", … {len(ids) - top} more" if len(ids) > top else "")
            console.print(f"{name}: {len(ids)} case(s) {label}: {_shown(shown)}", highlight=False, soft_wrap=True)
    for note in agent.notes:
        console.print(f"{name}: note: {_shown(note)}", highlight=False, soft_wrap=True)


def _shown(text: str) -> str:
    """A text of the results file as one safe line for rich: controls escaped, then markup escaped."""
    from rich.markup import escape

    return escape(printable(text, keep_lines=False))


def why_not_scored(pair: CasePair) -> str:
    """The error or reason of the side that was not scored (NEW's first)."""
    for side, outcome in (("NEW", pair.new), ("BASE", pair.base)):
        if not outcome.scored:
            return f"{side}: {outcome.error or outcome.reason or outcome.status}"
    return ""


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= REASON_WIDTH else text[:REASON_WIDTH - 1] + "…"


def _more(count: int, top: int, console: Any) -> None:
    if count > top:
        console.print(f"… {count - top} more (all of them in --json and --html)", highlight=False)
