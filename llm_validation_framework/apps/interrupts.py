"""How ``lvf run`` is stopped from outside: Ctrl-C, and SIGTERM handled the same way.

SIGTERM is what a CI runner, ``kill``, ``timeout`` or Kubernetes sends before SIGKILL. Python's
default is to die at once, without the results file's footer or the resume hint; forwarded to
the SIGINT handler in place (asyncio's while a run's event loop is up, which cancels the run so
it unwinds and closes the file; else the one raising KeyboardInterrupt), a SIGTERM ends the run
exactly as Ctrl-C does: footer, exit code 130, the command that continues it.
"""

from __future__ import annotations

import shlex
import signal
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType

from ..infra.hosts import hide_userinfo

__all__ = ["resume_command", "sigterm_as_interrupt"]


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
