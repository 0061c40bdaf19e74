"""Everything you need to write your own checks and agents, in one public module.

    from llm_validation_framework.custom import Agent, Check, Sample, Veto, ask_once, delimit

A check is one small contract: configuration in ``__init__``, ``async run(sample, judge) ->
CheckResult``, nothing stored per case. Build a :class:`VerdictRequest` (instructions, a prompt with
each untrusted text wrapped by :func:`delimit`, the labels the judge may answer with and their
scores) and let :func:`ask_once` ask it: a judge failure becomes an unscored result, never a 0.
Combine checks with weights, vetoes and a threshold in :class:`Agent`. The page "Your own checks"
(docs/own-checks.md) walks through it.
"""

from __future__ import annotations

from .agents.base import Agent, InjectionPolicy, UnscoredPolicy
from .agents.veto import Veto
from .checks.base import Check, ask_once, verdict_result
from .errors import InputError
from .judges.base import Judge, Verdict, VerdictRequest
from .text.prompting import delimit, format_passages, render
from .types.inputs import Passage, Sample, Turn, parse_sample
from .types.results import CheckResult

__all__ = [
    "Agent",
    "Check",
    "CheckResult",
    "InjectionPolicy",
    "InputError",
    "Judge",
    "Passage",
    "Sample",
    "Turn",
    "UnscoredPolicy",
    "Verdict",
    "VerdictRequest",
    "Veto",
    "ask_once",
    "delimit",
    "format_passages",
    "parse_sample",
    "render",
    "verdict_result",
]
