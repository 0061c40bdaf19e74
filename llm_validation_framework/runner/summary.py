"""Per-agent tallies of a run and the summary table printed at the end."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..types.usage import Usage

__all__ = ["AgentSummary", "RunSummary", "render_summary"]

STATUSES = ("PASS", "FAIL", "UNSCORED", "ERROR")


@dataclass
class AgentSummary:
    """How one agent did over the cases of a run (and, on ``--resume``, the earlier part)."""

    agent: str
    passed: int = 0
    failed: int = 0
    unscored: int = 0
    errors: int = 0
    score_sum: float = 0.0
    scored: int = 0
    usage: Usage = field(default_factory=Usage)
    duration_s: float = 0.0

    @property
    def cases(self) -> int:
        return self.passed + self.failed + self.unscored + self.errors

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.cases if self.cases else None

    @property
    def mean_score(self) -> float | None:
        return self.score_sum / self.scored if self.scored else None

    def add(self, status: str, score: float | None, usage: Usage, duration_s: float, sign: int = 1) -> None:
        attr = {"PASS": "passed", "FAIL": "failed", "UNSCORED": "unscored"}.get(status, "errors")
        setattr(self, attr, getattr(self, attr) + sign)
        if score is not None:
            self.score_sum += sign * score
            self.scored += sign
        if sign > 0:
            self.usage = self.usage + usage
            self.duration_s += duration_s

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "cases": self.cases, "passed": self.passed, "failed": self.failed,
                "unscored": self.unscored, "errors": self.errors, "pass_rate": self.pass_rate,
                "mean_score": self.mean_score, "usage": self.usage.to_dict(), "duration_s": round(self.duration_s, 3)}


@dataclass
class RunSummary:
    """What :func:`run_dataset` returns: per-agent tallies, totals, and where the results went."""

    agents: dict[str, AgentSummary]
    out: Path | None
    wall_s: float = 0.0
    rows: int = 0
    skipped: int = 0
    evaluated: int = 0
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)
    #: per (agent, source) agreement with the rows' labels, when the dataset has labels (see runner.labels)
    label_groups: list[Any] = field(default_factory=list)
    #: on Ray: seconds from the run's start until every actor had its judge ready
    actors_ready_s: float | None = None

    @property
    def usage(self) -> Usage:
        return Usage.sum(a.usage for a in self.agents.values())

    @property
    def all_passed(self) -> bool:
        total = sum(a.cases for a in self.agents.values())
        return total > 0 and all(a.passed == a.cases for a in self.agents.values())

    @property
    def exit_code(self) -> int:
        """0 every case of every agent passed; 1 otherwise (a FAIL, UNSCORED or ERROR)."""
        return 0 if self.all_passed and not self.interrupted else 1

    def __getitem__(self, agent: str) -> AgentSummary:
        return self.agents[agent]

    def to_dict(self) -> dict[str, Any]:
        return {"agents": {k: v.to_dict() for k, v in self.agents.items()}, "usage": self.usage.to_dict(),
                "wall_s": round(self.wall_s, 3), "rows": self.rows, "skipped": self.skipped,
                "evaluated": self.evaluated, "interrupted": self.interrupted, "notes": list(self.notes),
                "out": str(self.out) if self.out else None,
                **({"actors_ready_s": round(self.actors_ready_s, 3)} if self.actors_ready_s is not None else {})}


def format_cost(usage: Usage) -> str:
    if usage.cost_usd is None:
        return "unknown"
    return f"${usage.cost_usd:.4f}"


def format_tokens(usage: Usage) -> str:
    text = f"{usage.total_tokens:,}"
    if usage.cached_calls:
        text += f" ({usage.cached_calls:,} cached)"
    return text


def render_summary(summary: RunSummary, console: Any = None) -> None:
    """Print the summary table with rich (to stderr unless a console is given); lines on a narrow terminal."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console(stderr=True)
    rows = []
    for item in summary.agents.values():
        rate = "-" if item.pass_rate is None else f"{item.pass_rate:.1%}"
        mean = "-" if item.mean_score is None else f"{item.mean_score:.3f}"
        per_case = f"{item.duration_s / item.cases:.2f}s" if item.cases else "-"
        rows.append((escape(item.agent), str(item.cases), rate, mean, str(item.passed), str(item.failed),
                     str(item.unscored), str(item.errors), f"{item.usage.calls:,}", format_tokens(item.usage),
                     format_cost(item.usage), per_case))
    columns = ("agent", "cases", "pass rate", "mean score", "pass", "fail", "unscored", "errors", "judge calls",
               "tokens", "cost", "time/case")
    if console.width >= 110:
        table = Table(title="lvf run summary", title_justify="left")
        for number, column in enumerate(columns):
            table.add_column(column, justify="left" if number == 0 else "right")
        for row in rows:
            table.add_row(*row)
        console.print(table)
    else:  # a table of 12 columns is unreadable in 80: one line per agent
        console.print("[bold]lvf run summary[/]")
        for row in rows:
            console.print(f"[bold]{row[0]}[/]: {row[1]} cases, pass rate {row[2]}, mean score {row[3]}; "
                          f"{row[4]} pass, {row[5]} fail, {row[6]} unscored, {row[7]} errors; {row[8]} judge calls, "
                          f"{row[9]} tokens, cost {row[10]}, {row[11]} per case", soft_wrap=True, highlight=False)
    for group in summary.label_groups:
        if group.source == "(all)" and group.labelled:
            ba = "-" if group.balanced_accuracy is None else f"{group.balanced_accuracy:.3f}"
            auc = "-" if group.auc is None else f"{group.auc:.3f}"
            console.print(f"{escape(group.agent)} against the file's labels: balanced accuracy {ba}, AUC {auc} "
                          f"({len(group.labelled)} labelled cases; per source in the HTML report)",
                          highlight=False, soft_wrap=True)
    line = f"{summary.evaluated} evaluated in {summary.wall_s:.1f}s"
    if summary.skipped:
        line += f", {summary.skipped} already done (resume)"
    if summary.out:
        line += f" → {summary.out}"
    console.print(escape(line), highlight=False, soft_wrap=True)
    for note in summary.notes:
        console.print(f"note: {escape(note)}", highlight=False, soft_wrap=True)
