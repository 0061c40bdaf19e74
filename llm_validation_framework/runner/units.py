"""One (case, agent) unit of a run, evaluated into its results line; shared by the in-process run
(runner.core) and the Ray actors (runner.ray_actor), so neither imports the other's internals.

A unit never raises for its own case: a bad row, a retriever failure or a judge error that escaped
its check becomes an ERROR record naming the line and field. Only a ConfigError (every case would
fail the same way) and cancellation propagate.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from ..errors import ConfigError, InputError, LVFError
from ..infra.tracing import traced_case
from ..judges.cache import case_scope
from ..judges.queue_clock import CaseClock, case_clock
from ..types.usage import Usage
from .case_inputs import ground_for_record, inputs_of
from .dataset import CaseRow

__all__ = ["RunAbortedError", "aclose_quietly", "error_record", "evaluate_unit", "gather_or_cancel"]


class RunAbortedError(LVFError):
    """The run stopped early: every case so far failed the same unexpected way (see the message)."""


@traced_case  # a span per (case, agent) when an OpenTelemetry SDK is set (infra/tracing.py)
async def evaluate_unit(row: CaseRow, name: str, agent: Any, *, inputs: bool = True) -> dict[str, Any]:
    """The results line of ``agent`` (registered as ``name``) on ``row``; with ``inputs``, it records
    what was judged (see :mod:`.case_inputs`), on ERROR lines too, so a reviewer sees the case."""
    base = {"type": "case", "id": row.id, "line": row.line, "agent": name}
    if row.error is not None:
        return error_record(base, row, row.error, 0.0)
    started = time.perf_counter()
    case, recorded = row.data, inputs_of(row.data) if inputs else None
    with case_scope(), case_clock() as clock:
        try:
            if inputs:  # retrieve here, once, so the record holds the passages the checks saw
                case, recorded = await ground_for_record(agent, case, recorded)
            result = await agent.aevaluate(case)
            record = result.to_dict()
        except ConfigError:
            raise  # every case would fail the same way: stop the run
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - one case's failure never stops the run
            record = _without_queue_time(error_record(base, row, exc, time.perf_counter() - started), clock)
            if inputs:
                record["inputs"] = recorded
            return record
    _without_queue_time(record, clock)
    record.update(base)
    record["error"] = None
    record["meta"] = row.meta
    if inputs:
        record["inputs"] = recorded
    return record


def _without_queue_time(record: dict[str, Any], clock: CaseClock) -> dict[str, Any]:
    """``duration_s`` is the time spent on the case; the time it only waited for a judge that serves
    one call at a time (the local model, busy with other cases) is ``queued_s``, when there was any."""
    queued = clock.queued_s
    if queued > 0:
        record["duration_s"] = round(max(0.0, (record.get("duration_s") or 0.0) - queued), 4)
        record["queued_s"] = round(queued, 4)
    return record


def error_record(base: dict[str, Any], row: CaseRow, exc: BaseException, duration: float) -> dict[str, Any]:
    """An ERROR results line: the exception's type, message (prefixed with the line), field and raw replies."""
    message = str(exc)
    if isinstance(exc, InputError) and not message.startswith(f"line {row.line}"):
        message = f"line {row.line}: {message}"
    error = {"type": type(exc).__name__, "message": message, "line": row.line,
             "field": getattr(exc, "field", None)}
    if getattr(exc, "raw_replies", None):
        error["raw_replies"] = list(exc.raw_replies)  # type: ignore[attr-defined]
    return {**base, "status": "ERROR", "score": None, "threshold": None, "reason": f"error: {message}",
            "checks": [], "usage": Usage().to_dict(), "duration_s": round(duration, 4), "judge": "",
            "notes": [], "error": error, "meta": row.meta}


async def gather_or_cancel(tasks: list[asyncio.Task], on_cancel: Callable[[], object] | None = None) -> None:
    """Wait for all tasks; on the first failure or on cancellation, cancel the rest and re-raise.
    ``on_cancel`` is called when the wait itself is cancelled, before the tasks are."""
    try:
        pending = set(tasks)
        while pending:
            finished, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
            for task in finished:
                if not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
    except asyncio.CancelledError:
        if on_cancel is not None:
            on_cancel()
        raise
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def aclose_quietly(judge: Any) -> None:
    """``await judge.aclose()``, ignoring any failure: closing is best effort."""
    with contextlib.suppress(Exception):
        await judge.aclose()
