"""AccuracyAgent with a reference, end to end, against human labels: PASS/FAIL, not a check's score.

    .venv/bin/python benchmarks/accuracy_agent.py --limit 160 --out /tmp/agent.jsonl
    .venv/bin/python benchmarks/accuracy_agent.py --report /tmp/agent.jsonl

Runs ``AccuracyAgent`` with the offline judge on judge-dev's answer-accuracy rows (question,
answer, every gold answer; ``reference_quality.py`` builds the case), stratified by (source, label)
and seeded, and records the relevancy and answer-accuracy scores with the agent's status. The
agent combines them as ``0.4 × relevancy + 0.6 × answer_accuracy`` and, against a reference, FAILs
an answer whose accuracy is below the threshold however relevant it is. Reported per source:
balanced accuracy of the agent's PASS as it is, and recomputed from the same scores with the rule
(weighted score and the factual part at the threshold) and without it (the weighted score alone),
with how many answers people judged wrong each one passes. ``--knowledge`` leaves the reference out,
so the factual part is the judge's own knowledge. Rows are appended as they finish; a rerun resumes.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

from reference_quality import DATA, balanced_accuracy, case_of, load, stratified


def run(rows: list[dict], out: Path, threshold: float, knowledge: bool) -> None:
    from llm_validation_framework import AccuracyAgent, LocalJudge

    done = {json.loads(line)["id"] for line in out.read_text().splitlines()} if out.exists() else set()
    agent = AccuracyAgent(judge=LocalJudge().load(), threshold=threshold)
    started, judged = time.perf_counter(), 0
    with out.open("a", encoding="utf-8") as sink:
        for number, row in enumerate(rows, start=1):
            if row["id"] in done:
                continue
            case = case_of("answer_accuracy", row, first_only=False)
            if knowledge:  # no reference: the factual check asks the judge's own knowledge
                case = {"question": case["question"], "answer": case["answer"]}
            result = agent.evaluate(case)
            scores = {check.name: check.score for check in result.checks}
            accuracy = scores.get("factual" if knowledge else "answer_accuracy")
            sink.write(json.dumps({"id": row["id"], "source": row["source"], "label": int(row["label"]),
                                   "relevancy": scores.get("relevancy"), "accuracy": accuracy,
                                   "score": result.score, "status": result.status}) + "\n")
            sink.flush()
            judged += 1
            print(f"{number}/{len(rows)} {result.status} {result.score}", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{judged} rows in {seconds:.0f} s ({judged / max(seconds, 1e-9):.3f} rows/s, model loaded), "
          f"peak RSS {peak:.0f} MB")


def report(out: Path, threshold: float) -> None:
    records = [json.loads(line) for line in out.read_text().splitlines()]
    by_source: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        if record["score"] is not None:
            by_source[record["source"]].append(record)
            by_source["pooled"].append(record)
    print(f"{'source':<40} {'rows':>5} {'agent':>7} {'with rule':>10} {'score only':>11} "
          f"{'wrong PASS: rule':>17} {'score only':>11}")
    for source in sorted(by_source, key=lambda s: (s == "pooled", s)):
        subset = by_source[source]
        y = [r["label"] for r in subset]
        agent = [int(r["status"] == "PASS") for r in subset]
        weighted = [int(r["score"] >= threshold) for r in subset]
        ruled = [int(w and r["accuracy"] is not None and r["accuracy"] >= threshold) for w, r in zip(weighted, subset)]
        wrong = [i for i, r in enumerate(subset) if not r["label"]]
        print(f"{source[:40]:<40} {len(subset):>5} {balanced_accuracy(y, agent):>7.3f} "
              f"{balanced_accuracy(y, ruled):>10.3f} {balanced_accuracy(y, weighted):>11.3f} "
              f"{sum(ruled[i] for i in wrong):>17} {sum(weighted[i] for i in wrong):>11}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA / "answer_accuracy.jsonl")
    parser.add_argument("--limit", type=int, default=160, help="rows, stratified by (source, label)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--threshold", type=float, default=0.5, help="the agent's threshold (default: its own, 0.5)")
    parser.add_argument("--knowledge", action="store_true",
                        help="leave the reference out: the factual check asks the judge's own knowledge")
    parser.add_argument("--out", type=Path, help="one JSON line per row (resumable)")
    parser.add_argument("--report", type=Path, help="only summarise an earlier --out file")
    args = parser.parse_args(argv)
    if args.report:
        report(args.report, args.threshold)
        return 0
    if not args.out:
        parser.error("--out is required to run")
    run(stratified(load(args.data), args.limit, args.seed), args.out, args.threshold, args.knowledge)
    report(args.out, args.threshold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
