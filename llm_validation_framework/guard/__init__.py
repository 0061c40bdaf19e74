"""Guarding an application: an agent in the answer's path, deciding what the user sees.

:class:`Guard` (``validate`` / ``avalidate``) and its :class:`GuardOutcome`; inside LangChain,
``guard.as_runnable()`` and ``guard.around(chain)`` (:mod:`.langchain`, the only module here that
needs langchain-core). The names below load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from .core import Guard
    from .langchain import GuardedChain, GuardRunnable, case_from_output, format_documents
    from .outcome import GuardAttempt, GuardOutcome, feedback_for

#: public name -> submodule defining it
_EXPORTS = {
    "Guard": "core",
    "GuardAttempt": "outcome",
    "GuardOutcome": "outcome",
    "GuardRunnable": "langchain",
    "GuardedChain": "langchain",
    "case_from_output": "langchain",
    "feedback_for": "outcome",
    "format_documents": "langchain",
}

# written out so linters and type checkers see the public names
__all__ = [
    "Guard",
    "GuardAttempt",
    "GuardOutcome",
    "GuardRunnable",
    "GuardedChain",
    "case_from_output",
    "feedback_for",
    "format_documents",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
