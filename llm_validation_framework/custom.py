"""Everything you need to write your own checks and agents, in one public module.

    from llm_validation_framework.custom import Agent, Check, Sample, Veto, ask_once, delimit

A check is one small contract: configuration in ``__init__``, ``async run(sample, judge) ->
CheckResult``, nothing stored per case. Build a :class:`VerdictRequest` (instructions, a prompt with
each untrusted text wrapped by :func:`delimit`, the labels the judge may answer with and their
scores) and let :func:`ask_once` ask it: a judge failure becomes an unscored result, never a 0.
A check that needs no judge is a function: :func:`function_check` (ready ones: :func:`regex_match`,
:func:`length_limit`, :func:`valid_json`, :func:`required_phrases`, :func:`forbidden_words`).
:class:`Criteria` is a judged check from a sentence (its evaluation steps written
once by the judge and stored, shown and pinned with :func:`list_steps` and :func:`pin_steps`).
With the local judge and cases a person labelled, :meth:`Criteria.fit_head` learns the criterion's
verdict from the labels (:func:`save_head` / :func:`load_head` keep it; ``LocalJudge(heads=[head])``
uses it). The shipped checks (:class:`RelevancyCheck`, :class:`FactualCheck` …) are here too. Combine checks
with weights, vetoes and a threshold in :class:`Agent`. The page "Your own checks"
(docs/own-checks.md) walks through it.
"""

from __future__ import annotations

from .agents.base import Agent, InjectionPolicy, UnscoredPolicy
from .agents.veto import Veto
from .checks.answer_accuracy import AnswerAccuracyCheck
from .checks.base import Check, ask_once, verdict_result
from .checks.citation_accuracy import CitationAccuracyCheck
from .checks.citation_faithfulness import CitationFaithfulnessCheck
from .checks.citation_relevancy import CitationRelevancyCheck
from .checks.context_relevance import ContextRelevanceCheck
from .checks.criteria import Criteria
from .checks.criteria_steps import StoredSteps, forget_steps, list_steps, pin_steps
from .checks.factual import FactualCheck
from .checks.functions import (
    FunctionCheck,
    forbidden_words,
    function_check,
    length_limit,
    regex_match,
    required_phrases,
    valid_json,
)
from .checks.relevancy import RelevancyCheck
from .checks.response_groundedness import ResponseGroundednessCheck
from .checks.scale import YES_PARTLY_NO, Level, Scale
from .checks.support import SupportCheck
from .errors import InputError
from .judges.base import Judge, Verdict, VerdictRequest
from .judges.local.fitted_heads import fit_head, load_head, save_head
from .text.prompting import delimit, format_passages, render
from .types.inputs import Passage, Sample, Turn, parse_sample
from .types.results import CheckResult

__all__ = [
    "Agent",
    "AnswerAccuracyCheck",
    "Check",
    "CheckResult",
    "CitationAccuracyCheck",
    "CitationFaithfulnessCheck",
    "CitationRelevancyCheck",
    "ContextRelevanceCheck",
    "Criteria",
    "FactualCheck",
    "FunctionCheck",
    "InjectionPolicy",
    "InputError",
    "Judge",
    "Level",
    "Passage",
    "RelevancyCheck",
    "ResponseGroundednessCheck",
    "Sample",
    "Scale",
    "StoredSteps",
    "SupportCheck",
    "Turn",
    "UnscoredPolicy",
    "Verdict",
    "VerdictRequest",
    "Veto",
    "YES_PARTLY_NO",
    "ask_once",
    "delimit",
    "fit_head",
    "forbidden_words",
    "forget_steps",
    "format_passages",
    "function_check",
    "length_limit",
    "list_steps",
    "load_head",
    "parse_sample",
    "pin_steps",
    "regex_match",
    "render",
    "required_phrases",
    "save_head",
    "valid_json",
    "verdict_result",
]
