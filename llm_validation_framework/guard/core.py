"""Guard: an agent in the application path, deciding what the user sees when an answer fails.

    guard = Guard(RelevancyAgent(provider="local"), on_fail="fallback", fallback="I can't answer that.")
    outcome = guard.validate({"question": q, "answer": a})
    show(outcome.answer)

``on_fail`` (a closed set, :data:`~.outcome.FailAction`) decides what a failed answer becomes:
``"raise"`` (:class:`~llm_validation_framework.errors.AnswerRejectedError`), ``"fallback"`` (a fixed
answer or a function of the result), ``"reask"`` (the generator is called again with the failed
checks' reasons, at most ``max_reasks`` times, then the fallback if one is given, else the error) or
``"flag"`` (the answer, marked). A judge that fails (an UNSCORED result, a judge or retrieval error)
or does not answer within ``timeout`` is never a pass: ``on_judge_error`` / ``on_timeout`` choose
``"fail_closed"`` (the ``on_fail`` action runs, without re-asking: a new answer would meet the same
judge) or ``"fail_open"`` (the answer is shown, and the outcome says it was not checked).
"""

from __future__ import annotations

import asyncio
import inspect
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import AnswerRejectedError, ConfigError, InputError, JudgeError, RetrievalError, UnverifiedAnswerError
from ..infra import tracing
from ..types.inputs import Sample
from ..types.results import EvaluationResult
from .outcome import DecidedBy, FailAction, FailPolicy, GuardAttempt, GuardOutcome, feedback_for

if TYPE_CHECKING:  # pragma: no cover
    from ..agents.base import Agent

__all__ = ["Generator", "Guard"]

#: ``generator(case, feedback)``: the new answer (a string) or the whole new case (a dict), or an awaitable of it
Generator = Callable[[Any, str], Any]
_ACTIONS = ("raise", "fallback", "reask", "flag")
_POLICIES = ("fail_closed", "fail_open")


class Guard:
    """Validate answers with ``agent`` before users see them.

    * ``agent``: any :class:`~llm_validation_framework.agents.base.Agent` (only ``aevaluate`` is used).
    * ``on_fail``: ``"raise"``, ``"fallback"``, ``"reask"`` or ``"flag"`` (see the module docstring).
    * ``fallback``: the answer shown instead of a failed one: a string, or ``f(result)`` returning one
      (``result`` is None when the judge timed out). Needed by ``"fallback"``; used by ``"reask"`` once
      the re-asks are spent.
    * ``generator``: ``generator(case, feedback)`` returns a new answer, or a new case dict (an
      async function too). Needed by ``"reask"`` unless the guard runs :meth:`around` a chain.
    * ``max_reasks``: how many times a failed answer is re-asked (``"reask"`` only).
    * ``timeout``: seconds one evaluation may take (None: no limit); ``on_timeout`` then decides.
    * ``on_timeout``, ``on_judge_error``: ``"fail_closed"`` (default) or ``"fail_open"``.
    """

    def __init__(self, agent: Agent, *, on_fail: FailAction = "raise",
                 fallback: str | Callable[[EvaluationResult | None], Any] | None = None,
                 generator: Generator | None = None, max_reasks: int = 1, timeout: float | None = None,
                 on_timeout: FailPolicy = "fail_closed", on_judge_error: FailPolicy = "fail_closed") -> None:
        if not callable(getattr(agent, "aevaluate", None)):
            raise ConfigError(f"agent must be an Agent (e.g. RelevancyAgent(judge=...)), got {type(agent).__name__}")
        if on_fail not in _ACTIONS:
            raise ConfigError(f"on_fail must be one of {', '.join(map(repr, _ACTIONS))}, got {on_fail!r}")
        if fallback is not None and not (isinstance(fallback, str) or callable(fallback)):
            raise ConfigError(f"fallback must be a string or a function of the result, got {type(fallback).__name__}")
        if on_fail == "fallback" and fallback is None:
            raise ConfigError("on_fail='fallback' needs fallback=: the answer to show instead (a string or a "
                              "function of the result)")
        if generator is not None and not callable(generator):
            raise ConfigError(f"generator must be a function generator(case, feedback), got {type(generator).__name__}")
        if isinstance(max_reasks, bool) or not isinstance(max_reasks, int) or max_reasks < 0:
            raise ConfigError(f"max_reasks must be a whole number >= 0, got {max_reasks!r}")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or math.isnan(timeout) or timeout <= 0):
            raise ConfigError(f"timeout must be a number of seconds > 0, or None for no limit, got {timeout!r}")
        for name, value in (("on_timeout", on_timeout), ("on_judge_error", on_judge_error)):
            if value not in _POLICIES:
                raise ConfigError(f"{name} must be 'fail_closed' or 'fail_open', got {value!r}")
        self.agent = agent
        self.on_fail = on_fail
        self.fallback = fallback
        self.generator = generator
        self.max_reasks = max_reasks
        self.timeout = None if timeout is None else float(timeout)
        self.on_timeout = on_timeout
        self.on_judge_error = on_judge_error

    def __repr__(self) -> str:
        return (f"Guard({type(self.agent).__name__}, on_fail={self.on_fail!r}, max_reasks={self.max_reasks}, "
                f"timeout={self.timeout}, on_timeout={self.on_timeout!r}, on_judge_error={self.on_judge_error!r})")

    # -- validation ------------------------------------------------------------------------------
    def validate(self, case: Mapping[str, Any] | Sample) -> GuardOutcome:
        """:meth:`avalidate` for code without a running event loop (it refuses to run inside one)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.avalidate(case))
        raise RuntimeError("Guard.validate() was called inside a running event loop (an async web app, Jupyter, "
                           "pytest-asyncio): use `await guard.avalidate(case)` there instead")

    async def avalidate(self, case: Mapping[str, Any] | Sample) -> GuardOutcome:
        """Judge ``case`` (question, answer, passages … as the agent reads them) and decide what to show."""
        return await self.arun(case, self.generator)

    async def arun(self, case: Mapping[str, Any] | Sample, generator: Generator | None) -> GuardOutcome:
        """:meth:`avalidate` with ``generator`` for the re-asks (how :meth:`around` re-runs a chain)."""
        _answer_of(case)  # a case that is not one fails here, before any judge call
        if self.on_fail == "reask" and generator is None:
            raise ConfigError("on_fail='reask' needs a generator: Guard(..., generator=fn) where fn(case, feedback) "
                              "returns a new answer, or guard.around(chain) to re-run a LangChain chain")
        with tracing.span(f"guard {self.agent.name}", {"lvf.operation": "guard", "lvf.guard.agent": self.agent.name,
                                                       "lvf.guard.on_fail": self.on_fail}) as current:
            outcome = await self._decide(case, generator)
            if current is not None:
                tracing.record(current, {
                    "lvf.guard.action": outcome.action, "lvf.guard.passed": outcome.passed,
                    "lvf.guard.attempts": len(outcome.attempts), "lvf.guard.decided_by": outcome.decided_by,
                    "lvf.guard.fail_open": outcome.fail_open,
                    "lvf.evaluation.status": outcome.attempts[-1].status}, tracing.secrets_of(self.agent))
        if outcome.action == "raise":
            last = outcome.attempts[-1]
            if outcome.decided_by == "verdict":
                raise AnswerRejectedError(f"the answer failed its checks after {len(outcome.attempts)} attempt(s): "
                                          f"{outcome.reason}", outcome=outcome)
            raise UnverifiedAnswerError(f"the answer could not be checked ({last.status.lower()}: {outcome.reason}) "
                                        f"and the guard fails closed", outcome=outcome)
        return outcome

    async def _decide(self, case: Any, generator: Generator | None) -> GuardOutcome:
        attempts: list[GuardAttempt] = []
        reasks_left = self.max_reasks if self.on_fail == "reask" else 0
        while True:
            attempt = await self._attempt(case)
            attempts.append(attempt)
            if attempt.status == "PASS":
                return GuardOutcome(attempt.answer, True, "pass" if len(attempts) == 1 else "reask", attempt.result,
                                    attempts, case=case)
            if attempt.status != "FAIL":  # the judge could not decide: the chosen policy does
                decided_by: DecidedBy = "timeout" if attempt.status == "TIMEOUT" else "judge_error"
                policy = self.on_timeout if decided_by == "timeout" else self.on_judge_error
                if policy == "fail_open":
                    return GuardOutcome(attempt.answer, False, "fail_open", attempt.result, attempts, decided_by,
                                        fail_open=True, case=case)
                return await self._refuse(attempts, case, decided_by)
            if reasks_left == 0 or generator is None:
                return await self._refuse(attempts, case, "verdict")
            reasks_left -= 1
            assert attempt.result is not None  # a FAIL is a verdict: its result is kept
            attempt.feedback = feedback_for(attempt.result)
            case = _with_reply(case, await _maybe_await(generator(case, attempt.feedback)))

    async def _attempt(self, case: Any) -> GuardAttempt:
        answer = _answer_of(case)
        started = time.perf_counter()
        try:
            if self.timeout is None:
                result = await self.agent.aevaluate(case)
            else:
                result = await asyncio.wait_for(self.agent.aevaluate(case), self.timeout)
        except (asyncio.TimeoutError, TimeoutError):
            return GuardAttempt(answer, "TIMEOUT", error=f"no verdict within {self.timeout:g} s",
                                duration_s=time.perf_counter() - started)
        except (JudgeError, RetrievalError) as exc:
            return GuardAttempt(answer, "ERROR", error=f"{type(exc).__name__}: {exc}",
                                duration_s=time.perf_counter() - started)
        return GuardAttempt(answer, result.status, result, duration_s=time.perf_counter() - started)

    async def _refuse(self, attempts: list[GuardAttempt], case: Any, decided_by: DecidedBy) -> GuardOutcome:
        """The failed (or unchecked, failing closed) answer's fate: ``on_fail``, with a spent re-ask
        ending in the fallback when there is one."""
        last = attempts[-1]
        action = self.on_fail
        if action == "reask":
            action = "fallback" if self.fallback is not None else "raise"
        if action == "flag":
            return GuardOutcome(last.answer, False, "flag", last.result, attempts, decided_by, case=case)
        fallback = self.fallback
        if action == "fallback" and fallback is not None:
            answer = fallback if isinstance(fallback, str) else await _maybe_await(fallback(last.result))
            if not isinstance(answer, str):
                raise ConfigError(f"the fallback function must return a string, got {type(answer).__name__}")
            return GuardOutcome(answer, False, "fallback", last.result, attempts, decided_by, case=case)
        return GuardOutcome(None, False, "raise", last.result, attempts, decided_by, case=case)

    # -- LangChain -------------------------------------------------------------------------------
    def as_runnable(self, *, keys: Mapping[str, str] | None = None, output: str = "answer") -> Any:
        """This guard as a LangChain ``Runnable`` taking a RAG chain's output dict: ``rag_chain |
        guard.as_runnable()``. See :class:`~llm_validation_framework.guard.langchain.GuardRunnable`."""
        from .langchain import GuardRunnable

        return GuardRunnable(self, keys=keys, output=output)

    def around(self, chain: Any, *, keys: Mapping[str, str] | None = None, feedback_key: str = "feedback",
               feedback_as: str = "messages", output: str = "answer") -> Any:
        """``chain`` guarded as one ``Runnable``: on a failed answer the chain runs again with the feedback.
        See :class:`~llm_validation_framework.guard.langchain.GuardedChain`."""
        from .langchain import GuardedChain

        return GuardedChain(self, chain, keys=keys, feedback_key=feedback_key, feedback_as=feedback_as, output=output)


def _answer_of(case: Any) -> str:
    if isinstance(case, Sample):
        answer = case.answer
    elif isinstance(case, Mapping):
        answer = case.get("answer")
    else:
        raise InputError(f"the guard takes a case dict like {{'question': ..., 'answer': ...}}, got "
                         f"{type(case).__name__}", field="data")
    if not isinstance(answer, str) or not answer.strip():
        raise InputError(f"data['answer'] must be the answer to check (a non-empty string), got {answer!r}",
                         field="answer")
    return answer


def _with_reply(case: Any, reply: Any) -> Any:
    """The case after a re-ask: ``reply`` is the new answer (a string) or the whole new case (a dict)."""
    if isinstance(reply, str):
        return replace(case, answer=reply) if isinstance(case, Sample) else {**case, "answer": reply}
    if isinstance(reply, Mapping):
        return dict(reply)
    raise ConfigError(f"the generator must return the new answer (a string) or the new case (a dict), "
                      f"got {type(reply).__name__}")


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value
