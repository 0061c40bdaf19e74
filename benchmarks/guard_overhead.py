"""What a Guard costs beyond its agent, and what spans cost, with ScriptedJudge (no model, no network).

    python benchmarks/guard_overhead.py [--answers 1000] [--json out.json]

One run, one event loop, RelevancyAgent on a ScriptedJudge. Every answer is first evaluated once
untimed (the injection screening and the judge warm up, and every input is read once), then timed:

* guard overhead: for each answer, ``agent.aevaluate(case)`` (bare) and ``guard.avalidate(case)``
  (guarded), in alternating order; and inside each guarded call the agent's own time, so the
  guard's own cost per answer is measured directly (guarded call minus the agent inside it);
* spans: the guarded call with spans recorded (an SDK TracerProvider with an in-memory exporter)
  and off (OpenTelemetry imported, no SDK provider: the path of an application without one),
  alternating per answer.

The goal: <= 2 ms median guard overhead per answer. Prints a table and, with --json, writes the
numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from llm_validation_framework import Guard, RelevancyAgent, ScriptedJudge  # noqa: E402
from llm_validation_framework.infra import tracing  # noqa: E402

GOAL_MS = 2.0


def cases(n: int) -> list[dict]:
    return [{"question": f"Where is landmark number {i}?", "answer": f"Landmark {i} stands in Paris, street {i}."}
            for i in range(n)]


class TimedAgent:
    """Forwards to the agent and keeps how long each of its evaluations took (the agent's own time)."""

    def __init__(self, agent: RelevancyAgent) -> None:
        self.agent = agent
        self.name = agent.name
        self.last_ns = 0

    async def aevaluate(self, case):
        started = time.perf_counter_ns()
        result = await self.agent.aevaluate(case)
        self.last_ns = time.perf_counter_ns() - started
        return result


async def timed(call) -> int:
    started = time.perf_counter_ns()
    await call()
    return time.perf_counter_ns() - started


def ms(values: list[int]) -> float:
    return statistics.median(values) / 1e6


def p95(values: list[int]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))] / 1e6


async def measure_guard(agent: RelevancyAgent, data: list[dict]) -> dict:
    inner = TimedAgent(agent)
    guard = Guard(inner, on_fail="flag")
    bare, guarded, own = [], [], []
    for i, case in enumerate(data):
        if i % 2:
            bare.append(await timed(lambda: agent.aevaluate(case)))  # noqa: B023 - awaited at once
            guarded.append(await timed(lambda: guard.avalidate(case)))  # noqa: B023
        else:
            guarded.append(await timed(lambda: guard.avalidate(case)))  # noqa: B023
            bare.append(await timed(lambda: agent.aevaluate(case)))  # noqa: B023
        own.append(guarded[-1] - inner.last_ns)
    return {"bare_median_ms": ms(bare), "guarded_median_ms": ms(guarded),
            "difference_of_medians_ms": ms(guarded) - ms(bare), "ratio_guarded_to_bare": ms(guarded) / ms(bare),
            "guard_own_median_ms": ms(own), "guard_own_p95_ms": p95(own)}


async def measure_spans(agent: RelevancyAgent, data: list[dict], provider, exporter) -> dict:
    guard = Guard(agent, on_fail="flag")
    on, off = [], []
    for i, case in enumerate(data):
        order = ("off", "on") if i % 2 else ("on", "off")
        for state in order:
            tracing.configure_tracing(tracer_provider=provider if state == "on" else None)
            (on if state == "on" else off).append(await timed(lambda: guard.avalidate(case)))  # noqa: B023
        if i % 100 == 99:
            exporter.clear()
    tracing.configure_tracing()
    return {"spans_off_median_ms": ms(off), "spans_on_median_ms": ms(on),
            "spans_cost_median_ms": ms(on) - ms(off), "ratio_on_to_off": ms(on) / ms(off),
            "spans_on_p95_ms": p95(on), "spans_off_p95_ms": p95(off)}


async def main_async(n: int) -> dict:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    agent = RelevancyAgent(judge=ScriptedJudge(lambda request: {"verdict": "yes", "reason": "on topic"}))
    data = cases(n)
    tracing.configure_tracing()
    for case in data:  # warm-up: every input read once, the screening model loaded
        await agent.aevaluate(case)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    out = {"answers": n, "agent": "RelevancyAgent", "judge": "ScriptedJudge", "goal_ms": GOAL_MS}
    out.update(await measure_guard(agent, data))
    out.update(await measure_spans(agent, data, provider, exporter))
    out["goal_met"] = out["guard_own_median_ms"] <= GOAL_MS and out["difference_of_medians_ms"] <= GOAL_MS
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=1000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    out = asyncio.run(main_async(args.answers))
    rows = [("agent alone (median)", out["bare_median_ms"]), ("guarded (median)", out["guarded_median_ms"]),
            ("difference of medians", out["difference_of_medians_ms"]),
            ("guard's own time per answer (median)", out["guard_own_median_ms"]),
            ("guard's own time per answer (p95)", out["guard_own_p95_ms"]),
            ("guarded, spans off (median)", out["spans_off_median_ms"]),
            ("guarded, spans on (median)", out["spans_on_median_ms"]),
            ("spans cost (difference of medians)", out["spans_cost_median_ms"])]
    print(f"{out['answers']} answers, {out['agent']} on {out['judge']}")
    for label, value in rows:
        print(f"  {label:<40} {value:8.3f} ms")
    print(f"  {'ratio guarded / alone':<40} {out['ratio_guarded_to_bare']:8.3f}")
    print(f"  {'ratio spans on / off':<40} {out['ratio_on_to_off']:8.3f}")
    print(f"  goal (<= {GOAL_MS} ms overhead): {'met' if out['goal_met'] else 'NOT met'}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0 if out["goal_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
