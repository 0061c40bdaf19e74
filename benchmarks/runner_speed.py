"""Runner speed, memory and cache, against a local OpenAI-compatible stub answering after a fixed delay.

    python benchmarks/runner_speed.py [--cases 500] [--concurrency 32] [--delay 0.2] [--agent accuracy]
                                      [--memory-cases 10000] [--memory-judge scripted|stub]
                                      [--ray [ADDRESS] [--ray-actors N] [--ray-cpus C]]

0. **Runner overhead**: the same run with an in-process judge answering after exactly ``--delay``
   (no HTTP, no litellm): what the runner itself adds. Target ≤ 1.2× ideal.
1. **Speed**: ``run_dataset`` over ``--cases`` distinct cases, LiteLLMJudge → litellm's real HTTP
   path → tests/support/stub_server.py (each reply after ``--delay`` s), a fresh judge cache. An
   AccuracyAgent case asks its two checks at once, so a case takes one delay and the ideal is
   ``ceil(cases / concurrency) × delay`` (3.2 s for 500 at 32). Target ≤ 1.2× ideal. The first
   evaluation (litellm import ~5 s, client set-up) is a warm-up, not timed. The stub runs in its
   own process. litellm spends ~3.5 ms of CPU per call here (3.7–3.9 ms with the runner), so
   1 000 calls need ≥ 3.7 s of one core: the script prints that CPU floor beside the ideal.
2. **Cache**: the same file again with the same cache: judge calls must be 0 (the stub's request
   count is checked too) and the run under 2 s.
3. **Memory**: RSS sampled while the runner goes through ``--memory-cases`` cases (default 10 000);
   flat means the RSS at the end is within a few MB of the RSS after the first 10 %. With
   ``--memory-judge scripted`` (default) the judge is an in-process ScriptedJudge, so the
   number is the runner's own; ``stub`` goes through litellm too (slower: ~20 000 HTTP calls).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * resource.getpagesize() / 1e6


def write_cases(path: Path, n: int) -> Path:
    with open(path, "w") as handle:
        for i in range(n):
            handle.write(json.dumps({"id": f"case-{i}", "question": f"Where is landmark number {i}?",
                                     "answer": f"Landmark {i} stands in the old town square of city {i % 97}.",
                                     "source": "benchmark"}) + "\n")
    return path


SERVER = """
import sys
sys.path.insert(0, sys.argv[1])
from tests.support.stub_server import StubServer, best_verdict_reply
delay = float(sys.argv[2])
server = StubServer().start()
server.default = best_verdict_reply(delay=delay)
print(server.base_url, flush=True)
for line in sys.stdin:  # "count" -> chat requests so far and the peak in flight; EOF -> stop
    requests = server.chat_requests
    events = sorted([(r.received_at, 1) for r in requests] + [(r.received_at + delay, -1) for r in requests])
    now = peak = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    print(len(requests), peak, flush=True)
server.stop()
"""


class StubProcess:
    """tests/support/stub_server.py in its own process, so its CPU does not compete with the runner's GIL."""

    def __init__(self, delay: float) -> None:
        import subprocess

        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, str(ROOT), str(delay)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.base_url = self.proc.stdout.readline().strip()

    def requests(self) -> int:
        return self.stats()[0]

    def stats(self) -> tuple[int, int]:
        """(chat requests so far, peak requests in flight)."""
        self.proc.stdin.write("count\n")
        self.proc.stdin.flush()
        count, peak = self.proc.stdout.readline().split()
        return int(count), int(peak)

    def stop(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def connect_ray(address: str) -> float:
    """Connect (or start a local instance: 2 CPUs' worth of this machine, no dashboard, no usage
    statistics) before the timed run; the seconds it took."""
    import os

    import ray

    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    started = time.perf_counter()
    if address == "local":
        ray.init(include_dashboard=False, logging_level="WARNING")
    else:
        ray.init(address=address, logging_level="WARNING")
    return time.perf_counter() - started


def speed_and_cache(args, work: Path) -> bool:
    from llm_validation_framework.judges.litellm.judge import LiteLLMJudge
    from llm_validation_framework.runner import run_dataset

    data = write_cases(work / "cases.jsonl", args.cases)
    cache = work / "cache.sqlite"
    server = StubProcess(args.delay)
    try:
        judge = LiteLLMJudge("openai/stub", api_key="sk-stub-not-a-secret", api_base=server.base_url)
        warm = write_cases(work / "warm.jsonl", 1)
        run_dataset(warm, [args.agent], judge=judge, out=work / "warm.results.jsonl", cache=False, overwrite=True)
        base = server.requests()

        ray, connect_s = None, 0.0
        if args.ray:
            from llm_validation_framework.runner import RayOptions

            connect_s = connect_ray(args.ray)
            ray = RayOptions(address=args.ray, actors=args.ray_actors, cpus_per_actor=args.ray_cpus)
        started, cpu = time.perf_counter(), time.process_time()
        first = run_dataset(data, [args.agent], judge=judge, out=work / "run1.jsonl", cache=cache,
                            concurrency=args.concurrency, overwrite=True, ray=ray)
        first_s, first_cpu = time.perf_counter() - started, time.process_time() - cpu
        # on Ray, the timed part starts once every actor has its judge ready (units are sent only
        # then); their start-up (a Ray worker importing litellm) is the counterpart of the single
        # process's warm-up above, and is printed beside it, as is connecting to Ray
        startup = first.actors_ready_s or 0.0
        end_to_end = first_s
        first_s -= startup
        first_requests, peak = server.stats()
        first_requests -= base

        started = time.perf_counter()
        second = run_dataset(data, [args.agent], judge=judge, out=work / "run2.jsonl", cache=cache,
                             concurrency=args.concurrency, overwrite=True)  # cache hits need no actors
        second_s = time.perf_counter() - started
        second_requests = server.requests() - base - first_requests
    finally:
        server.stop()

    rounds = math.ceil(args.cases / args.concurrency)
    calls_per_case = first.usage.calls / max(1, args.cases)
    ideal = rounds * args.delay  # the checks of one case run at once: one delay per case
    serial_ideal = args.cases * calls_per_case * args.delay / args.concurrency
    ratio = first_s / ideal
    cpu_floor = first_cpu  # litellm's per-call CPU cannot overlap itself: one process, one GIL
    a = first[args.agent]
    print(f"speed: {args.cases} cases x {args.agent} ({calls_per_case:.1f} judge calls each, asked at once), "
          + (f"Ray ({args.ray}), " if args.ray else "") +
          f"concurrency {args.concurrency}, stub delay {args.delay * 1000:.0f} ms")
    print(f"  run 1 (cold cache): {first_s:.2f} s; stub requests {first_requests}; judge calls {first.usage.calls}; "
          f"pass {a.passed} fail {a.failed} unscored {a.unscored} errors {a.errors}; peak requests in flight at "
          f"the stub {peak}")
    if args.ray:
        print(f"  Ray: connected in {connect_s:.2f} s; actors ready after {startup:.2f} s (a Ray worker + litellm "
              f"import), then {first_s:.2f} s for the cases; end to end {end_to_end:.2f} s -> ratio "
              f"{end_to_end / (rounds * args.delay):.3f}")
        print(f"  driver CPU {first_cpu:.2f} s (reading, writing, counting; the judge calls run in the actors)")
    else:
        print(f"  runner process CPU {first_cpu:.2f} s = {first_cpu / max(1, first.usage.calls) * 1000:.1f} ms per "
              f"judge call (litellm's request/response path dominates; see docs/cli.md)")
    print(f"  ideal ceil(cases/concurrency) x delay = {ideal:.2f} s -> ratio {ratio:.3f} (target <= {args.target})")
    print(f"  (ideal if a case's calls were serial: {serial_ideal:.2f} s -> ratio {first_s / serial_ideal:.3f}; "
          f"CPU floor max(ideal, process CPU) = {max(ideal, cpu_floor):.2f} s -> ratio "
          f"{first_s / max(ideal, cpu_floor):.3f})")
    print(f"cache: run 2 (same file, same cache): {second_s:.2f} s; stub requests {second_requests}; "
          f"judge calls {second.usage.calls}; cached calls {second.usage.cached_calls} (target: 0 calls, < 2 s)")
    ok_speed = ratio <= args.target and a.errors == 0 and a.unscored == 0 and first_requests == first.usage.calls
    ok_cache = second_requests == 0 and second.usage.calls == 0 and second_s < 2.0
    print(f"  speed {'PASS' if ok_speed else 'FAIL'}; cache {'PASS' if ok_cache else 'FAIL'}")
    return ok_speed and ok_cache


def runner_overhead(args, work: Path) -> bool:
    """The runner alone: an in-process judge that answers after exactly ``delay`` (no HTTP, no litellm)."""
    from llm_validation_framework.judges.scripted import ScriptedJudge
    from llm_validation_framework.runner import run_dataset

    data = write_cases(work / "overhead.jsonl", args.cases)
    judge = ScriptedJudge(lambda r: {"verdict": max(r.options, key=r.options.get), "reason": "ok"}, delay=args.delay)
    started, cpu = time.perf_counter(), time.process_time()
    summary = run_dataset(data, [args.agent], judge=judge, out=work / "overhead.results.jsonl",
                          cache=work / "overhead-cache.sqlite", concurrency=args.concurrency, overwrite=True)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    ideal = math.ceil(args.cases / args.concurrency) * args.delay
    ratio = elapsed / ideal
    ok = ratio <= args.target and summary[args.agent].passed == args.cases
    print(f"runner: {args.cases} cases x {args.agent}, in-process judge answering after {args.delay * 1000:.0f} ms, "
          f"concurrency {args.concurrency}, cache on: {elapsed:.2f} s, CPU {cpu:.2f} s; ideal {ideal:.2f} s -> "
          f"ratio {ratio:.3f} (target <= {args.target}) {'PASS' if ok else 'FAIL'}")
    return ok


def memory(args, work: Path) -> bool:
    from llm_validation_framework.judges.scripted import ScriptedJudge
    from llm_validation_framework.runner import run_dataset

    n = args.memory_cases
    data = write_cases(work / "memory.jsonl", n)
    samples: list[tuple[int, float]] = []
    step = max(1, n // 20)

    def on_progress(event):
        if event.done % step == 0 or event.done == event.total:
            samples.append((event.done, rss_mb()))

    def best(request):
        return {"verdict": max(request.options, key=request.options.get), "reason": "ok"}

    server = None
    if args.memory_judge == "stub":
        from llm_validation_framework.judges.litellm.judge import LiteLLMJudge

        server = StubProcess(0.0)  # its own process: the requests it records are not in our RSS
        judge = LiteLLMJudge("openai/stub", api_key="sk-stub-not-a-secret", api_base=server.base_url)
    else:
        judge = ScriptedJudge(best)
        judge.requests = _Discard()  # the scripted judge records requests; a benchmark must not
    before = rss_mb()
    started = time.perf_counter()
    try:
        summary = run_dataset(data, [args.agent], judge=judge, out=work / "memory.results.jsonl",
                              cache=work / "memory-cache.sqlite", concurrency=args.concurrency, overwrite=True,
                              on_progress=on_progress)
    finally:
        if server is not None:
            server.stop()
    elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    early = samples[1][1] if len(samples) > 1 else samples[0][1]
    end = samples[-1][1]
    print(f"memory: {n} cases x {args.agent} with the {args.memory_judge} judge, concurrency {args.concurrency}, "
          f"cache on: {elapsed:.1f} s ({n / elapsed:.0f} cases/s), {summary[args.agent].cases} results")
    print(f"  RSS before {before:.1f} MB; at 10 % {early:.1f} MB; at 100 % {end:.1f} MB "
          f"(growth {end - early:+.1f} MB over {n - samples[1][0] if len(samples) > 1 else n} cases); "
          f"peak {peak:.1f} MB")
    print("  samples (cases done: RSS MB): " + ", ".join(f"{d}: {m:.1f}" for d, m in samples))
    flat = end - early <= args.memory_slack_mb
    print(f"  memory {'PASS' if flat else 'FAIL'} (allowed growth {args.memory_slack_mb} MB)")
    return flat


class _Discard(list):
    def append(self, item):  # noqa: D401 - keep nothing
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--agent", default="accuracy")
    parser.add_argument("--target", type=float, default=1.2)
    parser.add_argument("--memory-cases", type=int, default=10_000)
    parser.add_argument("--memory-judge", choices=("scripted", "stub"), default="scripted")
    parser.add_argument("--memory-slack-mb", type=float, default=8.0)
    parser.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                        help="run the speed test's units on Ray actors: alone a local instance, or an address "
                             "(run inside `unshare -n`, see docs/distributed.md)")
    parser.add_argument("--ray-actors", type=int, default=None)
    parser.add_argument("--ray-cpus", type=float, default=1.0)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory(prefix="lvf-runner-bench-") as tmp:
        work = Path(tmp)
        if not args.skip_speed:
            ok &= runner_overhead(args, work)
            ok &= speed_and_cache(args, work)
        if not args.skip_memory:
            ok &= memory(args, work)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
