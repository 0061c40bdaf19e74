"""Time a case spends queued behind other cases for a judge that serves one call at a time.

The local model answers one call at a time: with eight cases in flight, a case's checks wait
for the seven others' calls, and the case's wall time is mostly that wait. The runner opens a
:class:`CaseClock` per case (:func:`case_clock`); a judge that queues its calls reports each one
through :func:`queued_call`: waiting from the moment it is asked until the model takes it
(:meth:`QueuedCall.serving`), and again at each later wait for the model. The case's queue time
is the time during which every one of its calls in flight was waiting: while one of its calls is
served, the case is being worked on, however many of its other calls wait behind it.

A call abandoned by its caller (the run was stopped) is marked, so the worker thread that would
serve it next skips it instead of running the model for a case no one waits for any more.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Iterator

from ..errors import JudgeCallError

__all__ = ["CaseClock", "QueuedCall", "case_clock", "queued_call", "serving_turn"]

_clock: contextvars.ContextVar[CaseClock | None] = contextvars.ContextVar("lvf_case_clock", default=None)
_call: contextvars.ContextVar[QueuedCall | None] = contextvars.ContextVar("lvf_queued_call", default=None)


class CaseClock:
    """The queue time of one case (``queued_s``), from its calls' waits; safe across worker threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._in_flight = 0
        self._waiting = 0
        self._since: float | None = None
        self._queued = 0.0

    @property
    def queued_s(self) -> float:
        with self._lock:
            extra = time.perf_counter() - self._since if self._since is not None else 0.0
            return self._queued + extra

    def _change(self, in_flight: int, waiting: int) -> None:
        with self._lock:
            now = time.perf_counter()
            if self._since is not None:
                self._queued += now - self._since
            self._in_flight += in_flight
            self._waiting += waiting
            idle = self._in_flight > 0 and self._waiting == self._in_flight
            self._since = now if idle else None


class QueuedCall:
    """One judge call of a case: waiting or served, and whether its caller gave up on it."""

    def __init__(self, clock: CaseClock | None) -> None:
        self._clock = clock
        self._state_lock = threading.Lock()
        self._waiting = True
        self._ended = False
        self.abandoned = threading.Event()
        if clock is not None:
            clock._change(1, 1)

    def serving(self) -> None:
        """The model took this call (it stops waiting)."""
        self._set_waiting(False)

    def waiting(self) -> None:
        """The call waits for the model again (a second model call within one verdict)."""
        self._set_waiting(True)

    def end(self) -> None:
        """The call is over (answered, failed or abandoned)."""
        with self._state_lock:
            if self._ended:
                return
            self._ended = True
            waiting = self._waiting
        if self._clock is not None:
            self._clock._change(-1, -1 if waiting else 0)

    def _set_waiting(self, waiting: bool) -> None:
        with self._state_lock:
            if self._ended or self._waiting == waiting:
                return
            self._waiting = waiting
        if self._clock is not None:
            self._clock._change(0, 1 if waiting else -1)


@contextlib.contextmanager
def case_clock() -> Iterator[CaseClock]:
    """Open the clock of one case: judge calls made inside the block report their waits to it."""
    clock = CaseClock()
    token = _clock.set(clock)
    try:
        yield clock
    finally:
        _clock.reset(token)


@contextlib.contextmanager
def queued_call() -> Iterator[QueuedCall]:
    """Around one judge call that may wait for the model (a worker thread started inside the block
    sees it as :func:`current_call`); abandoned when the block ends by cancellation."""
    call = QueuedCall(_clock.get())
    token = _call.set(call)
    try:
        yield call
    except BaseException:
        call.abandoned.set()  # cancelled, or failed: a worker that has not begun it skips it
        raise
    finally:
        _call.reset(token)
        call.end()


@contextlib.contextmanager
def serving_turn(lock: contextlib.AbstractContextManager[object]) -> Iterator[None]:
    """Hold ``lock`` (the model, one call at a time) for the call this thread serves: its wait ends
    when the lock is taken; a call abandoned while it waited is not served (JudgeCallError)."""
    call = _call.get()  # a worker thread started inside queued_call() sees the caller's call
    if call is not None:
        call.waiting()
    with lock:
        if call is not None:
            if call.abandoned.is_set():
                raise JudgeCallError("not asked: its case was stopped while the call waited for the model")
            call.serving()
        yield
