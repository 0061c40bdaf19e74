"""The benchmarks' own tests: the arithmetic the measurements rest on, and each measuring script
run small with a scripted judge. They import the scripts by name, as the scripts import each other,
so the benchmarks folder and the project root go on the path here, and only here."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(BENCHMARKS), str(BENCHMARKS / "integrity"), str(BENCHMARKS.parent)]
