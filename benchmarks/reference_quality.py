"""Reference checks against human labels: answer accuracy and context relevance, per source.

    .venv/bin/python benchmarks/reference_quality.py --provider local --limit 40 --runs 3
    .venv/bin/python benchmarks/reference_quality.py --provider scripted      # pipeline smoke test, no model

Reads judge-dev's ``answer_accuracy.jsonl`` and ``relevance.jsonl`` (``$LVF_JUDGE_DEV``, else
``../shared/data/judge-dev`` beside the checkout) exactly as they are (``--answer-accuracy`` /
``--relevance`` point at other files of the same format) and runs AnswerAccuracyCheck (question,
answer, every gold answer: NQ ``references_all``, TruthfulQA ``correct_answers``) and
ContextRelevanceCheck (query, the one passage) on each row.

Reported per task and per ``source``:

* balanced accuracy of PASS (score ≥ ``--threshold``, default 0.5, the agents' default: no
  threshold is fitted) and AUC of the score;
* beside it a word-overlap baseline: answer accuracy → the largest share of a gold answer's
  content words found in the answer; relevance → the share of the query's content words found
  in the passage. Its AUC, and its balanced accuracy at the best threshold *chosen on the same
  rows* (optimistic for the baseline: a floor our judge must clearly beat);
* judge calls per case and seconds per case;
* balanced accuracy of each template alone (t1, t2) and how often they disagree at the
  threshold (t1!=t2): whether averaging two templates helps;
* run-to-run flip rate: the share of rows whose PASS/FAIL differs between ``--runs`` runs.
  A probability-reading judge (the local one) is deterministic up to llama.cpp's numerics, so
  expect ~0; a sampling API judge is where this matters.

``--limit N`` takes N rows per task, stratified by (source, label) and seeded; ``--out`` writes
one JSON line per row and run (id, source, label, score, calls, seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "training"))
from build_data import default_judge_dev  # noqa: E402

DATA = default_judge_dev()
STOP = set("""a an the of in on at to for from by with and or but is are was were be been being it its this that
these those as which who whom what when where why how do does did not no yes than then there their they he she his
her him i you we our your my me us them so if about into over under after before also can could would should will
shall may might must has have had""".split())


# -- data ------------------------------------------------------------------------------------------

def load(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def stratified(rows: list[dict[str, Any]], limit: int | None, seed: int) -> list[dict[str, Any]]:
    """Up to ``limit`` rows, round-robin over (source, label) cells shuffled with ``seed``."""
    if not limit or limit >= len(rows):
        return rows
    cells: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        cells[(row["source"], int(row["label"]))].append(row)
    rng = random.Random(seed)
    for key in sorted(cells):
        rng.shuffle(cells[key])
    picked: list[dict[str, Any]] = []
    depth = 0
    while len(picked) < limit:
        added = False
        for key in sorted(cells):
            if depth < len(cells[key]) and len(picked) < limit:
                picked.append(cells[key][depth])
                added = True
        if not added:
            break
        depth += 1
    return picked


def golds(row: dict[str, Any], first_only: bool) -> list[str]:
    if first_only:
        return [row["reference"]]
    return [row["reference"], *(row.get("references_all") or row.get("correct_answers") or [])]


def case_of(task: str, row: dict[str, Any], first_only: bool) -> dict[str, Any]:
    if task == "answer_accuracy":
        refs = golds(row, first_only)
        return {"question": row["question"], "answer": row["answer"], "reference": refs[0], "references": refs[1:]}
    return {"question": row["query"], "contexts": [row["passage"]]}


# -- baseline --------------------------------------------------------------------------------------

def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP}


def share(part: str, whole: str) -> float:
    needed = words(part)
    return len(needed & words(whole)) / len(needed) if needed else 0.0


def overlap(task: str, row: dict[str, Any], first_only: bool) -> float:
    if task == "answer_accuracy":
        return max(share(ref, row["answer"]) for ref in golds(row, first_only))
    return share(row["query"], row["passage"])


# -- metrics ---------------------------------------------------------------------------------------

def balanced_accuracy(y: list[int], pred: list[int]) -> float:
    pos = [p for t, p in zip(y, pred) if t == 1]
    neg = [p for t, p in zip(y, pred) if t == 0]
    if not pos or not neg:
        return float("nan")
    return 0.5 * (sum(pos) / len(pos) + sum(1 - p for p in neg) / len(neg))


def auc(y: list[int], score: list[float]) -> float:
    pos = [s for t, s in zip(y, score) if t == 1]
    neg = [s for t, s in zip(y, score) if t == 0]
    if not pos or not neg:
        return float("nan")
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def best_balanced_accuracy(y: list[int], score: list[float]) -> float:
    cuts = sorted(set(score)) + [float("inf")]
    return max(balanced_accuracy(y, [int(s >= c) for s in score]) for c in cuts)


# -- judging ---------------------------------------------------------------------------------------

def build_judge(args: argparse.Namespace):
    if args.provider == "scripted":
        from llm_validation_framework.judges.scripted import ScriptedJudge

        return ScriptedJudge(scripted_reply, name="scripted-overlap")
    if args.provider == "local":
        from llm_validation_framework.judges.local.judge import LocalJudge

        return LocalJudge(model_path=args.model, n_ctx=args.n_ctx)
    from llm_validation_framework.judges import make_judge

    return make_judge(provider=args.provider, model=args.model, api_base=args.api_base)


def scripted_reply(request) -> dict[str, Any]:
    """A model-free stand-in (word overlap between the tagged texts) to exercise the pipeline."""
    blocks = dict(re.findall(r"<(\w+)[^>]*>\n(.*?)\n</\1>", request.prompt, flags=re.S))
    first, second = (blocks.get("response", ""), blocks.get("reference", "")) if "response" in blocks else \
        (blocks.get("question", ""), blocks.get("passage", ""))
    value = share(first, second)
    labels = list(request.options)
    return {"verdict": labels[min(len(labels) - 1, int(value * len(labels)))]}


def make_check(task: str):
    if task == "answer_accuracy":
        from llm_validation_framework.checks.answer_accuracy import AnswerAccuracyCheck

        return AnswerAccuracyCheck(prefer_reason=False)
    from llm_validation_framework.checks.context_relevance import ContextRelevanceCheck

    return ContextRelevanceCheck(prefer_reason=False)


async def run_task(task: str, rows: list[dict[str, Any]], judge, args: argparse.Namespace, run: int,
                   out) -> list[dict[str, Any]]:
    from llm_validation_framework.types.inputs import parse_sample

    check = make_check(task)
    semaphore = asyncio.Semaphore(args.concurrency)
    records: list[dict[str, Any]] = []
    started = time.perf_counter()

    async def one(row: dict[str, Any]) -> None:
        async with semaphore:
            t0 = time.perf_counter()
            result = await check.run(parse_sample(case_of(task, row, args.first_reference_only)), judge)
            seconds = time.perf_counter() - t0
        record = {"task": task, "run": run, "id": row["id"], "source": row["source"], "label": int(row["label"]),
                  "score": result.score, "calls": result.usage.calls, "seconds": round(seconds, 3),
                  "ratings": [r.get("score") for r in result.details.get("ratings", [])], "notes": result.notes}
        records.append(record)
        if out is not None:
            out.write(json.dumps(record) + "\n")
            out.flush()
        if len(records) % args.progress_every == 0 or len(records) == len(rows):
            print(f"  {task} run {run}: {len(records)}/{len(rows)} rows, "
                  f"{(time.perf_counter() - started) / len(records):.2f} s/row", file=sys.stderr, flush=True)

    await asyncio.gather(*(one(row) for row in rows))
    order = {row["id"]: i for i, row in enumerate(rows)}
    return sorted(records, key=lambda r: order[r["id"]])


# -- report ----------------------------------------------------------------------------------------

def summarise(task: str, rows: list[dict[str, Any]], runs: list[list[dict[str, Any]]], threshold: float,
              first_only: bool) -> dict[str, Any]:
    by_id = {row["id"]: row for row in rows}
    table: dict[str, Any] = {}
    for source in [None, *sorted({row["source"] for row in rows})]:
        first = [rec for rec in runs[0] if source is None or rec["source"] == source]
        scored = [rec for rec in first if rec["score"] is not None]
        y = [rec["label"] for rec in scored]
        score = [rec["score"] for rec in scored]
        base = [overlap(task, by_id[rec["id"]], first_only) for rec in scored]
        verdicts = defaultdict(set)
        for run in runs:
            for rec in run:
                if (source is None or rec["source"] == source) and rec["score"] is not None:
                    verdicts[rec["id"]].add(rec["score"] >= threshold)
        per_template = []
        for index in (0, 1):
            pairs = [(rec["label"], rec["ratings"][index]) for rec in first
                     if len(rec["ratings"]) > index and rec["ratings"][index] is not None]
            per_template.append(balanced_accuracy([a for a, _ in pairs], [int(b >= threshold) for _, b in pairs]))
        both = [rec["ratings"][:2] for rec in first if len(rec["ratings"]) >= 2 and None not in rec["ratings"][:2]]
        table[source or "overall"] = {
            "n": len(first), "unscored": len(first) - len(scored),
            "bal_acc": balanced_accuracy(y, [int(s >= threshold) for s in score]),
            "auc": auc(y, score),
            "best_bal_acc": best_balanced_accuracy(y, score) if scored else float("nan"),
            "bal_acc_template1": per_template[0], "bal_acc_template2": per_template[1],
            "templates_disagree": (sum((a >= threshold) != (b >= threshold) for a, b in both) / len(both)
                                   if both else float("nan")),
            "overlap_best_bal_acc": best_balanced_accuracy(y, base) if scored else float("nan"),
            "overlap_auc": auc(y, base),
            "calls_per_case": sum(rec["calls"] for rec in first) / max(1, len(first)),
            "seconds_per_case": sum(rec["seconds"] for rec in first) / max(1, len(first)),
            "flip_rate": (sum(len(v) > 1 for v in verdicts.values()) / len(verdicts)) if verdicts else float("nan"),
            "runs": len(runs),
        }
    return table


def print_table(task: str, table: dict[str, Any]) -> None:
    print(f"\n== {task}")
    print(f"{'source':42s} {'n':>4s} {'BA':>6s} {'AUC':>6s} {'bestBA':>6s} {'BA t1':>6s} {'BA t2':>6s} "
          f"{'t1!=t2':>6s} | {'overlap bestBA':>14s} {'AUC':>6s} | {'calls':>5s} {'s/case':>6s} {'flips':>6s}")
    for source, m in table.items():
        print(f"{source[:42]:42s} {m['n']:4d} {m['bal_acc']:6.3f} {m['auc']:6.3f} {m['best_bal_acc']:6.3f} "
              f"{m['bal_acc_template1']:6.3f} "
              f"{m['bal_acc_template2']:6.3f} {m['templates_disagree']:6.3f} | {m['overlap_best_bal_acc']:14.3f} "
              f"{m['overlap_auc']:6.3f} | {m['calls_per_case']:5.2f} {m['seconds_per_case']:6.2f} "
              f"{m['flip_rate']:6.3f}" + (f"  ({m['unscored']} unscored)" if m["unscored"] else ""))


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    judge = build_judge(args)
    files = {"answer_accuracy": args.answer_accuracy, "relevance": args.relevance}
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    summary: dict[str, Any] = {"judge": getattr(judge, "name", type(judge).__name__), "threshold": args.threshold,
                               "limit": args.limit, "seed": args.seed, "tasks": {}}
    try:
        for task in args.tasks:
            rows = stratified(load(files[task]), args.limit, args.seed)
            runs = [await run_task(task, rows, judge, args, run, out) for run in range(1, args.runs + 1)]
            table = summarise(task, rows, runs, args.threshold, args.first_reference_only)
            summary["tasks"][task] = table
            print_table(task, table)
    finally:
        if out is not None:
            out.close()
    return summary


def report_only(path: Path, args: argparse.Namespace) -> None:
    """Re-summarise a ``--out`` file (no judging): the tables for the rows and runs it holds."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    files = {"answer_accuracy": args.answer_accuracy, "relevance": args.relevance}
    for task in sorted({r["task"] for r in records}):
        mine = [r for r in records if r["task"] == task]
        ids = {r["id"] for r in mine}
        rows = [row for row in load(files[task]) if row["id"] in ids]
        runs = [[r for r in mine if r["run"] == n] for n in sorted({r["run"] for r in mine})]
        print_table(task, summarise(task, rows, runs, args.threshold, args.first_reference_only))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--provider", default="local", help="'local', 'scripted' (no model) or a litellm provider")
    parser.add_argument("--model", help="GGUF path for local, model name for an API provider")
    parser.add_argument("--api-base")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--tasks", nargs="+", choices=("answer_accuracy", "relevance"),
                        default=["answer_accuracy", "relevance"])
    parser.add_argument("--answer-accuracy", type=Path, default=DATA / "answer_accuracy.jsonl")
    parser.add_argument("--relevance", type=Path, default=DATA / "relevance.jsonl")
    parser.add_argument("--limit", type=int, help="rows per task, stratified by (source, label), seeded")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3, help="repeat every row this many times (flip rate)")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--first-reference-only", action="store_true",
                        help="give the judge only 'reference', not every gold answer")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--progress-every", type=int, default=10)
    parser.add_argument("--out", type=Path, help="one JSON line per row and run")
    parser.add_argument("--json", type=Path, help="write the summary table here")
    parser.add_argument("--report", type=Path, help="only summarise an earlier --out file")
    args = parser.parse_args(argv)
    if args.report:
        report_only(args.report, args)
        return 0
    if args.runs < 1:
        parser.error("--runs must be >= 1")
    started = time.perf_counter()
    summary = asyncio.run(amain(args))
    summary["wall_seconds"] = round(time.perf_counter() - started, 1)
    print(f"\njudge={summary['judge']} threshold={args.threshold} runs={args.runs} wall={summary['wall_seconds']}s")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
