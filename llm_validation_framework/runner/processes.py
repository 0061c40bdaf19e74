"""``workers=N``: spread a run's cases over N worker processes, each with its own event loop.

Why: litellm spends CPU on every call (request building, response parsing, cost lookup,
logging payloads), all under one GIL, so one Python process caps the judge calls a second. With
a fast endpoint and high concurrency (a local vLLM, the stub server of
benchmarks/runner_speed.py), replies then queue behind each other's parsing. Worker processes
each take ``concurrency / N`` of the cases in flight and use their own core.

The parent keeps everything that must be single: it reads the dataset, skips the ids already
done (``--resume``), writes the results file, counts, reports progress and builds the summary.
It hands each worker its share of units (plus a few queued ahead), and the next one when a
record comes back, starting once every worker is ready (judge built, litellm imported). Each
worker receives the judge (pickled once over a private pipe: an API key is never written
anywhere), opens the same sqlite judge cache (WAL, so processes share it), builds the agents by
name and sends back one finished record per (case, agent). A case's failure is still that case's ERROR line; a
configuration error in a worker stops the run with its message; a worker that dies stops the
run with the results so far saved (continue with ``--resume``).

Workers are fresh interpreters (``python -m llm_validation_framework.runner.processes``), not
``multiprocessing`` children: nothing re-imports the caller's script, so ``run_dataset(...,
workers=2)`` works from any script without an ``if __name__ == "__main__"`` guard, and no
running event loop or thread is forked. They talk over two pipes of their own (length-prefixed
pickles), so whatever a library prints on stdout cannot corrupt the protocol, and they ignore
Ctrl-C: the parent handles it and terminates them.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import ConfigError
from .units import RunAbortedError, aclose_quietly, evaluate_unit, gather_or_cancel

__all__ = ["WorkerSpec", "check_workers", "run_in_processes", "split_concurrency"]

_HEADER = struct.Struct(">I")


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker process needs to build the same agents as the parent."""

    workers: int
    judge_payload: bytes
    agent_names: tuple[str, ...]
    cache_path: str | None  # None: no cache
    threshold: float | None
    repeats: int | None


def check_workers(workers: int, agents: Any, judge: Any, rag: Any) -> bytes:
    """Validate a ``workers > 1`` run and return the pickled judge; a ConfigError says what to change."""
    if os.name != "posix":
        raise ConfigError(f"workers={workers} needs a POSIX system (the workers talk over inherited pipes); "
                          "use workers=1 here")
    items = [agents] if isinstance(agents, str) else list(agents)
    if not all(isinstance(item, str) for item in items):
        raise ConfigError(f"workers={workers} needs the agents by name (e.g. agents='accuracy,citation'): each "
                          "worker process builds its own; pass Agent instances only with workers=1")
    if rag is not None:
        raise ConfigError(f"workers={workers} cannot share a RAGProvider between processes: give the cases their "
                          "passages in the file (contexts/passages), or use workers=1")
    if judge is None:
        raise ConfigError(f"workers={workers} needs a judge")
    if getattr(judge, "in_process_model", False):
        raise ConfigError(f"workers={workers} would load the local model once per process (memory x {workers}) "
                          "while its calls share the same CPU anyway: use workers=1 with the local judge "
                          "(or start `lvf serve` and add --api-base URL: the workers then share its one loaded model)")
    try:
        return pickle.dumps(judge)
    except Exception as exc:  # noqa: BLE001 - any reason a judge cannot cross a process boundary
        raise ConfigError(f"workers={workers} needs a judge that can be sent to another process, but "
                          f"{type(judge).__name__} cannot be pickled ({type(exc).__name__}: {exc}); build it from "
                          "provider/model settings or use workers=1") from None


def split_concurrency(concurrency: int, workers: int) -> list[int]:
    """``concurrency`` cases in flight in all, spread as evenly as possible (each worker at least 1)."""
    base, extra = divmod(max(concurrency, workers), workers)
    return [base + (1 if i < extra else 0) for i in range(workers)]


# -- framing ------------------------------------------------------------------------------------
def _send(stream: BinaryIO, message: tuple[Any, ...]) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream: BinaryIO) -> tuple[Any, ...] | None:
    """The next message, or None at end of stream."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


# -- in the parent ------------------------------------------------------------------------------
class _Worker:
    def __init__(self, index: int, share: int) -> None:
        self.index, self.share = index, share
        self.name = f"worker {index + 1}"
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        # the parent's import path, as multiprocessing's spawn passes it: a judge class of the
        # caller's own (pickled by reference) must import in the worker too
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "llm_validation_framework.runner.processes", str(to_child_r), str(from_child_w)],
            pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL, stdout=2, env=env)
        os.close(to_child_r)
        os.close(from_child_w)
        self.inbox = os.fdopen(to_child_w, "wb")
        self.outbox = os.fdopen(from_child_r, "rb")
        self.outstanding = 0
        # a few units queued in the worker beyond the ones in flight, so a finished case's slot is
        # refilled at once rather than after a round trip through the parent
        self.ahead = max(1, share // 4)
        self.ended = False
        self.done = False

    def send(self, message: tuple[Any, ...]) -> None:
        _send(self.inbox, message)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.inbox, self.outbox):
            try:
                stream.close()
            except OSError:
                pass


async def run_in_processes(spec: WorkerSpec, concurrency: int, units: Iterable[tuple[Any, str]],
                           on_record: Callable[[dict[str, Any]], None],
                           on_ready: Callable[[float], None] | None = None) -> None:
    """Evaluate ``units`` ((CaseRow, agent name) pairs, read lazily) in ``spec.workers`` processes.

    ``on_record`` is called in this process, on this event loop, for every finished record;
    ``on_ready`` once, with the seconds it took until every worker had its judge ready. Raises
    ConfigError (a worker's configuration error) or RunAbortedError (a worker stopped)."""
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[tuple[int, tuple[Any, ...] | None]] = asyncio.Queue()
    pool: list[_Worker] = []
    readers: list[threading.Thread] = []
    pending = iter(units)
    exhausted = False
    started = loop.time()
    ready = 0

    def read(worker: _Worker) -> None:  # a thread per worker: pipe reads block
        while True:
            try:
                message = _receive(worker.outbox)
            except (OSError, ValueError, EOFError, pickle.UnpicklingError):
                message = None
            loop.call_soon_threadsafe(inbox.put_nowait, (worker.index, message))
            if message is None or message[0] == "done":
                return

    def died(worker: _Worker) -> RunAbortedError:
        try:
            code: int | None = worker.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        return RunAbortedError(f"{worker.name} process stopped unexpectedly (exit code {code}); the cases "
                               "finished so far are saved: continue with --resume")

    def send(worker: _Worker, message: tuple[Any, ...]) -> None:
        try:
            worker.send(message)
        except OSError:  # BrokenPipeError: the worker is gone
            raise died(worker) from None

    def fill(worker: _Worker) -> None:
        nonlocal exhausted
        while not exhausted and worker.outstanding < worker.share + worker.ahead:
            try:
                unit = next(pending)
            except StopIteration:
                exhausted = True
                break
            send(worker, ("unit", unit))
            worker.outstanding += 1
        if exhausted and not worker.ended:
            send(worker, ("end",))
            worker.ended = True

    try:
        for index, share in enumerate(split_concurrency(concurrency, spec.workers)):
            worker = _Worker(index, share)
            pool.append(worker)
            send(worker, ("spec", spec, share))
            thread = threading.Thread(target=read, args=(worker,), name=f"lvf-{worker.name}", daemon=True)
            thread.start()
            readers.append(thread)
        finished = 0
        while finished < len(pool):
            index, message = await inbox.get()
            worker = pool[index]
            if message is None:
                if worker.done:
                    continue
                raise died(worker)
            kind = message[0]
            if kind == "record":
                worker.outstanding -= 1
                on_record(message[1])
                fill(worker)
            elif kind == "fatal":
                _, error_type, text = message
                if error_type == "ConfigError":
                    raise ConfigError(text)
                raise RunAbortedError(f"{worker.name} stopped: {error_type}: {text}")
            elif kind == "ready":
                ready += 1
                if ready == len(pool):  # cases go out once every worker is up: a clean start, and even shares
                    if on_ready is not None:
                        on_ready(loop.time() - started)
                    for each in pool:
                        fill(each)
            elif kind == "done":
                worker.done = True
                finished += 1
    finally:
        for worker in pool:
            worker.close()
        for thread in readers:
            thread.join(timeout=5)


# -- in the worker process ----------------------------------------------------------------------
def _worker_main(in_fd: int, out_fd: int) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    inbox = os.fdopen(in_fd, "rb")
    outbox = os.fdopen(out_fd, "wb")
    try:
        first = _receive(inbox)
        if first is None or first[0] != "spec":
            return 2
        _, spec, concurrency = first
        asyncio.run(_worker_loop(spec, concurrency, inbox, outbox))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which stops the run
        error_type = "ConfigError" if isinstance(exc, ConfigError) else type(exc).__name__
        try:
            _send(outbox, ("fatal", error_type, str(exc)))
        except OSError:
            return 1
    try:
        _send(outbox, ("done",))
    except OSError:
        return 1
    return 0


async def _worker_loop(spec: WorkerSpec, concurrency: int, inbox: BinaryIO, outbox: BinaryIO) -> None:
    from ..judges.cache import CachedJudge
    from .registry import build_agents

    judge = pickle.loads(spec.judge_payload)
    shared = CachedJudge(judge, Path(spec.cache_path)) if spec.cache_path is not None else judge
    try:
        agents = dict(build_agents(list(spec.agent_names), shared, threshold=spec.threshold, repeats=spec.repeats))
        await judge.prepare()  # litellm's slow import and lazy set-up before the first case, not inside it
        _send(outbox, ("ready",))
        loop = asyncio.get_running_loop()
        local: asyncio.Queue[tuple[Any, str] | None] = asyncio.Queue()

        def read() -> None:  # a thread; the parent bounds what it sends (share + a few ahead)
            while True:
                message = _receive(inbox)
                if message is None or message[0] == "end":
                    for _ in range(concurrency):
                        loop.call_soon_threadsafe(local.put_nowait, None)
                    return
                loop.call_soon_threadsafe(local.put_nowait, message[1])

        async def work() -> None:
            while True:
                unit = await local.get()
                if unit is None:
                    return
                row, name = unit
                record = await evaluate_unit(row, name, agents[name])
                _send(outbox, ("record", record))

        threading.Thread(target=read, name="lvf-worker-reader", daemon=True).start()
        await gather_or_cancel([asyncio.create_task(work()) for _ in range(concurrency)])
    finally:
        if isinstance(shared, CachedJudge):
            shared.close()
        await aclose_quietly(judge)


if __name__ == "__main__":
    sys.exit(_worker_main(int(sys.argv[1]), int(sys.argv[2])))
