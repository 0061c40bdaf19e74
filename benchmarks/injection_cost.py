"""What the learned injection detector costs a case: the first reading alone vs with the second.

    python benchmarks/injection_cost.py [--cases 150]

Cases are judge-dev's support and answer-accuracy rows (question, answer, reference, claim,
passages), split into sentences as the detector reads them. Reported: milliseconds a case for each
way, and how many sentences (and cases) reach the floor, i.e. pay for the multilingual model.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "training"))

from build_data import default_judge_dev  # noqa: E402

from llm_validation_framework.text.injection_model import _sigmoid, features, load_detector  # noqa: E402
from llm_validation_framework.text.sentences import split_sentences  # noqa: E402


def case_sentences(judge_dev: Path) -> list[list[str]]:
    cases = []
    for name in ("support.jsonl", "answer_accuracy.jsonl"):
        for row in map(json.loads, (judge_dev / name).read_text(encoding="utf-8").splitlines()):
            texts = [row.get(k) for k in ("question", "answer", "reference", "claim")]
            texts += row.get("premise_passages") or []
            cases.append([s.text for t in texts if isinstance(t, str) for s in split_sentences(t)])
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=150, help="cases drawn (seeded) from judge-dev")
    args = parser.parse_args()
    every = case_sentences(default_judge_dev())
    cases = [every[i] for i in np.random.default_rng(0).permutation(len(every))[:args.cases]]
    detector = load_detector()
    if detector is None or detector.second is None:
        sys.exit("the detector or its second reading is off here (see the log): nothing to compare")
    print(f"{len(cases)} cases, {np.mean([len(c) for c in cases]):.1f} sentences a case")
    for name, way in (("first reading alone", dataclasses.replace(detector, second=None)), ("both readings", detector)):
        started = time.perf_counter()
        for sentences in cases:
            way.probabilities(sentences)
        print(f"  {name}: {1000 * (time.perf_counter() - started) / len(cases):.0f} ms a case")
    screened = [int((_sigmoid(features(c) @ detector.coef + detector.intercept) >= detector.second.floor).sum())
                for c in cases]
    print(f"  read twice: {sum(screened) / sum(map(len, cases)):.1%} of sentences, "
          f"{np.mean([n > 0 for n in screened]):.0%} of cases")


if __name__ == "__main__":
    main()
