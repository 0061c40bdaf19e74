"""``ray=...``: a run's (case, agent) units evaluated by Ray actors, on this machine or a cluster.

The driver (this process) keeps what must be single: it reads the dataset, skips the ids already
done (``--resume``), writes the results file as records arrive, reports progress and builds the
summary. Ray decides where the :class:`~.ray_actor.UnitActor` s run; each builds the judge and
agents once. The driver keeps at most ``concurrency`` units in flight across all actors, so a
provider's rate limit holds for the whole run, not per machine.

Nothing lost, nothing twice: every unit sent out comes back as exactly one record. An actor that
dies (killed, out of memory, its node lost) is replaced, and its units in flight are sent again,
each alone to an idle actor; a unit that kills its actor alone ``max_retries`` times is the case's
ERROR line (``ActorLostError``). A configuration error raised in an actor stops the run with its message.
The driver stopping (Ctrl-C, killed) ends its actors with it, and a local instance's node agents too
(:mod:`.ray_reaper`); ``--resume`` continues the file.

Ray is the ``[ray]`` extra, imported only here. A Ray instance this module starts sends no usage
statistics (``RAY_USAGE_STATS_ENABLED=0``).
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import os
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, LVFError
from .dataset import CaseRow
from .ray_actor import UnitActor
from .ray_reaper import find_raylet, start_reaper, stop_reaper
from .units import error_record

if TYPE_CHECKING:
    from ..judges.base import Judge
    from ..retrieval.provider import RAGProvider
    from .registry import AgentSpec

__all__ = ["ActorLostError", "RayOptions", "import_ray", "ray_options", "run_on_ray"]

INSTALL_HINT = "pip install 'llm_validation_framework[ray]'"


class ActorLostError(LVFError):
    """The Ray actors evaluating one case died every time it was tried (see the message)."""


@dataclass(frozen=True)
class RayOptions:
    """Where and how a run uses Ray.

    * ``address``: ``"local"`` starts a Ray instance on this machine (or uses the one this process
      is already connected to); ``"auto"``, ``"host:6379"`` or ``"ray://host:10001"`` joins a cluster.
    * ``actors``: how many UnitActors (None: as many as the cluster's CPUs allow at
      ``cpus_per_actor`` each, at most one per unit in flight).
    * ``cpus_per_actor``: CPUs Ray reserves for each actor (a LocalJudge uses that many threads).
    * ``max_retries``: how many times a unit whose actor died is sent again before it is an ERROR.
    * ``num_cpus``: CPUs of a local instance this run starts (None: all of them).
    * ``runtime_env``: Ray's runtime environment for the actors (``pip``, ``working_dir``,
      ``env_vars``): what a node needs that it does not have installed.
    """

    address: str = "local"
    actors: int | None = None
    cpus_per_actor: float = 1.0
    max_retries: int = 2
    num_cpus: int | None = None
    runtime_env: Mapping[str, Any] | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.address, str) or not self.address.strip():
            raise ConfigError(f"ray address must be 'local', 'auto', 'host:port' or 'ray://host:port', "
                              f"got {self.address!r}")
        if self.actors is not None and (isinstance(self.actors, bool) or not isinstance(self.actors, int)
                                        or self.actors < 1):
            raise ConfigError(f"ray actors must be a positive integer or None, got {self.actors!r}")
        if not isinstance(self.cpus_per_actor, (int, float)) or self.cpus_per_actor <= 0:
            raise ConfigError(f"ray cpus_per_actor must be a positive number, got {self.cpus_per_actor!r}")
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ConfigError(f"ray max_retries must be an integer >= 0, got {self.max_retries!r}")

    def describe(self) -> dict[str, Any]:
        """What the results header records (no runtime_env values: they may hold secrets)."""
        return {"address": self.address, "actors": self.actors, "cpus_per_actor": self.cpus_per_actor,
                "max_retries": self.max_retries, "num_cpus": self.num_cpus,
                "runtime_env": sorted(self.runtime_env) if self.runtime_env else None}


def ray_options(value: RayOptions | str | bool | None) -> RayOptions | None:
    """``run_dataset``'s ``ray=`` argument as options: None/False in-process, True a local instance,
    a string an address."""
    if value is None or value is False:
        return None
    if value is True:
        return RayOptions()
    if isinstance(value, str):
        return RayOptions(address=value)
    if isinstance(value, RayOptions):
        return value
    raise ConfigError(f"ray must be True, an address string or a RayOptions, got {type(value).__name__}")


def import_ray() -> Any:
    """The ``ray`` module, or a ConfigError naming the pip command that installs it."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(f"running on Ray needs the ray extra: {INSTALL_HINT} ({exc})") from None
    return ray


def check_ray_run(agents: AgentSpec, judge: Judge | None, rag: RAGProvider | None) -> None:
    """What a Ray run cannot take: a ConfigError says what to change."""
    items = [agents] if isinstance(agents, str) else list(agents)
    if not all(isinstance(item, str) for item in items):
        raise ConfigError("a Ray run needs the agents by name (e.g. agents='accuracy,citation'): each actor "
                          "builds its own; pass Agent instances only to an in-process run")
    if rag is not None:
        raise ConfigError("a Ray run cannot send a RAGProvider to its actors: give the cases their passages in the "
                          "file (contexts/passages), or run in-process")
    if judge is None:
        raise ConfigError("a Ray run needs a judge")


@dataclass(frozen=True)
class ActorPlan:
    """What every actor is built from."""

    judge: Judge
    agent_names: tuple[str, ...]
    cache_path: str | None
    threshold: float | None
    repeats: int | None


class _Connection:
    """ray.init as the options say; ``close`` disconnects only what this run connected. A local
    instance this run starts has a watchdog that ends Ray's node agents with the run, even a
    killed one (:mod:`.ray_reaper`)."""

    def __init__(self, ray: Any, options: RayOptions) -> None:
        self.ray = ray
        self.owned = not ray.is_initialized()
        self.reaper: Any = None
        if not self.owned:
            return
        os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # our no-telemetry promise holds on the cluster path
        kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "WARNING"}
        if options.runtime_env:
            kwargs["runtime_env"] = dict(options.runtime_env)
        if options.address == "local":
            kwargs["num_cpus"] = options.num_cpus
        else:
            kwargs["address"] = options.address
            kwargs.pop("include_dashboard")
        try:
            ray.init(**kwargs)
        except ConnectionError as exc:
            raise ConfigError(f"could not reach the Ray cluster at {options.address}: {exc} (is it running, and "
                              "for a head started with token authentication, are RAY_AUTH_MODE=token and its "
                              "token set here?)") from None
        raylet = find_raylet() if options.address == "local" else None  # a cluster's nodes are not ours
        if raylet is not None:
            self.reaper = start_reaper(raylet)

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()
            stop_reaper(self.reaper)


class _Slot:
    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.outstanding = 0
        self.isolated = False  # holds a unit sent again after its actor died, and nothing else


async def run_on_ray(options: RayOptions, plan: ActorPlan, concurrency: int,
                     units: Iterable[tuple[CaseRow, str]], on_record: Callable[[dict[str, Any]], None],
                     on_ready: Callable[[float], None] | None = None) -> None:
    """Evaluate ``units`` ((CaseRow, agent name), read lazily) on Ray actors; ``on_record`` gets every
    finished record on this event loop, ``on_ready`` the seconds until every actor was ready."""
    ray = import_ray()
    started = time.perf_counter()
    connection = _Connection(ray, options)  # ray.init belongs on the main thread: a brief block
    slots: list[_Slot] = []
    try:
        count = options.actors or _fitting_actors(ray, options.cpus_per_actor, concurrency)
        actor_class = ray.remote(UnitActor)
        placement: dict[str, Any] = {"num_cpus": options.cpus_per_actor, "max_concurrency": max(1, concurrency),
                     "max_restarts": 0, "max_task_retries": 0}  # retries are ours: counted per unit
        if options.runtime_env:
            placement["runtime_env"] = dict(options.runtime_env)
        try:
            judge_ref = ray.put(plan.judge)
        except Exception as exc:  # noqa: BLE001 - any reason a judge cannot leave this process
            kind = type(plan.judge).__name__
            raise ConfigError(f"a Ray run needs a judge that can be sent to its actors, but {kind} "
                              f"cannot be serialized ({type(exc).__name__}: {_first_line(exc)}); build it from "
                              "provider/model settings or run in-process") from None

        run_id = uuid.uuid4().hex[:8]
        made = itertools.count()

        def new_actor() -> Any:  # named, so `ray list actors` and operators can tell a run's actors apart
            return actor_class.options(name=f"lvf-unit-{run_id}-{next(made)}", **placement).remote(
                judge_ref, plan.agent_names, plan.cache_path, plan.threshold, plan.repeats, options.cpus_per_actor)

        slots = [_Slot(new_actor()) for _ in range(count)]
        try:
            await asyncio.gather(*(_wait(slot.handle.ready.remote()) for slot in slots))
        except Exception as exc:  # noqa: BLE001 - an actor that cannot start: the run cannot either
            raise _as_error(ray, exc, "a Ray actor could not start") from None
        if on_ready is not None:
            on_ready(time.perf_counter() - started)
        await _dispatch(ray, options, slots, new_actor, concurrency, iter(units), on_record)
    finally:
        for slot in slots:
            try:
                ray.kill(slot.handle, no_restart=True)
            except Exception:  # noqa: BLE001, S110 - already gone
                pass
        connection.close()


async def _dispatch(ray: Any, options: RayOptions, slots: list[_Slot], new_actor: Callable[[], Any],
                    concurrency: int, units: Iterator[tuple[CaseRow, str]],
                    on_record: Callable[[dict[str, Any]], None]) -> None:
    """Keep ``concurrency`` units out; a unit whose actor died is sent again *alone* to an idle actor.

    When an actor dies, every unit it held comes back lost, the culprit among them or not. Sent
    again alone, a unit that kills its actor is to blame, so only deaths in isolation count
    against ``max_retries``: a case that kills actors costs others nothing."""
    lost = _lost_errors(ray)
    in_flight: dict[asyncio.Future, tuple[CaseRow, str, _Slot, Any, int]] = {}
    suspects: collections.deque[tuple[CaseRow, str, int]] = collections.deque()

    def submit(slot: _Slot, row: CaseRow, name: str, attempt: int) -> None:
        slot.outstanding += 1
        slot.isolated = attempt > 0
        in_flight[_wait(slot.handle.evaluate.remote(row, name))] = (row, name, slot, slot.handle, attempt)

    exhausted = False
    try:
        while True:
            for slot in slots:  # suspects first, each to an actor with nothing else to do
                if suspects and slot.outstanding == 0:
                    submit(slot, *suspects.popleft())
            open_slots = [slot for slot in slots if not slot.isolated]
            while open_slots and not suspects and not exhausted and len(in_flight) < concurrency:
                unit = next(units, None)
                if unit is None:
                    exhausted = True
                    break
                submit(min(open_slots, key=lambda s: s.outstanding), *unit, 0)
            if not in_flight:
                return
            finished, _ = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
            for future in finished:
                row, name, slot, handle, attempt = in_flight.pop(future)
                slot.outstanding -= 1
                if slot.outstanding == 0:
                    slot.isolated = False
                try:
                    record = future.result()
                except lost as exc:
                    if slot.handle is handle:  # the first of its units to report the death replaces it
                        try:
                            ray.kill(handle, no_restart=True)
                        except Exception:  # noqa: BLE001, S110 - already gone
                            pass
                        slot.handle = new_actor()
                    if attempt < options.max_retries:
                        suspects.append((row, name, attempt + 1))
                        continue
                    record = error_record(_base(row, name), row, ActorLostError(
                        f"the Ray actor evaluating this case died {attempt + 1} time(s), the last with "
                        f"only this case: {type(exc).__name__}: {_first_line(exc)}"), 0.0)
                except ray.exceptions.RayTaskError as exc:
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, ConfigError):
                        raise ConfigError(str(cause)) from None
                    record = error_record(_base(row, name), row, cause if isinstance(cause, Exception) else exc, 0.0)
                on_record(record)
    finally:
        for future in in_flight:
            future.cancel()


def _wait(ref: Any) -> asyncio.Future:
    """An ObjectRef as a future of this event loop."""
    return asyncio.wrap_future(ref.future())


def _lost_errors(ray: Any) -> tuple[type[BaseException], ...]:
    names = ("RayActorError", "ActorDiedError", "ActorUnavailableError", "WorkerCrashedError", "NodeDiedError",
             "ObjectLostError", "OwnerDiedError")
    return tuple(getattr(ray.exceptions, n) for n in names if hasattr(ray.exceptions, n))


def _as_error(ray: Any, exc: BaseException, what: str) -> LVFError:
    cause = getattr(exc, "cause", None)
    if isinstance(cause, ConfigError):
        return ConfigError(str(cause))
    return ConfigError(f"{what}: {type(exc).__name__}: {_first_line(exc)}")


def _fitting_actors(ray: Any, cpus_per_actor: float, concurrency: int) -> int:
    cpus = float(ray.cluster_resources().get("CPU", 1.0))
    return max(1, min(concurrency, int(cpus // cpus_per_actor)))


def _base(row: CaseRow, name: str) -> dict[str, Any]:
    return {"type": "case", "id": row.id, "line": row.line, "agent": name}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else ""
