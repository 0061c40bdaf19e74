"""Import time of the public API, in fresh processes, and which heavy modules it loads.

    python benchmarks/import_time.py [--runs 5] [--budget 0.5]

Target: ``from llm_validation_framework import AccuracyAgent, RAGProvider`` in under
0.5 s (median of 5 fresh processes) with none of litellm, chromadb, langchain loaded. Exits
non-zero when either fails.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("litellm", "chromadb", "langchain", "langchain_core", "xllamacpp", "onnxruntime", "numpy", "tokenizers")
FORBIDDEN = ("litellm", "chromadb", "langchain", "langchain_core")

PROBE = """
import sys, time, json
started = time.perf_counter()
from llm_validation_framework import AccuracyAgent, RAGProvider
elapsed = time.perf_counter() - started
heavy = sorted({name.split(".")[0] for name in sys.modules} & set(json.loads(sys.argv[1])))
print(json.dumps({"elapsed": elapsed, "heavy": heavy}))
"""


def measure(runs: int) -> tuple[list[float], list[float], set[str]]:
    """Per run: wall time of the whole process and of the import statement alone; heavy modules seen."""
    import time

    env = {k: v for k, v in os.environ.items() if not k.startswith("LVF_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    wall, inner, heavy = [], [], set()
    for _ in range(runs):
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(HEAVY)], capture_output=True, text=True,
                             cwd=ROOT, env=env, check=True)
        wall.append(time.perf_counter() - started)
        data = json.loads(out.stdout.strip().splitlines()[-1])
        inner.append(data["elapsed"])
        heavy.update(data["heavy"])
    return wall, inner, heavy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=float, default=0.5, help="seconds for the import statement (median)")
    args = parser.parse_args()

    subprocess.run([sys.executable, "-c", "import llm_validation_framework"], cwd=ROOT, check=True)  # warm .pyc
    wall, inner, heavy = measure(args.runs)
    baseline = _baseline(args.runs)
    median_inner = statistics.median(inner)
    print(f"python {sys.version.split()[0]}, {args.runs} fresh processes")
    print(f"  import statement   median {median_inner:.3f} s   (runs: {', '.join(f'{t:.3f}' for t in inner)})")
    print(f"  whole process      median {statistics.median(wall):.3f} s   "
          f"(bare interpreter: {statistics.median(baseline):.3f} s)")
    print(f"  heavy modules loaded: {', '.join(sorted(heavy)) or 'none'}")
    loaded = sorted(set(FORBIDDEN) & heavy)
    ok = median_inner < args.budget and not loaded
    if loaded:
        print(f"FAIL: {', '.join(loaded)} imported by the public API import")
    print(("PASS" if ok else "FAIL") + f": median import {median_inner:.3f} s vs budget {args.budget:.3f} s")
    return 0 if ok else 1


def _baseline(runs: int) -> list[float]:
    """Wall time of a bare interpreter start, for comparison."""
    import time

    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - started)
    return times


if __name__ == "__main__":
    sys.exit(main())
