"""Evaluate a JSONL file of cases: streaming, bounded concurrency, resumable results, a judge cache.

    from llm_validation_framework.runner import run_dataset
    summary = run_dataset("cases.jsonl", agents=["accuracy", "citation"], concurrency=8, out="results.jsonl")
    summary.exit_code, summary["accuracy"].pass_rate

``dataset`` reads and maps rows, ``registry`` finds agents by name, ``results_file`` writes
and reads the results, ``summary`` tallies them, ``core`` runs it all, its units in this
process or, with ``ray=``, in the actors of ``ray_executor`` and ``ray_actor`` (``units`` is the
one (case, agent) evaluation both share); the progress bar is an app (``apps.progress_bar``).
"""

from __future__ import annotations

from .core import RunProgress, arun_dataset, default_out_path, run_dataset
from .dataset import CaseRow, iter_cases, map_fields, parse_field_map
from .ray_executor import RayOptions
from .registry import AGENTS, agent_class, build_agents
from .results_file import FORMAT_VERSION, ResultsWriter, iter_results, redact
from .summary import AgentSummary, RunSummary, render_summary

__all__ = [
    "AGENTS",
    "AgentSummary",
    "CaseRow",
    "FORMAT_VERSION",
    "ResultsWriter",
    "RayOptions",
    "RunProgress",
    "RunSummary",
    "agent_class",
    "arun_dataset",
    "build_agents",
    "default_out_path",
    "iter_cases",
    "iter_results",
    "map_fields",
    "parse_field_map",
    "redact",
    "render_summary",
    "run_dataset",
]
