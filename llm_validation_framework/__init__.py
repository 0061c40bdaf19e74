"""llm_validation_framework: check LLM answers with LLM-as-a-judge agents before users see them.

    from llm_validation_framework import AccuracyAgent
    result = AccuracyAgent(provider="local").evaluate({"question": "...", "answer": "..."})
    result["status"], result["score"], result["reason"]

Public names are imported on first use, so ``import llm_validation_framework`` stays light:
litellm, chromadb, langchain and the local model load only when something needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from ._version import __version__

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "AccuracyAgent": "agents.accuracy",
    "Agent": "agents.base",
    "AnswerAccuracyAgent": "agents.reference",
    "AnswerRejectedError": "errors",
    "CachedJudge": "judges.cache",
    "Calibration": "runner.calibration",
    "CheckResult": "types.results",
    "CitationAgent": "agents.citation",
    "ConfigError": "errors",
    "ContextRelevanceAgent": "agents.reference",
    "Criteria": "checks.criteria",
    "EvaluationResult": "types.results",
    "GroundednessAgent": "agents.reference",
    "Guard": "guard.core",
    "GuardError": "errors",
    "GuardOutcome": "guard.outcome",
    "HybridJudge": "judges.hybrid",
    "InputError": "errors",
    "Judge": "judges.base",
    "JudgeCallError": "errors",
    "JudgeError": "errors",
    "JudgeProfile": "judges.profile",
    "JudgeTimeoutError": "errors",
    "LVFError": "errors",
    "LiteLLMJudge": "judges.litellm.judge",
    "LocalJudge": "judges.local.judge",
    "LocalModelError": "errors",
    "MissingAPIKeyError": "errors",
    "Passage": "types.inputs",
    "ProgressEvent": "types.progress",
    "RAGProvider": "retrieval",
    "RelevancyAgent": "agents.relevancy",
    "RetrievalError": "errors",
    "RunSummary": "runner.summary",
    "ScriptExhaustedError": "errors",
    "ScriptedJudge": "judges.scripted",
    "Settings": "infra.config",
    "UnverifiedAnswerError": "errors",
    "Usage": "types.usage",
    "Verdict": "judges.base",
    "VerdictParseError": "errors",
    "VerdictRequest": "judges.base",
    "Veto": "agents.veto",
    "arun_dataset": "runner.core",
    "calibrate_threshold": "runner.calibrate_results",
    "configure_tracing": "infra.tracing",
    "fit_threshold": "runner.calibration",
    "function_check": "checks.functions",
    "make_judge": "judges",
    "run_dataset": "runner.core",
}

# written out so linters and type checkers see the public names; a test keeps it equal to _EXPORTS
__all__ = [
    "AccuracyAgent",
    "Agent",
    "AnswerAccuracyAgent",
    "AnswerRejectedError",
    "CachedJudge",
    "Calibration",
    "CheckResult",
    "CitationAgent",
    "ConfigError",
    "ContextRelevanceAgent",
    "Criteria",
    "EvaluationResult",
    "GroundednessAgent",
    "Guard",
    "GuardError",
    "GuardOutcome",
    "HybridJudge",
    "InputError",
    "Judge",
    "JudgeCallError",
    "JudgeError",
    "JudgeProfile",
    "JudgeTimeoutError",
    "LVFError",
    "LiteLLMJudge",
    "LocalJudge",
    "LocalModelError",
    "MissingAPIKeyError",
    "Passage",
    "ProgressEvent",
    "RAGProvider",
    "RelevancyAgent",
    "RetrievalError",
    "RunSummary",
    "ScriptExhaustedError",
    "ScriptedJudge",
    "Settings",
    "UnverifiedAnswerError",
    "Usage",
    "Verdict",
    "VerdictParseError",
    "VerdictRequest",
    "Veto",
    "__version__",
    "arun_dataset",
    "calibrate_threshold",
    "configure_tracing",
    "fit_threshold",
    "function_check",
    "make_judge",
    "run_dataset",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, extra=("__version__",))

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .agents.accuracy import AccuracyAgent
    from .agents.base import Agent
    from .agents.citation import CitationAgent
    from .agents.reference import AnswerAccuracyAgent, ContextRelevanceAgent, GroundednessAgent
    from .agents.relevancy import RelevancyAgent
    from .agents.veto import Veto
    from .checks.criteria import Criteria
    from .checks.functions import function_check
    from .errors import (
        AnswerRejectedError,
        ConfigError,
        GuardError,
        InputError,
        JudgeCallError,
        JudgeError,
        JudgeTimeoutError,
        LocalModelError,
        LVFError,
        MissingAPIKeyError,
        RetrievalError,
        ScriptExhaustedError,
        UnverifiedAnswerError,
        VerdictParseError,
    )
    from .guard.core import Guard
    from .guard.outcome import GuardOutcome
    from .infra.config import Settings
    from .infra.tracing import configure_tracing
    from .judges import make_judge
    from .judges.base import Judge, Verdict, VerdictRequest
    from .judges.cache import CachedJudge
    from .judges.hybrid import HybridJudge
    from .judges.litellm.judge import LiteLLMJudge
    from .judges.local.judge import LocalJudge
    from .judges.profile import JudgeProfile
    from .judges.scripted import ScriptedJudge
    from .retrieval import RAGProvider
    from .runner.calibrate_results import calibrate_threshold
    from .runner.calibration import Calibration, fit_threshold
    from .runner.core import arun_dataset, run_dataset
    from .runner.summary import RunSummary
    from .types.inputs import Passage
    from .types.progress import ProgressEvent
    from .types.results import CheckResult, EvaluationResult
    from .types.usage import Usage
