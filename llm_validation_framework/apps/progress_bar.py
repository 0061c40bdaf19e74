"""The run's progress bar on stderr (rich): done / failed / rate / ETA / tokens and cost so far.

Quiet when stderr is not a terminal (CI logs stay readable) or when asked.
"""

from __future__ import annotations

import sys
from typing import Any

from ..runner.core import RunProgress
from ..runner.summary import format_cost

__all__ = ["RunProgressBar"]


class RunProgressBar:
    """A live progress line for a run: ``with RunProgressBar() as bar: run_dataset(..., on_progress=bar.update)``.

    ``enabled`` None shows it only when stderr is a terminal; ``console``: a rich Console to draw
    on instead of stderr's. ``last`` keeps the latest event, drawn or not."""

    def __init__(self, *, enabled: bool | None = None, console: Any = None) -> None:
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.enabled = enabled
        self.last: RunProgress | None = None
        self._console = console
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> RunProgressBar:
        if not self.enabled:
            return self
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = self._console or Console(stderr=True)
        self._progress = Progress(
            TextColumn("[bold]lvf"), BarColumn(bar_width=None if console.width >= 120 else 16), MofNCompleteColumn(),
            TextColumn(self._counts(console.width)),
            TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
            TextColumn("{task.fields[tokens]} tok {task.fields[cost]}"),
            console=console, transient=False, refresh_per_second=4)
        self._progress.__enter__()
        self._task = self._progress.add_task("run", total=None, passed=0, failed=0, unscored=0, errors=0,
                                             rate="", tokens=0, cost="$0")
        return self

    @staticmethod
    def _counts(width: int) -> str:
        if width >= 120:
            return ("[green]{task.fields[passed]} pass[/] [red]{task.fields[failed]} fail[/] "
                    "[yellow]{task.fields[unscored]} unscored[/] [magenta]{task.fields[errors]} errors[/]")
        # narrow terminal: ✓ pass, ✗ fail, ? unscored, ! error
        return ("[green]✓{task.fields[passed]}[/] [red]✗{task.fields[failed]}[/] "
                "[yellow]?{task.fields[unscored]}[/] [magenta]!{task.fields[errors]}[/]")

    def update(self, event: RunProgress) -> None:
        self.last = event
        if self._progress is None:
            return
        self._progress.update(
            self._task, completed=event.done, total=event.total or None, passed=event.passed,
            failed=event.failed, unscored=event.unscored, errors=event.errors, rate=f"{event.rate:.1f}/s",
            tokens=f"{event.usage.total_tokens:,}", cost=format_cost(event.usage))

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)
            self._progress = None
