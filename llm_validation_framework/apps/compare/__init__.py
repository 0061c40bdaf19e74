"""Two results files compared case by case: did NEW get worse than BASE beyond chance?

    comparison = compare_runs("base.jsonl", "new.jsonl")   # or: lvf compare base.jsonl new.jsonl
    comparison.regressed, comparison.agents[0].flips

The parts, one concern each:

    model      read both files, pair the cases per agent, the differences, flips and noise
    stats      the seeded paired bootstrap interval
    render     the tables printed to a terminal or CI log
    page       the self-contained HTML view, every value escaped
    command    the click command (registered in apps.cli), its options and exit codes

Importing this package loads none of them (``lvf`` starts fast); each public name loads its
module on first use.
"""

from __future__ import annotations

from ..._lazy import lazy_exports

__all__ = ["AgentComparison", "CaseOutcome", "CasePair", "Comparison", "Difference", "ResultsRun", "compare_runs",
           "load_run", "render_comparison", "write_comparison"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "AgentComparison": "model", "CaseOutcome": "model", "CasePair": "model", "Comparison": "model",
    "Difference": "model", "ResultsRun": "model", "compare_runs": "model", "load_run": "model",
    "render_comparison": "page", "write_comparison": "page",
})
