"""What the second reading costs on ordinary cases: how many are read twice, and whether a verdict moves.

    python benchmarks/second_reading_cost.py                 # how many judge-dev cases are read twice
    python benchmarks/second_reading_cost.py --verdicts      # and the agents' verdicts on those the
                                                             # off-topic rule adds, with it and without

Judge-dev's cases as an application would send them: answer-accuracy rows as a question and answer
(knowledge mode) and with their reference, citation rows with their passages, support rows with the
claim as the answer and its passages. Each is screened as ``Agent.aevaluate`` screens it; a case is
read twice when screening leaves it a second reading (``Screening.withheld``), and the count is given
with and without the off-topic parts of an answer (``text/off_topic.py``). ``--verdicts`` judges the
cases only the off-topic rule reads twice, with the local judge: AnswerAccuracyAgent with the
reference, AccuracyAgent with the support rows' passages, both with the rule and without it, and
prints the verdicts that change against the human labels. The rule can only lower a score; this says
how often it lowers a right one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "training")]

from build_data import default_judge_dev  # noqa: E402

from llm_validation_framework.text import off_topic, screening  # noqa: E402
from llm_validation_framework.text.screening import screen_sample  # noqa: E402
from llm_validation_framework.types.inputs import parse_sample  # noqa: E402


def cases(folder: Path) -> Iterator[tuple[str, dict, int]]:
    for line in open(folder / "answer_accuracy.jsonl", encoding="utf-8"):
        row = json.loads(line)
        yield "answer_knowledge", {"question": row["question"], "answer": row["answer"]}, row["label"]
        yield "answer_reference", {"question": row["question"], "answer": row["answer"],
                                   "reference": row["reference"]}, row["label"]
    for line in open(folder / "citation.jsonl", encoding="utf-8"):
        row = json.loads(line)
        yield "citation", {"question": row["question"], "answer": row["answer"],
                           "contexts": [p["text"] for p in row["passages"]]}, -1
    for line in open(folder / "support.jsonl", encoding="utf-8"):
        row = json.loads(line)
        case = {"answer": row["claim"], "contexts": row["premise_passages"]}
        if row.get("question"):
            case["question"] = row["question"]
        yield "support", case, row["label"]


def read_twice(case: dict, rule: bool) -> str | None:
    """The answer's second reading (None when the case is read once), with the off-topic rule or not."""
    screening.off_topic_spans = off_topic.off_topic_spans if rule else (lambda *_: [])
    try:
        withheld = asyncio.run(screen_sample(parse_sample(case))).withheld
    finally:
        screening.off_topic_spans = off_topic.off_topic_spans
    return None if withheld is None else withheld.answer or ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verdicts", action="store_true", help="judge the cases the rule adds (local judge)")
    parser.add_argument("--out", type=Path, help="write each judged case here (JSONL)")
    args = parser.parse_args(argv)
    total, before, after = Counter(), Counter(), Counter()
    added: list[tuple[str, dict, int]] = []
    started = time.perf_counter()
    for kind, case, label in cases(default_judge_dev()):
        total[kind] += 1
        old, new = read_twice(case, False), read_twice(case, True)
        before[kind] += old is not None
        after[kind] += new is not None
        if new != old and kind in ("answer_reference", "support"):
            added.append((kind, case, label))
    print(f"screened in {time.perf_counter() - started:.0f} s")
    print("| cases | n | read twice, without the off-topic rule | with it |\n|---|---|---|---|")
    for kind in total:
        print(f"| {kind} | {total[kind]} | {before[kind]} ({before[kind] / total[kind]:.1%}) | "
              f"{after[kind]} ({after[kind] / total[kind]:.1%}) |")
    if args.verdicts:
        judge_added(added, args.out)
    return 0


def judge_added(added: list[tuple[str, dict, int]], out: Path | None) -> None:
    from llm_validation_framework import AccuracyAgent, AnswerAccuracyAgent
    from llm_validation_framework.judges.local import LocalJudge

    judge = LocalJudge().load()
    moved: Counter[tuple[str, int, str, str]] = Counter()
    sink = open(out, "w", encoding="utf-8") if out else None
    for kind, case, label in added:
        statuses = []
        for rule in (False, True):
            screening.off_topic_spans = off_topic.off_topic_spans if rule else (lambda *_: [])
            agent = AnswerAccuracyAgent(judge=judge) if kind == "answer_reference" else AccuracyAgent(judge=judge)
            result = agent.evaluate(case)
            statuses.append((result.status, result.score))
        screening.off_topic_spans = off_topic.off_topic_spans
        moved[(kind, label, statuses[0][0], statuses[1][0])] += 1
        if sink:
            sink.write(json.dumps({"kind": kind, "label": label, "without": statuses[0], "with": statuses[1],
                                   "answer": case["answer"]}) + "\n")
    print("\n| cases | label | without the rule | with it | n |\n|---|---|---|---|---|")
    for (kind, label, old, new), n in sorted(moved.items()):
        print(f"| {kind} | {label} | {old} | {new} | {n} |")


if __name__ == "__main__":
    raise SystemExit(main())
