"""What the normalisation (``text/normalize.py``) costs per case. Goal: <= 1 ms a case.

    python benchmarks/normalization_cost.py

Each row of judge-dev (``$LVF_JUDGE_DEV`` or ``../shared/data/judge-dev``) is a case: its question,
answer, reference, claim and passages are normalised as screening does, and the time per case is
reported (mean, median, 99th percentile, largest), once warm (the tables loaded) and, separately, the
one-time cost of loading them. The same for the injection suite's injected cases with every attempt
obfuscated (``tests/support/obfuscation.py``), the texts that take the slow paths.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "training"))
sys.path.append(str(HERE.parent))  # tests.support

from build_data import default_judge_dev  # noqa: E402

from llm_validation_framework.text import normalize as module  # noqa: E402
from tests.support.obfuscation import TRANSFORMS, obfuscate_row  # noqa: E402


def case_texts(row: dict) -> list[str]:
    texts = [row.get(k) for k in ("question", "answer", "reference", "claim", "query", "passage")]
    texts += row.get("premise_passages") or row.get("contexts") or []
    texts += [p.get("text") for p in row.get("passages") or [] if isinstance(p, dict)]
    return [t for t in texts if isinstance(t, str) and t]


def timed(cases: list[list[str]]) -> list[float]:
    out = []
    for texts in cases:
        started = time.perf_counter()
        for text in texts:
            module.normalize(text)
        out.append((time.perf_counter() - started) * 1000)
    return out


def report(name: str, ms: list[float]) -> None:
    ms = sorted(ms)
    print(f"| {name} | {len(ms)} | {statistics.fmean(ms):.3f} | {ms[len(ms) // 2]:.3f} | "
          f"{ms[int(len(ms) * 0.99)]:.3f} | {ms[-1]:.3f} |")


def main() -> None:
    judge_dev = default_judge_dev()
    cases = [case_texts(json.loads(line)) for f in sorted(judge_dev.glob("*.jsonl"))
             for line in f.read_text(encoding="utf-8").splitlines()]
    rows = [json.loads(line) for line in (HERE / "data" / "injection.jsonl").read_text().splitlines()]
    attacks = [case_texts(obfuscate_row(row, t)) for row in rows for t in TRANSFORMS]
    started = time.perf_counter()
    module._format_chars()
    module._lookalikes()
    module._vocabulary()
    print(f"one-time table loads (format characters, confusables, vocabulary): "
          f"{(time.perf_counter() - started) * 1000:.0f} ms\n")
    print("| cases | n | mean ms | median ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|")
    report("judge-dev, as written", timed(cases))
    report("injection suite, obfuscated attempts", timed(attacks))
    chars = sum(len(t) for texts in cases for t in texts) / len(cases)
    print(f"\njudge-dev: {chars:.0f} characters a case on average")


if __name__ == "__main__":
    main()
