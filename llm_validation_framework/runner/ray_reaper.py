"""Ray's node agents end with the run that started the local Ray instance, however it ends.

A run with ``ray=True`` starts a local Ray instance in its own process. The processes Ray starts
directly (GCS, raylet, dashboard, monitors) die with the run: the kernel kills them when their
parent dies. The raylet's own helpers, the dashboard agent and the runtime-env agent, do not:
when the raylet is killed they notice within two seconds, then try to tell the GCS (already
dead) why, and wait a minute for it before they exit. A run stopped by SIGKILL, the OOM killer
or a crash left them behind for that minute, on every run.

So the run starts this file as a small watchdog (:func:`start_reaper`), in a session of its own
(Ctrl-C or a kill of the run's process group does not reach it), holding the read end of a pipe
whose write end only the run holds. While the run lives, the watchdog notes the raylet's children
every second (their environment cannot say whose they are: Ray rewrites it with the process
title). When the run closes its Ray instance it says so and the watchdog exits; when the run dies
any other way the pipe closes unsaid, and the watchdog kills the children it noted that still
run (the same process: same pid and start time), then exits. It never outlives the run by more
than that.

Linux only (it reads ``/proc``; Ray's own fate sharing is Linux-only too). Standard library only,
and run as a script, so it starts in milliseconds and imports nothing of the framework.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO

__all__ = ["CLOSED", "children_of", "find_raylet", "reap", "start_reaper", "stop_reaper"]

#: what the run writes to the pipe when it closed its Ray instance itself
CLOSED = b"closed\n"
#: seconds between two looks at the raylet's children
POLL_S = 1.0


def find_raylet(parent: int | None = None) -> int | None:
    """The pid of the raylet that ``parent`` (default: this process) started, if any."""
    parent = os.getpid() if parent is None else parent
    for pid, comm, ppid, _ in _processes():
        if ppid == parent and comm == "raylet":
            return pid
    return None


def children_of(parent: int) -> dict[int, int]:
    """``{pid: start time}`` of the processes whose parent is ``parent``."""
    return {pid: started for pid, _, ppid, started in _processes() if ppid == parent}


def reap(noted: dict[int, int]) -> list[int]:
    """Kill the noted processes that still run (same pid, same start time): their node is gone."""
    alive = {pid: started for pid, _, _, started in _processes()}
    killed = []
    for pid, started in noted.items():
        if alive.get(pid) != started:
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except OSError:
            pass
    return killed


def start_reaper(raylet: int) -> subprocess.Popen | None:
    """Start the watchdog for ``raylet``; None where it cannot run (not Linux). Write :data:`CLOSED`
    to its stdin and close it when the Ray instance was shut down."""
    if not sys.platform.startswith("linux"):
        return None
    return subprocess.Popen([sys.executable, "-S", __file__, str(raylet)], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                            close_fds=True)


def stop_reaper(reaper: subprocess.Popen | None) -> None:
    """Tell the watchdog the run closed its Ray instance itself, and let it go."""
    if reaper is None:
        return
    stdin: IO[bytes] | None = reaper.stdin
    try:
        if stdin is not None:
            stdin.write(CLOSED)
            stdin.close()
        reaper.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        pass


def _processes() -> list[tuple[int, str, int, int]]:
    """``(pid, command name, parent pid, start time)`` of every process."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid … starttime (22nd) …": comm may hold spaces and parentheses
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        found.append((int(entry), comm, int(fields[1]), int(fields[19])))
    return found


def _main(raylet: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the run's Ctrl-C is the run's to handle
    stdin = sys.stdin.buffer.fileno()
    noted: dict[int, int] = {}
    said = b""
    while True:
        noted.update(children_of(raylet))
        ready, _, _ = select.select([stdin], [], [], POLL_S)
        if ready:
            chunk = os.read(stdin, 64)
            if not chunk:  # the run closed the pipe, or died
                break
            said += chunk
    if said != CLOSED:
        reap(noted)


if __name__ == "__main__":
    _main(int(sys.argv[1]))
