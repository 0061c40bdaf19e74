"""One self-contained HTML file from a results file: summary, score histograms, every case expandable
with the inputs it judged beside its verdict.

    write_report("results.jsonl", "report.html")      # or: lvf report results.jsonl --html report.html

:mod:`.page` lays out the page; :mod:`.inputs` renders a case's recorded inputs, each cited
passage next to the sentence that cites it; :mod:`.escape` is the one way data text reaches it.
"""

from __future__ import annotations

from .page import render_report, write_report

__all__ = ["render_report", "write_report"]
