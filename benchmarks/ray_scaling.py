"""Scaling of the offline judge over Ray actors: judge calls a second with 1 actor, then with N.

    python benchmarks/ray_scaling.py CASES.jsonl --address 127.0.0.1:6379 [--agent accuracy]
                                     [--actors 1,2] [--cpus 1] [--limit 40]

Run it inside a private network namespace (``unshare -n``, loopback up) against a cluster started
there, e.g. two nodes of one CPU each on one machine::

    export RAY_AUTH_MODE=token RAY_AUTH_TOKEN=$(python -c "import secrets; print(secrets.token_hex(16))")
    ray start --head --num-cpus 1 --port 6379 --include-dashboard=false --disable-usage-stats
    ray start --address 127.0.0.1:6379 --num-cpus 1 --disable-usage-stats
    python benchmarks/ray_scaling.py rows.jsonl --address 127.0.0.1:6379 --actors 1,2 --cpus 1

Each run uses the local judge (``provider="local"``; every node assembles the model from the
``[local]`` extra or reads ``LVF_LOCAL_MODEL_PATH``), no cache, one LocalJudge actor of ``--cpus``
CPUs per unit of ``--actors``, and as many units in flight as actors. The time counted starts
once every actor has loaded its model (printed apart). Also prints the in-process rate on this
machine with ``--in-process``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rate(cases: Path, agent: str, limit: int, ray, work: Path) -> tuple[float, float, int]:
    """(judge calls a second after start-up, start-up seconds, calls)."""
    from llm_validation_framework.runner import run_dataset

    started = time.perf_counter()
    concurrency = ray.actors if ray is not None and ray.actors else 1
    summary = run_dataset(cases, agent, provider="local", cache=False, limit=limit, concurrency=concurrency,
                          out=work / "r.jsonl", overwrite=True, ray=ray)
    wall = time.perf_counter() - started
    startup = summary.actors_ready_s or 0.0
    return summary.usage.calls / max(1e-9, wall - startup), startup, summary.usage.calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", type=Path)
    parser.add_argument("--address", required=True, help="the Ray cluster (host:port)")
    parser.add_argument("--agent", default="accuracy")
    parser.add_argument("--actors", default="1,2", help="comma-separated actor counts to compare")
    parser.add_argument("--cpus", type=float, default=1.0, help="CPUs per actor (llama.cpp threads)")
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--in-process", action="store_true", help="also measure one process without Ray")
    args = parser.parse_args()

    from llm_validation_framework.runner import RayOptions

    with tempfile.TemporaryDirectory(prefix="lvf-ray-scaling-") as tmp:
        work = Path(tmp)
        results = {}
        if args.in_process:
            per_s, _, calls = rate(args.cases, args.agent, args.limit, None, work)
            print(f"in-process: {calls} judge calls, {per_s:.3f}/s")
        for count in [int(n) for n in args.actors.split(",")]:
            options = RayOptions(address=args.address, actors=count, cpus_per_actor=args.cpus)
            per_s, startup, calls = rate(args.cases, args.agent, args.limit, options, work)
            results[count] = per_s
            print(f"{count} actor(s) of {args.cpus:g} CPU: start-up {startup:.1f} s, {calls} judge calls, "
                  f"{per_s:.3f}/s")
        first = min(results)
        for count, per_s in sorted(results.items()):
            print(f"  {count} vs {first} actor(s): {per_s / results[first]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
