"""Concurrency against a stub OpenAI-compatible server that answers after a fixed delay.

    python benchmarks/concurrency.py [--evaluations 64] [--concurrency 16] [--delay 0.2]

64 AccuracyAgent evaluations (2 judge calls each: relevancy and factual), at most 16 in flight
(an ``asyncio.Semaphore`` over ``agent.aevaluate``), through litellm's real HTTP path to
tests/support/stub_server.py. The ideal is ``evaluations × calls × delay / concurrency``
(= 1.6 s), target ≤ 1.3× of it. An evaluation runs its two checks at once, so 16 evaluations
keep 32 calls in flight and the floor is ``evaluations × delay / concurrency`` (0.8 s); both
ratios are printed. The first evaluation (litellm import, client set-up) is not timed.

The stub runs in its own process by default (``--in-process`` shares this one's GIL and so
also measures the stub's own Python overhead).
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the package and tests.support (the stub server)

from tests.support.stub_server import StubServer, first_label_reply  # noqa: E402

CASE = {"question": "Where is the Eiffel Tower?", "answer": "The Eiffel Tower is located in Paris, France."}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluations", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.2, help="stub reply delay (seconds)")
    parser.add_argument("--target", type=float, default=1.3, help="allowed ratio to the ideal")
    parser.add_argument("--in-process", action="store_true", help="run the stub in this process (shares the GIL)")
    args = parser.parse_args()

    if args.in_process:
        server = StubServer().start()
        server.default = lambda body: first_label_reply(body, delay=args.delay)
        base_url, process = server.base_url, None
    else:
        server = None
        process = subprocess.Popen([sys.executable, "-m", "tests.support.stub_server", str(args.delay)],
                                   cwd=ROOT, stdout=subprocess.PIPE, text=True)
        base_url = process.stdout.readline().strip()
    try:
        elapsed, results, calls_per_evaluation, requests = measure(args, base_url, server)
    finally:
        if server is not None:
            server.stop()
        if process is not None:
            process.terminate()
            process.wait(timeout=10)

    statuses = {r["status"] for r in results}
    ideal = args.evaluations * calls_per_evaluation * args.delay / args.concurrency
    floor = args.evaluations * args.delay / args.concurrency
    ratio = elapsed / ideal
    print(f"{args.evaluations} evaluations x {calls_per_evaluation} calls, concurrency {args.concurrency}, "
          f"stub delay {args.delay * 1000:.0f} ms ({'in-process' if args.in_process else 'separate'} stub)")
    print(f"  elapsed {elapsed:.3f} s; statuses {sorted(statuses)}"
          + (f"; requests {len(requests)}; peak calls in flight {peak(requests, args.delay)}" if requests else ""))
    print(f"  ideal (calls serialised per evaluation) {ideal:.3f} s -> ratio {ratio:.2f} (target <= "
          f"{args.target})")
    print(f"  floor with the two checks in parallel        {floor:.3f} s -> ratio {elapsed / floor:.2f}")
    ok = ratio <= args.target and statuses == {"PASS"}
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def measure(args: argparse.Namespace, base_url: str, server: StubServer | None):
    from llm_validation_framework import AccuracyAgent

    agent = AccuracyAgent(provider="openai", model="stub", api_base=base_url)
    warm = agent.evaluate(CASE)  # import litellm, build clients: not timed
    if warm["status"] != "PASS":
        raise SystemExit(f"warm-up evaluation failed: {warm.reason}")
    if server is not None:
        server.requests.clear()

    async def run_all() -> tuple[float, list]:
        semaphore = asyncio.Semaphore(args.concurrency)

        async def one():
            async with semaphore:
                return await agent.aevaluate(CASE)

        started = time.perf_counter()
        results = await asyncio.gather(*(one() for _ in range(args.evaluations)))
        return time.perf_counter() - started, results

    elapsed, results = asyncio.run(run_all())
    return elapsed, results, warm.usage.calls, list(server.chat_requests) if server is not None else []


def peak(requests: list, delay: float) -> int:
    """Most requests the server was holding at once (each held ``delay`` seconds)."""
    now = highest = 0
    for _, step in sorted([(r.received_at, 1) for r in requests] + [(r.received_at + delay, -1) for r in requests]):
        now += step
        highest = max(highest, now)
    return highest


if __name__ == "__main__":
    sys.exit(main())
