"""OpenTelemetry spans for guards, agents, checks and dataset runs, through ``opentelemetry-api`` only.

Nothing here imports OpenTelemetry. A span is made only when the application has imported
``opentelemetry.trace`` itself and set a real tracer provider (an SDK), or handed one to
:func:`configure_tracing`. Otherwise every traced call costs one dictionary lookup, and an
application without the ``[otel]`` extra pays nothing.

Names follow the OpenTelemetry GenAI semantic conventions where they exist: each agent and check
span carries ``gen_ai.evaluation.name``, ``gen_ai.evaluation.score.value``,
``gen_ai.evaluation.score.label``, ``gen_ai.evaluation.explanation`` and, when the judge failed,
``error.type``, and adds the same attributes as a ``gen_ai.evaluation.result`` event (for backends
that read events). Everything the conventions have no name for is under the ``lvf.`` prefix
(docs/guard.md lists them). No question, answer or passage text is recorded, and every string has
the evaluation's known secrets masked (:mod:`~llm_validation_framework.infra.secrets`).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import sys
import weakref
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any, TypeVar, cast

from .._version import __version__
from .secrets import known_secrets, scrub

__all__ = ["EVALUATION_EVENT", "configure_tracing", "record", "span", "traced_agent", "traced_case", "traced_check",
           "secrets_of", "traced_run", "tracing_active", "untraced"]

EVALUATION_EVENT = "gen_ai.evaluation.result"
#: a coroutine function the traced_* decorators wrap and return with its signature unchanged
AsyncFunction = TypeVar("AsyncFunction", bound=Callable[..., Awaitable[Any]])
#: an explanation longer than this is cut: a span attribute is not the place for a whole breakdown
MAX_TEXT = 2000
_SCOPE = "llm_validation_framework"
_state: dict[str, Any] = {"enabled": True, "provider": None, "cached": (None, None)}
#: set while the library evaluates for its own purposes (the runner's prompt-hash probe): no spans then
_untraced: contextvars.ContextVar[bool] = contextvars.ContextVar("lvf_untraced", default=False)


#: a judge's or agent's own secrets, found once: walking an object per span cost milliseconds (a ScriptedJudge
#: keeps every request it was asked)
_held: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()


def secrets_of(holder: Any) -> frozenset[str]:
    """The secrets to mask in spans about ``holder`` (a judge or an agent): its own, found once, and the
    environment's key-like values, read each time (they may change)."""
    try:
        held = _held[holder]
    except (KeyError, TypeError):
        held = known_secrets([holder], environ={})
        try:
            _held[holder] = held
        except TypeError:  # not weakly referable: found again next time
            pass
    return held | _environment_secrets()


_environ: dict[str, Any] = {"seen": None, "secrets": frozenset()}


def _environment_secrets() -> frozenset[str]:
    """The environment's secrets, found again only when the environment changed: decoding every variable
    per span cost more than the rest of the span."""
    raw = getattr(os.environ, "_data", None)  # CPython's undecoded mapping: comparing it is cheap
    if raw is None:
        return known_secrets()
    if _environ["seen"] != raw:
        _environ.update(seen=dict(raw), secrets=known_secrets())
    return _environ["secrets"]


def configure_tracing(*, enabled: bool = True, tracer_provider: Any = None) -> None:
    """Where this library's spans go.

    ``tracer_provider``: an OpenTelemetry ``TracerProvider`` to use instead of the global one (None:
    the global provider, which is a no-op until the application sets an SDK). ``enabled=False``
    makes no span at all, whatever the provider.
    """
    if tracer_provider is not None and not callable(getattr(tracer_provider, "get_tracer", None)):
        from ..errors import ConfigError

        raise ConfigError(f"tracer_provider must be an OpenTelemetry TracerProvider (with get_tracer), "
                          f"got {type(tracer_provider).__name__}")
    _state.update(enabled=bool(enabled), provider=tracer_provider, cached=(None, None))


def _tracer() -> Any:
    """The tracer to use, or None when no span could be recorded (checked on every call, cheaply)."""
    if not _state["enabled"] or _untraced.get():
        return None
    provider = _state["provider"]
    if provider is None:
        api = sys.modules.get("opentelemetry.trace")
        if api is None:  # the application never imported OpenTelemetry: it cannot have an SDK set
            return None
        provider = api.get_tracer_provider()
        if isinstance(provider, api.ProxyTracerProvider):  # the API's default: no SDK set yet
            return None
    cached_provider, tracer = _state["cached"]
    if cached_provider is not provider:
        tracer = provider.get_tracer(_SCOPE, __version__)
        _state["cached"] = (provider, tracer)
    return tracer


async def untraced(awaitable: Awaitable[Any]) -> Any:
    """Await ``awaitable`` making no span: evaluations the library runs for itself are not the user's."""
    token = _untraced.set(True)
    try:
        return await awaitable
    finally:
        _untraced.reset(token)


def tracing_active() -> bool:
    """True when spans are being made (an SDK provider is set and tracing is not disabled)."""
    return _tracer() is not None


@contextlib.contextmanager
def span(name: str, attributes: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """A current span named ``name``, yielded when it records (else None, and nothing is built)."""
    tracer = _tracer()
    if tracer is None:
        yield None
        return
    with tracer.start_as_current_span(name, record_exception=False, set_status_on_exception=False) as current:
        if not current.is_recording():
            yield None
            return
        if attributes:
            record(current, attributes)
        try:
            yield current
        except BaseException as exc:
            fail(current, exc)
            raise


def record(current: Any, attributes: Mapping[str, Any], secrets: frozenset[str] | None = None) -> None:
    """Set ``attributes`` on a recording span (None does nothing); None values are left out, strings are
    capped and have ``secrets`` masked (None: the environment's, see :func:`known_secrets`)."""
    if current is None:
        return
    current.set_attributes(_clean(attributes, _environment_secrets() if secrets is None else secrets))


def fail(current: Any, exc: BaseException, secrets: frozenset[str] | None = None) -> None:
    """Mark ``current`` as ended by ``exc``: ``error.type`` and an ERROR status (a cancellation included)."""
    from opentelemetry.trace import Status, StatusCode

    secrets = _environment_secrets() if secrets is None else secrets
    kind = "cancelled" if type(exc).__name__ == "CancelledError" else type(exc).__name__
    current.set_attribute("error.type", kind)
    current.set_status(Status(StatusCode.ERROR, _text(f"{type(exc).__name__}: {exc}", secrets)))


def traced_agent(aevaluate: AsyncFunction) -> AsyncFunction:
    """Wrap ``Agent.aevaluate``: a span ``evaluate <agent>`` with the result's evaluation attributes."""

    @functools.wraps(aevaluate)
    async def evaluate(self: Any, data: Any, on_progress: Any = None) -> Any:
        tracer = _tracer()
        if tracer is None:
            return await aevaluate(self, data, on_progress=on_progress)
        return await _traced(tracer, f"evaluate {self.name}", {"lvf.operation": "agent",
                             "gen_ai.evaluation.name": self.name}, self,
                             lambda: aevaluate(self, data, on_progress=on_progress), _agent_attributes)

    return cast(AsyncFunction, evaluate)  # the same signature: the wrapper passes every argument on


def traced_check(judge: Any) -> Callable[[AsyncFunction], AsyncFunction]:
    """Wrap an agent's ``run(index, check)`` of one check: a span ``check <check>`` with the check result's
    evaluation attributes (an unscored check's included); ``judge``'s secrets are masked."""

    def wrap(run: AsyncFunction) -> AsyncFunction:
        @functools.wraps(run)
        async def check_run(index: int, check: Any) -> Any:
            tracer = _tracer()
            if tracer is None:
                return await run(index, check)
            return await _traced(tracer, f"check {check.name}", {"lvf.operation": "check",
                                 "gen_ai.evaluation.name": check.name}, judge,
                                 lambda: run(index, check), _check_attributes)

        return cast(AsyncFunction, check_run)

    return wrap


def traced_case(evaluate_unit: AsyncFunction) -> AsyncFunction:
    """Wrap the runner's ``evaluate_unit(row, name, agent, *, inputs)``: a span ``case`` per (case, agent)
    with the case's id, line and status (its evaluation event is on the agent span inside)."""

    @functools.wraps(evaluate_unit)
    async def case(row: Any, name: str, agent: Any, *, inputs: bool = True) -> dict[str, Any]:
        if _tracer() is None:
            return await evaluate_unit(row, name, agent, inputs=inputs)
        with span("case", {"lvf.operation": "case", "lvf.case.id": row.id, "lvf.case.line": row.line,
                           "lvf.agent.name": name}) as current:
            record_ = await evaluate_unit(row, name, agent, inputs=inputs)
            error = record_.get("error") or {}
            record(current, {"lvf.case.status": record_.get("status"), "lvf.case.score": record_.get("score"),
                             "error.type": error.get("type")}, frozenset())
            if current is not None and error:
                from opentelemetry.trace import Status, StatusCode

                current.set_status(Status(StatusCode.ERROR, "the case could not be evaluated"))
            return record_

    return cast(AsyncFunction, case)


def traced_run(run: AsyncFunction) -> AsyncFunction:
    """Wrap the runner's run over a dataset: one ``run_dataset`` span, the parent of every case span."""

    @functools.wraps(run)
    async def traced(path: Any, built: Any, *args: Any, **kwargs: Any) -> Any:
        if _tracer() is None:
            return await run(path, built, *args, **kwargs)
        with span("run_dataset", {"lvf.operation": "run", "lvf.run.agents": [name for name, _ in built],
                                  "lvf.run.rows": kwargs.get("rows_total"),
                                  "lvf.run.concurrency": kwargs.get("concurrency")}) as current:
            summary = await run(path, built, *args, **kwargs)
            tallies = list(summary.agents.values())
            record(current, {"lvf.run.evaluated": summary.evaluated, "lvf.run.skipped": summary.skipped,
                             "lvf.run.passed": sum(t.passed for t in tallies),
                             "lvf.run.failed": sum(t.failed for t in tallies),
                             "lvf.run.unscored": sum(t.unscored for t in tallies),
                             "lvf.run.errors": sum(t.errors for t in tallies)}, frozenset())
            return summary

    return cast(AsyncFunction, traced)


async def _traced(tracer: Any, name: str, start: Mapping[str, Any], holder: Any,
                  call: Callable[[], Awaitable[Any]], describe: Callable[[Any], dict[str, Any]]) -> Any:
    with tracer.start_as_current_span(name, record_exception=False, set_status_on_exception=False) as current:
        if not current.is_recording():
            return await call()
        current.set_attributes(dict(start))
        try:
            result = await call()
        except BaseException as exc:
            fail(current, exc, secrets_of(holder))
            raise
        secrets = secrets_of(holder)
        attributes = _clean(describe(result), secrets)
        current.set_attributes(attributes)
        current.add_event(EVALUATION_EVENT, {k: v for k, v in attributes.items()
                                             if k.startswith("gen_ai.") or k == "error.type"})
        if "error.type" in attributes:
            from opentelemetry.trace import Status, StatusCode

            current.set_status(Status(StatusCode.ERROR, "the judge could not score it"))
        return result


def _agent_attributes(result: Any) -> dict[str, Any]:
    status = result.status
    usage = result.usage
    out = {"gen_ai.evaluation.name": result.agent,
           "gen_ai.evaluation.score.value": result.score,
           "gen_ai.evaluation.score.label": status.lower(),
           "gen_ai.evaluation.explanation": result.reason,
           "lvf.evaluation.status": status,
           "lvf.evaluation.threshold": result.threshold,
           "lvf.judge": result.judge,
           "lvf.usage.calls": usage.calls,
           "lvf.usage.cached_calls": usage.cached_calls,
           "lvf.usage.prompt_tokens": usage.prompt_tokens,
           "lvf.usage.completion_tokens": usage.completion_tokens}
    if status == "UNSCORED":
        failed = next((c for c in result.checks if c.applicable and c.score is None), None)
        out["error.type"] = _error_type(failed.error if failed is not None else None)
    return out


def _check_attributes(result: Any) -> dict[str, Any]:
    label = result.details.get("label") if isinstance(result.details, Mapping) else None
    if not result.applicable:
        label = "not_applicable"
    elif result.score is None:
        label = "unscored"
    elif not isinstance(label, str) or len(label) > 40:
        label = "scored"
    out = {"gen_ai.evaluation.name": result.name,
           "gen_ai.evaluation.score.value": result.score,
           "gen_ai.evaluation.score.label": label,
           "gen_ai.evaluation.explanation": result.reason,
           "lvf.check.method": result.method,
           "lvf.check.applicable": result.applicable,
           "lvf.usage.calls": result.usage.calls}
    if result.applicable and result.score is None:
        out["error.type"] = _error_type(result.error)
    return out


def _error_type(message: str | None) -> str:
    """The exception's type name when the unscored message starts with one (``JudgeCallError: …``)."""
    head = (message or "").split(":", 1)[0].strip()
    return head if head.isidentifier() and head[:1].isupper() else "unscored"


def _text(value: str, secrets: frozenset[str]) -> str:
    value = scrub(value, secrets)
    return value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 1] + "…"


def _clean(attributes: Mapping[str, Any], secrets: frozenset[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        if value is None:
            continue
        if isinstance(value, str):
            value = _text(value, secrets)
        elif isinstance(value, (list, tuple)):
            value = [_text(str(item), secrets) for item in value]
        out[key] = value
    return out
