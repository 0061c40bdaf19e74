"""Obfuscated attempts: is each attack of the suite and the held-out sets found as often once obfuscated?

    python benchmarks/injection_obfuscation.py                 # every set, every transform (detector only)
    python benchmarks/injection_obfuscation.py --sets suite,heldout2 --out obfuscation.json

Every injected case of ``benchmarks/data/injection*.jsonl`` is screened (``scan_sample``: the patterns,
the script and language rules and the learned detector, no judge) as written and once per transform of
``tests/support/obfuscation.py`` applied to its attempt (zero-width spaces, soft hyphens, fullwidth forms, letters
spaced apart with two spaces or one between words, invisible tag characters after each letter, the
whole attempt in tag characters, Cyrillic and Greek look-alikes). Reported: the share of cases noted,
per set and transform, and each transform's distance from the plain rate. Goal: within 5 points of
the plain form's rate. No language model runs; the ONNX detector does.

To measure another copy of the package (the code before a change), put it first on the path:
``PYTHONPATH=/tmp/old python benchmarks/injection_obfuscation.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

# appended, not prepended: a PYTHONPATH copy of the package stays the one measured
sys.path.append(str(Path(__file__).resolve().parents[1]))

from llm_validation_framework.text.injection import scan_sample  # noqa: E402
from llm_validation_framework.types.inputs import parse_sample  # noqa: E402
from tests.support.obfuscation import TRANSFORMS, obfuscate_row  # noqa: E402

DATA = Path(__file__).parent / "data"


def set_files() -> dict[str, Path]:
    """Every benchmark set by name: ``suite`` and ``heldout``, ``heldout2`` … in number order."""
    files = {"suite": DATA / "injection.jsonl"}
    for path in sorted(DATA.glob("injection_heldout*.jsonl")):  # two-digit numbers: name order is number order
        number = int(path.stem.removeprefix("injection_heldout"))
        files["heldout" if number == 1 else f"heldout{number}"] = path
    return files


def noted(case: dict) -> bool:
    return bool(scan_sample(parse_sample(case)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=None, help="comma-separated set names (default: all)")
    parser.add_argument("--transforms", default=",".join(TRANSFORMS), help="comma-separated transforms")
    parser.add_argument("--out", type=Path, default=None, help="write the per-set rates as JSON")
    args = parser.parse_args()
    files = set_files()
    names = args.sets.split(",") if args.sets else list(files)
    transforms = args.transforms.split(",")
    started = time.perf_counter()
    rates: dict[str, dict[str, list[int]]] = {}
    for name in names:
        rows = [json.loads(line) for line in files[name].read_text(encoding="utf-8").splitlines()]
        counts = {"plain": [sum(noted(r["injected"]) for r in rows), len(rows)]}
        for transform in transforms:
            counts[transform] = [sum(noted(obfuscate_row(r, transform)) for r in rows), len(rows)]
        rates[name] = counts
        print(f"{name}: " + ", ".join(f"{k} {n}/{total}" for k, (n, total) in counts.items()),
              file=sys.stderr, flush=True)
    total = {k: [sum(rates[s][k][0] for s in rates), sum(rates[s][k][1] for s in rates)]
             for k in ["plain", *transforms]}
    print("\n| set | " + " | ".join(["plain", *transforms]) + " |")
    print("|---" * (len(transforms) + 2) + "|")
    for name, counts in [*rates.items(), ("all", total)]:
        plain = counts["plain"][0] / counts["plain"][1]
        shares = {t: counts[t][0] / counts[t][1] for t in transforms}
        cells = [f"{plain:.1%}"] + [f"{shares[t]:.1%} ({100 * (shares[t] - plain):+.1f})" for t in transforms]
        print(f"| {name} | " + " | ".join(cells) + " |")
    worst = min(transforms, key=lambda t: total[t][0] / total[t][1])
    gap = 100 * (total["plain"][0] / total["plain"][1] - total[worst][0] / total[worst][1])
    print(f"\nlargest gap over all sets: {worst}, {gap:.1f} points below plain (goal: <= 5); "
          f"{time.perf_counter() - started:.0f} s")
    if args.out:
        args.out.write_text(json.dumps(rates, indent=1) + "\n")


if __name__ == "__main__":
    main()
