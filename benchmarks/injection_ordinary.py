"""Ordinary texts the injection defence touches: flagged as attempts, or changed by the normalisation.

    python benchmarks/injection_ordinary.py                  # judge-dev, the bench data if built, written rows
    python benchmarks/injection_ordinary.py --show 20        # and the first 20 flagged texts of each file

Every distinct ordinary text (``training/fit_injection_detector.py``'s ``natural_texts``: judge-dev and the
bench-data files' questions, answers, references, claims and passages; the learned detector's written ordinary
rows in 35 languages, citation footers and scoring rubrics; the 80 English answers with sentences in other
scripts of ``mixed_script_ordinary.jsonl``) is read by ``injection_kinds``, as a case's input is. Reported per
source: texts flagged, by kind, texts read twice for a suspect sentence (``screening.suspects``: a second
reading without it, the lower score kept), and texts the normalisation changes (those prompts are no longer
byte-identical to the ones the verdict heads were fitted on). The learned detector is the shipped one, fitted
on the written rows and on judge-dev's sources, so its hits there are in sample; the patterns, rules and
normalisation were fitted on none of these texts. Bar for the defence: no more than 4 flagged of the 8 562
ordinary texts (judge-dev and bench data). To measure another copy of the package, put it first on the path
(``PYTHONPATH=/tmp/old``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "training"))

from build_data import default_judge_dev, default_out  # noqa: E402
from fit_injection_detector import natural_texts  # noqa: E402

from llm_validation_framework.text.injection import injection_kinds, prepare  # noqa: E402
from llm_validation_framework.text.screening import suspects  # noqa: E402

try:  # the normalisation is newer than some copies of the package measured here
    from llm_validation_framework.text.normalize import normalize  # noqa: E402
except ImportError:  # pragma: no cover - an older copy
    def normalize(text: str) -> str:
        return text

TRAIN = HERE.parent / "training" / "data" / "injection_train"


def written_rows() -> dict[str, list[str]]:
    files = {"written ordinary rows": ["negatives.jsonl", "negatives_citations.jsonl", "negatives_rubrics.jsonl"]}
    out = {name: [json.loads(line)["text"] for f in fs for line in (TRAIN / f).read_text().splitlines()]
           for name, fs in files.items()}
    mixed = HERE / "data" / "mixed_script_ordinary.jsonl"
    out["mixed-script answers"] = [json.loads(line)["answer"] for line in mixed.read_text().splitlines()]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=5, help="flagged texts printed per source")
    args = parser.parse_args()
    sources = {f"natural: {k}": v for k, v in natural_texts(default_judge_dev(), default_out()).items()}
    sources.update(written_rows())
    started = time.perf_counter()
    print("| source | texts | flagged | by kind | read twice | changed by normalisation |")
    print("|---|---|---|---|---|---|")
    natural = [0, 0, 0]
    for name, texts in sources.items():
        texts = list(dict.fromkeys(texts))
        kinds = {text: injection_kinds(text) for text in texts}
        flagged = [text for text, k in kinds.items() if k]
        by_kind = Counter(kind for text in flagged for kind in kinds[text])
        changed = sum(normalize(text) != text for text in texts)
        # a suspect sentence, not flagged: the text costs a second reading without it (the lower stands)
        twice = sum(1 for text in texts if not kinds[text] and suspects(prepare(text)))
        if name.startswith("natural"):
            natural[0] += len(flagged)
            natural[1] += len(texts)
            natural[2] += twice
        print(f"| {name} | {len(texts)} | {len(flagged)} | {dict(by_kind) or ''} | {twice} | {changed} |", flush=True)
        for text in flagged[:args.show]:
            print(f"    {kinds[text]}: {text[:140]!r}", file=sys.stderr)
    print(f"\nordinary texts of judge-dev and the bench data flagged: {natural[0]} of {natural[1]} (bar: 4 of 8 562); "
          f"read twice for a suspect sentence: {natural[2]}; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
