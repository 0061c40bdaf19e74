"""The contradiction constraint every fitting in benchmarks/ respects.

A weight, threshold or calibration map may raise balanced accuracy only while contradicted
answers keep failing: the share of "copy with one fact changed" answers that pass under a
candidate must stay at or below ``MAX_CONTRADICTED_PASS``, or the script rejects the candidate
whatever its accuracy. The rows are the verdicts ``measure.py collect`` recorded; where a person
read a changed answer (``benchmarks/data/one_fact_changed_read.jsonl``), only those read as wrong
count: an edit that left the answer true is no contradicted answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

MAX_CONTRADICTED_PASS = 0.05


READINGS = Path(__file__).resolve().parents[1] / "data" / "one_fact_changed_read.jsonl"
#: what a reader's verdict must be for a changed claim (support) or answer (reference) to be wrong:
#: a support check must fail a claim its evidence does not speak to as well as a contradicted one
WRONG = {"support": ("contradicted", "unverifiable"), "answer_accuracy": ("contradicted",)}


def readings(path: Path = READINGS) -> dict[str, bool]:
    """Pair id -> whether the reader found its changed member wrong ({} without the file)."""
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    return {row["pair"]: row["verdict"] in WRONG[row["set"]] for row in rows}


def read_as_wrong(rows: Iterable[dict], read: dict[str, bool]) -> list[dict]:
    """The changed rows a reader found wrong; a row nobody read counts as wrong (as built)."""
    return [r for r in rows if read.get(r["pair"], True)]


def changed_rows(path: Path, stage: str) -> list[dict]:
    """The collected rows of ``stage`` for the changed member of each pair a reader found wrong."""
    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    return read_as_wrong([r for r in rows if r.get("stage") == stage and r.get("member") == "changed"], readings())


def pass_rate(rows: Iterable[dict], passes: Callable[[dict], bool]) -> tuple[int, int]:
    rows = list(rows)
    return sum(1 for r in rows if passes(r)), len(rows)


def enforce(name: str, passed: int, total: int, limit: float = MAX_CONTRADICTED_PASS) -> bool:
    """Print the candidate's contradicted pass rate; False (rejected) when it is over ``limit``."""
    if not total:
        print(f"{name}: no contradiction rows to check the candidate against")
        return True
    ok = passed / total <= limit
    print(f"{name}: contradicted answers passing {passed}/{total} ({passed / total:.1%}), limit {limit:.0%}: "
          + ("accepted" if ok else "REJECTED"))
    return ok
