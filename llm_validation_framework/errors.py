"""Every exception the framework raises on purpose.

    LVFError                       base of all of them
    ├── ConfigError                bad settings, unreadable config.ini (also a ValueError)
    │   └── MissingAPIKeyError     no key for a provider that needs one
    ├── InputError                 a case (``data``) is missing a field or has a wrong one (also a ValueError)
    ├── RetrievalError             the user's retriever or vector store raised
    ├── JudgeError                 the judge failed: the check that asked becomes *unscored*
    │   ├── JudgeCallError         transport / provider failure after retries (HTTP status kept)
    │   │   └── JudgeTimeoutError  no reply within the per-call timeout
    │   ├── VerdictParseError      the reply never matched the verdict schema (attempts + raw replies kept)
    │   └── CheckJudgeError        a check gave up on one unit (e.g. a cited sentence): which one, and the
    │                              partial breakdown of every other unit
    ├── LocalModelError            the offline model could not be assembled, verified or loaded
    ├── GuardError                 a guard held an answer back; ``outcome`` has the result and the attempts
    │   ├── AnswerRejectedError    the answer failed its checks (after any re-asks) and the guard raises
    │   └── UnverifiedAnswerError  the judge failed or timed out, and the guard fails closed by raising
    └── ScriptExhaustedError       a ScriptedJudge ran out of replies (a test bug: never made unscored)

"The judge failed" (``JudgeError``) is kept apart from "your retriever raised"
(``RetrievalError``) and from "your input is wrong" (``InputError``): only the first is turned
into an unscored check; the others surface to the caller.
"""

from __future__ import annotations

__all__ = [
    "AnswerRejectedError",
    "CheckJudgeError",
    "ConfigError",
    "GuardError",
    "InputError",
    "JudgeCallError",
    "JudgeError",
    "JudgeTimeoutError",
    "LVFError",
    "LocalModelError",
    "MissingAPIKeyError",
    "RetrievalError",
    "ScriptExhaustedError",
    "UnverifiedAnswerError",
    "VerdictParseError",
]


class LVFError(Exception):
    """Base class of every error raised by llm_validation_framework."""


class ConfigError(LVFError, ValueError):
    """Settings are invalid or config.ini cannot be read."""


class MissingAPIKeyError(ConfigError):
    """A provider needs an API key and none was found."""


class InputError(LVFError, ValueError):
    """A case is malformed. ``field`` names the offending field."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class RetrievalError(LVFError):
    """The user's retriever raised; ``retriever`` names it."""

    def __init__(self, message: str, *, retriever: str | None = None) -> None:
        super().__init__(message)
        self.retriever = retriever


class JudgeError(LVFError):
    """The judge could not produce a verdict.

    ``raw_replies`` keeps what it said, if anything; ``usage`` what the failed attempts cost
    (tokens are spent all the same), or None when unknown.
    """

    def __init__(self, message: str, *, raw_replies: list[str] | None = None, attempts: int = 0,
                 usage: object | None = None) -> None:
        super().__init__(message)
        self.raw_replies = list(raw_replies or [])
        self.attempts = attempts
        self.usage = usage


class CheckJudgeError(JudgeError):
    """A check's judge failed on one of its units; the message names the unit.

    ``check`` is the check's name, ``details`` the breakdown so far (every other unit's row),
    ``prompt_hash`` its templates. An agent turns it into an unscored check keeping all three.
    """

    def __init__(self, message: str, *, check: str, details: dict | None = None, prompt_hash: str | None = None,
                 raw_replies: list[str] | None = None, attempts: int = 0, usage: object | None = None) -> None:
        super().__init__(message, raw_replies=raw_replies, attempts=attempts, usage=usage)
        self.check = check
        self.details = dict(details or {})
        self.prompt_hash = prompt_hash


class JudgeCallError(JudgeError):
    """The provider call failed (after retries where retrying made sense)."""

    def __init__(self, message: str, *, status_code: int | None = None, attempts: int = 0) -> None:
        super().__init__(message, attempts=attempts)
        self.status_code = status_code


class JudgeTimeoutError(JudgeCallError):
    """The provider did not answer within the per-call timeout."""


class VerdictParseError(JudgeError):
    """The judge's reply did not match the verdict schema, even after a re-ask."""


class LocalModelError(LVFError):
    """The offline model could not be assembled, verified or loaded."""


class GuardError(LVFError):
    """A guard did not let an answer through. ``outcome`` is the
    :class:`~llm_validation_framework.guard.outcome.GuardOutcome` (its evaluation result, every attempt,
    the action ``"raise"``); ``result`` the last evaluation result (None when it timed out)."""

    def __init__(self, message: str, *, outcome: object) -> None:
        super().__init__(message)
        self.outcome = outcome

    @property
    def result(self) -> object | None:
        return getattr(self.outcome, "result", None)


class AnswerRejectedError(GuardError):
    """The answer failed its checks (and any re-asks did not fix it)."""


class UnverifiedAnswerError(GuardError):
    """The judge failed or timed out, so the answer could not be checked, and the guard fails closed."""


class ScriptExhaustedError(LVFError, AssertionError):
    """A ScriptedJudge was asked for more replies than it was given."""
