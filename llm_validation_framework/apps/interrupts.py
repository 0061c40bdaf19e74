"""How ``lvf run`` is stopped from outside: Ctrl-C, and SIGTERM handled the same way.

The stop is acknowledged at once, on stderr (:func:`announcing_stop`): the judge's calls in
flight may take a while to end (the local model finishes the reply it is writing), and a user
who sees nothing presses Ctrl-C again, or kills the process and loses the footer.

SIGTERM is what a CI runner, ``kill``, ``timeout`` or Kubernetes sends before SIGKILL. Python's
default is to die at once, without the results file's footer or the resume hint; forwarded to
the SIGINT handler in place (asyncio's while a run's event loop is up, which cancels the run so
it unwinds and closes the file; else the one raising KeyboardInterrupt), a SIGTERM ends the run
exactly as Ctrl-C does: footer, exit code 130, the command that continues it.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType

from ..infra.hosts import hide_userinfo
from ..runner.core import RunProgress

__all__ = ["announcing_stop", "resume_command", "sigterm_as_interrupt", "stopping_line"]


def stopping_line(done: int, out: str | os.PathLike[str]) -> str:
    """What a stopped run says at once: that it is stopping, and what it keeps."""
    return (f"\nstopping: the {done} result(s) finished so far are kept in {out}; the cases in flight are "
            "dropped (--resume runs them). Waiting for the judge's calls in progress to end…")


def announcing_stop(update: Callable[[RunProgress], object],
                    out: str | os.PathLike[str]) -> Callable[[RunProgress], None]:
    """A progress callback: ``update`` for every event, and first :func:`stopping_line` on stderr for
    the event a stopped run sends before it drops its cases in flight."""
    def on_progress(event: RunProgress) -> None:
        if event.stopping:
            print(stopping_line(event.done, out), file=sys.stderr, flush=True)
        update(event)

    return on_progress


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM is handled by whatever handles SIGINT at that moment."""
    def forward(signum: int, frame: FrameType | None) -> None:
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:  # SIG_IGN / SIG_DFL for SIGINT: still stop, as Ctrl-C would in a terminal
            raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, forward)
    except ValueError:  # not the main thread (an embedding application): leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def resume_command(argv: Sequence[str]) -> str:
    """The ``lvf`` command line that continues this run: ``--resume`` instead of ``--overwrite``, and
    passwords in URLs (``--api-base http://user:secret@host``) masked, since it is printed."""
    args = [hide_userinfo(arg) for arg in argv if arg not in ("--overwrite", "--resume")]
    return shlex.join(["lvf", *args, "--resume"])
