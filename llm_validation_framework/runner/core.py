"""run_dataset: cases in → bounded concurrency → one results line per (case, agent) out, resumable.

A producer streams rows from the dataset into a small queue; ``concurrency`` workers take
(case, agent) units from it, so at most ``concurrency`` evaluations are in flight and memory
does not grow with the file. Each finished unit is written and flushed before the next is
reported. A case that cannot be evaluated (bad row, missing field, retriever or judge failure
that escaped its check) is written with status ERROR and the run goes on; a configuration
error (no API key, …) stops the run, since every other case would fail the same way.
Cancelling the run (Ctrl-C) cancels the units in flight, closes the file and re-raises.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..infra.tracing import traced_run, untraced
from ..judges.base import Judge
from ..judges.cache import CachedJudge
from ..types.usage import Usage
from .dataset import CaseRow, count_rows, iter_cases, parse_field_map
from .probe import probe_prompt_hashes
from .ray_executor import ActorPlan, RayOptions, check_ray_run, import_ray, ray_options
from .registry import AgentSpec, build_agents
from .results_file import ResultsWriter, load_prior, redact, usage_from_dict
from .secrets import known_secrets
from .summary import AgentSummary, RunSummary
from .units import RunAbortedError, aclose_quietly, evaluate_unit, gather_or_cancel

if TYPE_CHECKING:  # pragma: no cover
    from ..agents.base import Agent
    from ..retrieval.provider import RAGProvider

#: how a run goes to Ray: the options and what every actor is built from
RaySpec = tuple[RayOptions, ActorPlan]

__all__ = ["RunAbortedError", "RunProgress", "arun_dataset", "default_out_path", "run_dataset"]

#: the run stops when this many first units all fail with the same unexpected error (a bug, not a case)
ABORT_AFTER_SAME_ERROR = 20


@dataclass(frozen=True)
class RunProgress:
    """Sent to ``on_progress`` after every finished (case, agent) unit."""

    done: int
    total: int
    passed: int
    failed: int
    unscored: int
    errors: int
    usage: Usage
    elapsed_s: float
    record: Mapping[str, Any] = field(default_factory=dict)
    #: the run was stopped (Ctrl-C, SIGTERM): sent once, at once, before the cases in flight are dropped
    stopping: bool = False

    @property
    def rate(self) -> float:
        return self.done / self.elapsed_s if self.elapsed_s > 0 else 0.0


def default_out_path(dataset: str | Path) -> Path:
    """``<dataset name>.results.jsonl`` in the working directory."""
    name = Path(dataset).name
    for suffix in (".gz", ".jsonl", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return Path.cwd() / f"{name}.results.jsonl"


def run_dataset(
    path: str | Path,
    agents: AgentSpec = ("accuracy",),
    *,
    concurrency: int = 8,
    out: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    limit: int | None = None,
    field_map: Mapping[str, str] | Sequence[str] | None = None,
    cache: bool | str | Path = True,
    on_progress: Callable[[RunProgress], object] | None = None,
    judge: Judge | None = None,
    provider: str | None = None,
    model: str | None = None,
    api_base: str | None = None,
    config_path: str | None = None,
    threshold: float | None = None,
    rag: RAGProvider | None = None,
    repeats: int | None = None,
    settings: Mapping[str, Any] | None = None,
    ray: RayOptions | str | bool | None = None,
    inputs: bool = True,
) -> RunSummary:
    """Evaluate every case of a JSONL file with each agent: :func:`arun_dataset` for code that has no
    event loop running (it refuses to run inside one)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass  # no loop running: the run starts below, outside this handler
    else:
        raise RuntimeError("run_dataset() was called inside a running event loop: use `await arun_dataset(...)` there")
    # Not inside the `except`: every exception of the run would take that RuntimeError as its context,
    # and the judge reads an error's causes (a malformed reply is not an HTTP 500).
    return asyncio.run(arun_dataset(
        path, agents, concurrency=concurrency, out=out, resume=resume, overwrite=overwrite, limit=limit,
        field_map=field_map, cache=cache, on_progress=on_progress, judge=judge, provider=provider, model=model,
        api_base=api_base, config_path=config_path, threshold=threshold, rag=rag, repeats=repeats,
        settings=settings, ray=ray, inputs=inputs))


async def arun_dataset(
    path: str | Path,
    agents: AgentSpec = ("accuracy",),
    *,
    concurrency: int = 8,
    out: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    limit: int | None = None,
    field_map: Mapping[str, str] | Sequence[str] | None = None,
    cache: bool | str | Path = True,
    on_progress: Callable[[RunProgress], object] | None = None,
    judge: Judge | None = None,
    provider: str | None = None,
    model: str | None = None,
    api_base: str | None = None,
    config_path: str | None = None,
    threshold: float | None = None,
    rag: RAGProvider | None = None,
    repeats: int | None = None,
    settings: Mapping[str, Any] | None = None,
    ray: RayOptions | str | bool | None = None,
    inputs: bool = True,
) -> RunSummary:
    """Evaluate a JSONL dataset and stream one results line per (case, agent) to ``out``.

    * ``agents``: names (``"accuracy,citation"`` or a list) built on one shared judge, and/or
      Agent instances (kept as given; their judge gets the cache too).
    * ``judge``: the judge for agents given by name; else one is built from ``provider``,
      ``model``, ``api_base`` and ``config_path`` as an agent builds it (environment and
      config.ini fill what is None). ``threshold``, ``rag`` and ``repeats`` (odd: each check asked
      that many times, the median kept) go to agents built by name; None keeps their defaults.
    * ``concurrency``: (case, agent) units in flight at once, across the whole cluster on Ray.
    * ``ray``: None runs in this process; True (a local Ray instance), an address (``"auto"``,
      ``"host:6379"``, ``"ray://host:10001"``) or a :class:`~.ray_executor.RayOptions` evaluates the
      units in Ray actors (agents by name; needs the ``[ray]`` extra; see runner/ray_executor.py).
    * ``out``: the results file (None: ``<dataset>.results.jsonl`` in the working directory). An
      existing non-empty file is an error unless ``resume`` (keep its PASS/FAIL cases, run the
      rest, UNSCORED and ERROR included) or ``overwrite``.
    * ``limit``: only the first N cases. ``field_map``: the file's field names for ours
      (``{"question": "prompt"}`` or ``["question=prompt"]``; see runner/dataset.py).
    * ``inputs``: each results line records the case it judged (question, answer, reference,
      passages with their numbers, capped per field; see runner/case_inputs.py). False leaves them
      out, for data that must not be copied into results files.
    * ``cache``: judge replies kept in sqlite: True (the default file), False, or a path.
    * ``on_progress``: called with a :class:`RunProgress` after every unit (and once before the
      first, with the total; and once with ``stopping=True`` the moment the run is cancelled,
      before its units in flight are dropped). ``settings``: extra values recorded, secrets
      redacted, in the results header.
    """
    started = time.perf_counter()
    concurrency = _positive_int(concurrency, "concurrency")
    ray_plan = ray_options(ray)
    if limit is not None:
        limit = _positive_int(limit, "limit")
    field_map = parse_field_map(field_map)
    rows_total = count_rows(path)  # also validates the path before anything is built
    if rows_total == 0:
        raise ConfigError(f"dataset {str(path)!r} has no cases (it is empty or only blank lines): "
                          "write one JSON object per line")
    if limit is not None:
        rows_total = min(rows_total, limit)
    out_path = Path(out).expanduser() if out is not None else default_out_path(path)
    if out_path.resolve() == Path(path).expanduser().resolve():
        raise ConfigError(f"--out {out_path} is the dataset itself: write the results to another file")
    if out_path.exists() and out_path.stat().st_size > 0 and not resume and not overwrite:
        raise ConfigError(f"results file {out_path} already exists: pass --resume to continue it, "
                          f"--overwrite to replace it, or --out another path")

    owned: list[Judge] = []  # judges and caches this run opened: closed when it ends, however it ends
    try:
        needs_judge = isinstance(agents, str) or any(isinstance(a, str) for a in agents)
        if judge is None and needs_judge:
            from ..judges import make_judge

            judge = make_judge(provider=provider, model=model, api_base=api_base, config_path=config_path)
            owned.append(judge)
        cache_path = None if cache is True or cache is False else Path(cache)
        shared: Judge | None = judge
        if cache is not False and judge is not None:
            shared = CachedJudge(judge, cache_path)
            owned.append(shared)
        built = build_agents(agents, shared, threshold=threshold, rag=rag, repeats=repeats)
        if cache is not False:
            built = [(name, _with_cache(agent, cache_path, owned)) for name, agent in built]
        spec: RaySpec | None = None
        if ray_plan is not None:
            check_ray_run(agents, judge, rag)
            assert judge is not None  # check_ray_run refuses a run without one
            import_ray()  # the missing extra named before the results file is touched
            spec = (ray_plan, ActorPlan(judge=judge, agent_names=tuple(name for name, _ in built),
                                        cache_path=str(shared.path) if isinstance(shared, CachedJudge) else None,
                                        threshold=threshold, repeats=repeats))
        return await _run(path, built, shared, out_path, started, rows_total=rows_total,
                          concurrency=concurrency, resume=resume, limit=limit, field_map=field_map,
                          on_progress=on_progress, spec=spec, inputs=inputs, settings={
                              "concurrency": concurrency, "limit": limit, "field_map": field_map,
                              "resume": resume,
                              "cache": str(shared.path) if isinstance(shared, CachedJudge) else bool(cache),
                              "provider": provider, "model": model, "api_base": api_base, "threshold": threshold,
                              "repeats": repeats, "ray": ray_plan.describe() if ray_plan is not None else None,
                              "inputs": inputs,
                              **dict(settings or {})})
    finally:
        for item in reversed(owned):
            if isinstance(item, CachedJudge):
                item.close()  # the sqlite file only: the inner judge may be the caller's
            else:
                await aclose_quietly(item)


@traced_run  # the run's span, parent of its case spans (infra/tracing.py)
async def _run(path: str | Path, built: list[tuple[str, Agent]], shared: Judge | None,
               out_path: Path, started: float, *, rows_total: int, concurrency: int, resume: bool,
               limit: int | None, field_map: dict[str, str], on_progress: Callable[[RunProgress], object] | None,
               settings: Mapping[str, Any], spec: RaySpec | None = None, inputs: bool = True) -> RunSummary:
    tallies = {name: AgentSummary(name) for name, _ in built}
    summary = RunSummary(agents=tallies, out=out_path)
    prior: dict[tuple[str, str], tuple[str, float | None]] = {}
    previous_header: dict[str, Any] | None = None
    if resume and out_path.exists():
        previous_header = load_prior(out_path, tallies, prior, summary.notes)
    done_keys = {key for key, (status, _) in prior.items() if status in ("PASS", "FAIL")}
    agent_names = [name for name, _ in built]
    total = max(0, rows_total * len(built) - sum(1 for key in done_keys if key[0] in agent_names))

    header_judge = _describe(shared) if shared is not None else {
        name: _describe(agent.judge) for name, agent in built}
    header_settings = redact(settings)
    if previous_header is not None and previous_header.get("judge") != header_judge:
        summary.notes.append("resumed with a different judge than the earlier part of this file: "
                             "the results mix judges (see the two headers)")
    writer = ResultsWriter(out_path, append=resume,  # the judges' keys: a reply echoing one is not written
                           secrets=known_secrets([shared, *(agent for _, agent in built)]))
    writer.header(
        dataset={"path": str(Path(path).expanduser().resolve()), "rows": rows_total},
        agents=[{"name": name, "class": type(agent).__name__, "threshold": getattr(agent, "threshold", None)}
                for name, agent in built],
        judge=header_judge,
        prompt_hashes=await untraced(probe_prompt_hashes(built)),  # its unscored probe evaluations are no trace
        settings=header_settings,
        resumed=previous_header is not None,
    )

    queue: asyncio.Queue[tuple[CaseRow, str, Any] | None] = asyncio.Queue(maxsize=concurrency)
    seen_hashes: dict[str, dict[str, set[str]]] = {name: {} for name, _ in built}
    counter = {"done": 0, "labelled": 0}
    first_errors: list[tuple[str, str]] = []

    def progress(record: Mapping[str, Any] | None = None, stopping: bool = False) -> RunProgress:
        return RunProgress(
            done=counter["done"], total=total, passed=sum(t.passed for t in tallies.values()),
            failed=sum(t.failed for t in tallies.values()), unscored=sum(t.unscored for t in tallies.values()),
            errors=sum(t.errors for t in tallies.values()), usage=summary.usage,
            elapsed_s=time.perf_counter() - started, record=record or {}, stopping=stopping)

    def record_finished(record: dict[str, Any]) -> None:
        if not inputs:
            record.pop("inputs", None)  # a Ray actor records them always: dropped before writing
        writer.write(record)
        _watch_for_systematic_failure(record, first_errors, counter["done"])
        key = (record["agent"], record["id"])
        tally = tallies[record["agent"]]
        if key in prior:
            old_status, old_score = prior.pop(key)
            tally.add(old_status, old_score, Usage(), 0.0, sign=-1)
        usage = usage_from_dict(record.get("usage"))
        tally.add(record["status"], record.get("score"), usage, record.get("duration_s") or 0.0)
        for check in record.get("checks") or ():
            if check.get("prompt_hash"):
                seen_hashes[record["agent"]].setdefault(check["name"], set()).add(check["prompt_hash"])
        counter["done"] += 1
        counter["labelled"] += "label" in (record.get("meta") or {})
        summary.evaluated += 1
        if on_progress is not None:
            _notify(on_progress, progress(record=record))

    def units() -> Iterator[tuple[CaseRow, str, Agent]]:
        """(row, agent name, agent) for every unit still to do, read lazily from the file."""
        for row in iter_cases(path, field_map, limit):
            summary.rows += 1
            for name, agent in built:
                if (name, row.id) in done_keys:
                    summary.skipped += 1
                    continue
                yield row, name, agent

    async def produce() -> None:
        for unit in units():
            await queue.put(unit)
        for _ in range(concurrency):
            await queue.put(None)

    async def work() -> None:
        while True:
            unit = await queue.get()
            if unit is None:
                return
            record_finished(await evaluate_unit(*unit, inputs=inputs))

    if on_progress is not None:  # the total, before the first case (litellm's import can take seconds)
        _notify(on_progress, RunProgress(done=0, total=total, passed=0, failed=0, unscored=0, errors=0,
                                         usage=Usage(), elapsed_s=time.perf_counter() - started))
    if spec is None:
        tasks = [asyncio.create_task(produce())] + [asyncio.create_task(work()) for _ in range(concurrency)]
    else:
        from .ray_executor import run_on_ray

        def on_ready(seconds: float) -> None:
            summary.actors_ready_s = seconds

        tasks = [asyncio.create_task(run_on_ray(*spec, concurrency, ((row, name) for row, name, _ in units()),
                                                record_finished, on_ready))]

    def announce_stop() -> None:
        if on_progress is not None:  # at once: the judge's calls in flight may take a while to end
            _notify(on_progress, progress(stopping=True))

    try:
        await gather_or_cancel(tasks, on_cancel=announce_stop)
    except BaseException:
        summary.interrupted = True
        raise
    finally:
        summary.wall_s = time.perf_counter() - started
        try:
            writer.footer(interrupted=summary.interrupted,
                          prompt_hashes_seen={a: {c: sorted(h) for c, h in checks.items()}
                                              for a, checks in seen_hashes.items()},
                          summary=summary.to_dict())
        finally:
            writer.close()
    if summary.rows == 0:
        summary.notes.append(f"{path} has no cases")
    if counter["labelled"] or (resume and summary.skipped):
        from .labels import groups_from_results

        summary.label_groups = groups_from_results(out_path)
    return summary


def _watch_for_systematic_failure(record: dict[str, Any], first: list[tuple[str, str]], done: int) -> None:
    """Stop when the first units all fail with one unexpected error: 10 000 identical ERROR lines help no one."""
    if done >= ABORT_AFTER_SAME_ERROR or len(first) < done:
        return  # past the window, or something already succeeded
    error = record.get("error")
    if not error or error.get("type") == "InputError":
        return
    first.append((error["type"], error["message"]))
    if len(first) == ABORT_AFTER_SAME_ERROR and len(set(first)) == 1:
        kind, message = first[0]
        raise RunAbortedError(f"stopped: the first {ABORT_AFTER_SAME_ERROR} cases all failed with {kind}: {message}. "
                              f"This is not about one case; fix it, then continue with --resume")


def _with_cache(agent: Agent, cache_path: Path | None, owned: list[Judge]) -> Agent:
    """An Agent instance given by the user gets a copy whose judge is cached (the user's object is untouched)."""
    judge = getattr(agent, "judge", None)
    if judge is None or isinstance(judge, CachedJudge):
        return agent
    for existing in owned:
        if isinstance(existing, CachedJudge) and existing.inner is judge:
            cached = existing
            break
    else:
        cached = CachedJudge(judge, cache_path)
        owned.append(cached)
    twin = copy.copy(agent)
    twin.judge = cached
    for attr, value in vars(agent).items():  # sub-agents (AccuracyAgent's RelevancyAgent) share the judge
        if getattr(value, "judge", None) is judge:
            sub = copy.copy(value)
            sub.judge = cached
            setattr(twin, attr, sub)
    return twin


def _describe(judge: Any) -> dict[str, Any]:
    try:
        return redact(judge.describe())
    except Exception as exc:  # noqa: BLE001
        return {"judge": type(judge).__name__, "describe_error": str(exc)}


def _notify(callback: Callable[[RunProgress], object], event: RunProgress) -> None:
    try:
        callback(event)
    except Exception as exc:  # noqa: BLE001 - a progress callback never stops the run
        import logging

        logging.getLogger("llm_validation_framework").warning("on_progress raised %s: %s (ignored)",
                                                              type(exc).__name__, exc)


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name} must be a positive integer, got {value!r}")
    return value

