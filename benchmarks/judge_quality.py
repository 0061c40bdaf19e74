"""How well do our checks judge? Balanced accuracy and AUC on human-labelled rows, per source.

    python benchmarks/judge_quality.py --task support --limit 160 --out preds.jsonl
    python benchmarks/judge_quality.py --task relevance --provider local
    python benchmarks/judge_quality.py --task answer_accuracy --provider anthropic --model claude-haiku-4-5-20251001

Reads ``../shared/data/judge-dev/{support,relevance,answer_accuracy}.jsonl`` exactly as they are
(``--data`` points at any other file of the same format) and runs OUR checks on every row:

* support:         the support check (claim vs numbered passages → P(supported)), with the
                   evidence sentences selected for the claim (``--evidence-chars``);
* relevance:       ContextRelevanceCheck (query vs the one passage);
* answer_accuracy: AnswerAccuracyCheck (question, answer, every gold answer);
* factual:         FactualCheck in knowledge mode on the answer_accuracy rows (question and
                   answer only: what AccuracyAgent judges without a reference or RAG);
* groundedness:    ResponseGroundednessCheck on the support rows (claim as the response,
                   premise passages as the contexts; two 0/1/2 templates).

Reported, overall and per ``source``: balanced accuracy of our verdict (probability ≥ 0.5:
no threshold is fitted), AUC of the probability, and a word-overlap baseline computed here
(share of the claim's/answer's content words found in the passage/reference; its threshold is
chosen on one half of the groups and scored on the other, both ways — an honest, cross-fitted
number), and leave-one-source-out (threshold fitted on every other source, scored on the one
left out: what docs and notes quote). We also print our balanced accuracy with a threshold cross-fitted the same way, so
the fixed 0.5 is not hiding a miscalibration. Groups (question / Wikipedia article / query)
never straddle the halves. Plus verdicts per second, model load time and peak RSS.

The last two columns ("blend") score the plain mean of our probability and the overlap feature, a
fixed formula (nothing fitted, and blind to the verdict's label, unlike the checks' ``blend_verdict``),
shown because the two signals are
complementary (DESIGN.md). Our check's verdict is the first column.

Support rows are reduced to the claim's most relevant sentences (``--evidence-chars``, default
600, what LocalJudge().profile.evidence_chars suggests) by the benchmark when the SupportCheck does not
accept ``evidence_chars`` itself; such rows carry the note "evidence selected by the benchmark".

``--limit N`` takes N rows stratified by source and label (seeded), e.g. 160 = 10 per
(source, label) on support.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "training"))
from build_data import default_judge_dev  # noqa: E402

from llm_validation_framework.text.overlap import word_overlap  # noqa: E402

DATA = default_judge_dev()
DEFAULT_EVIDENCE_CHARS = 600
DEFAULT_FILES = {"support": DATA / "support.jsonl", "groundedness": DATA / "support.jsonl",
                 "relevance": DATA / "relevance.jsonl", "factual": DATA / "answer_accuracy.jsonl",
                 "answer_accuracy": DATA / "answer_accuracy.jsonl"}


# -- data --------------------------------------------------------------------------------------

def load_rows(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def gold(row: dict[str, Any]) -> int:
    label = row["label"]
    return int(label in (1, True, "supported", "1"))


def group_of(row: dict[str, Any]) -> str:
    return str(row.get("page_title") or row.get("question") or row.get("query") or row["id"])


def stratified(rows: list[dict[str, Any]], limit: int | None, seed: int) -> list[dict[str, Any]]:
    """Up to ``limit`` rows, as even as possible across (source, label) cells, seeded."""
    if not limit or limit >= len(rows):
        return rows
    cells: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        cells[(row.get("source", ""), gold(row))].append(row)
    rng = random.Random(seed)
    for key in sorted(cells):
        rng.shuffle(cells[key])
    picked: list[dict[str, Any]] = []
    keys = sorted(cells)
    depth = 0
    while len(picked) < limit and any(depth < len(cells[k]) for k in keys):
        for key in keys:
            if depth < len(cells[key]) and len(picked) < limit:
                picked.append(cells[key][depth])
        depth += 1
    return picked


def gold_answers(row: dict[str, Any]) -> list[str]:
    """Every gold answer a row gives: NQ's ``references_all``, TruthfulQA's ``correct_answers``."""
    return list(row.get("references_all") or row.get("correct_answers") or [row["reference"]])


def baseline_feature(task: str, row: dict[str, Any]) -> float:
    if task in ("support", "groundedness"):
        return word_overlap(row["claim"], row["premise_passages"])
    if task == "relevance":
        return word_overlap(row["query"], [row["passage"]])
    refs = gold_answers(row)
    return max(word_overlap(ref, [row["answer"]]) for ref in refs)


# -- metrics -----------------------------------------------------------------------------------

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
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def best_threshold(y: list[int], score: list[float]) -> float:
    candidates = sorted(set(score))
    cuts = [(a + b) / 2 for a, b in zip(candidates, candidates[1:])] or [0.5]
    return max(cuts, key=lambda t: (balanced_accuracy(y, [int(s >= t) for s in score]), -abs(t - 0.5)))


def cross_fitted(rows: list[dict[str, Any]], y: list[int], score: list[float], seed: int) -> list[int]:
    """Predictions where each half's threshold was chosen on the other half (split by group)."""
    groups = sorted({group_of(r) for r in rows})
    random.Random(seed).shuffle(groups)
    half = {g: i % 2 for i, g in enumerate(groups)}
    side = [half[group_of(r)] for r in rows]
    pred = [0] * len(rows)
    for fold in (0, 1):
        train = [i for i, s in enumerate(side) if s != fold]
        test = [i for i, s in enumerate(side) if s == fold]
        threshold = best_threshold([y[i] for i in train], [score[i] for i in train]) if train else 0.5
        for i in test:
            pred[i] = int(score[i] >= threshold)
    return pred


def _row_id(record: dict[str, Any]) -> str:
    """The id of a line of an --exclude file: our --out lines, or the peers benchmark's rows file."""
    if "id" in record:
        return record["id"]
    if isinstance(record.get("row"), dict) and "id" in record["row"]:
        return record["row"]["id"]
    raise SystemExit(f"--exclude: a line has no 'id' (nor row.id): {str(record)[:120]}")


# -- judging -----------------------------------------------------------------------------------

def build_judge(args: argparse.Namespace):
    if args.provider == "local":
        from llm_validation_framework.judges.local.judge import LocalJudge

        calibration = None if args.calibration == "none" else "default"
        if args.api_base:  # the model of a running `lvf serve` (one loaded model for several runs)
            return LocalJudge(api_base=args.api_base, calibration=calibration, heads=not args.no_heads,
                              split_negatives=args.split_negatives)
        return LocalJudge(model_path=args.model, n_ctx=args.n_ctx, calibration=calibration, heads=not args.no_heads,
                          split_negatives=args.split_negatives)
    from llm_validation_framework.judges.litellm.judge import LiteLLMJudge

    if not args.model:
        raise SystemExit("--model is required with an API provider")
    return LiteLLMJudge(provider=args.provider, model=args.model, api_base=args.api_base)


async def judge_row(task: str, row: dict[str, Any], judge, args: argparse.Namespace):
    from llm_validation_framework.types.inputs import parse_sample

    if task == "support":
        return await support_row(row, judge, args)
    if task == "factual":  # AccuracyAgent's factual check without RAG or reference: the judge's own knowledge
        from llm_validation_framework.checks.factual import FactualCheck

        sample = parse_sample({"question": row["question"], "answer": row["answer"]})
        return await FactualCheck(prefer_reason=False).run(sample, judge)
    if task == "groundedness":
        from llm_validation_framework.checks.response_groundedness import ResponseGroundednessCheck

        sample = parse_sample({"answer": row["claim"], "contexts": list(row["premise_passages"])})
        return await ResponseGroundednessCheck(prefer_reason=False, explain_below=0.0).run(sample, judge)
    if task == "relevance":
        from llm_validation_framework.checks.context_relevance import ContextRelevanceCheck

        sample = parse_sample({"question": row["query"], "contexts": [row["passage"]]})
        options = {"passage_verdict": args.passage_verdict} if args.passage_verdict else {}
        return await ContextRelevanceCheck(prefer_reason=False, **options).run(sample, judge)
    from llm_validation_framework.checks.answer_accuracy import AnswerAccuracyCheck

    sample = parse_sample({"question": row["question"], "answer": row["answer"], "reference": row["reference"],
                           "references": gold_answers(row)})
    return await AnswerAccuracyCheck(prefer_reason=False).run(sample, judge)


async def support_row(row: dict[str, Any], judge, args: argparse.Namespace):
    from llm_validation_framework.checks.support import SupportCheck
    from llm_validation_framework.text.evidence import select_sentences
    from llm_validation_framework.types.inputs import parse_sample

    passages = list(row["premise_passages"])
    options = support_options(args)
    reduced = False
    if "evidence_chars" not in options:
        # the check does not select evidence itself (yet): do what it would, before calling it
        passages, reduced = select_sentences(row["claim"], passages, args.evidence_chars or DEFAULT_EVIDENCE_CHARS)
        passages = [p for p in passages if p] or [" "]
    data = {"answer": row["claim"], "contexts": passages}
    if row.get("question") and not args.no_question:
        data["question"] = row["question"]
    result = await SupportCheck(**options).run(parse_sample(data), judge)
    if reduced:
        result.notes.append("evidence selected by the benchmark")
    return result


def support_options(args: argparse.Namespace) -> dict[str, Any]:
    import inspect

    from llm_validation_framework.checks.support import SupportCheck

    accepted = inspect.signature(SupportCheck.__init__).parameters
    options = {"prefer_reason": False, "evidence_chars": args.evidence_chars or DEFAULT_EVIDENCE_CHARS}
    return {k: v for k, v in options.items() if k in accepted}


async def run_all(task: str, rows: list[dict[str, Any]], judge, args: argparse.Namespace, out) -> list[dict]:
    results: list[dict] = []
    semaphore = asyncio.Semaphore(args.concurrency)
    started = time.perf_counter()

    async def one(index: int, row: dict[str, Any]) -> None:
        async with semaphore:
            t0 = time.perf_counter()
            result = await judge_row(task, row, judge, args)
            seconds = time.perf_counter() - t0
        record = {"id": row["id"], "source": row.get("source", ""), "label": gold(row),
                  "probability": result.score, "verdict": None if result.score is None else int(result.score >= 0.5),
                  "seconds": round(seconds, 3), "notes": list(result.notes),
                  "prompt_tokens": result.usage.prompt_tokens, "calls": result.usage.calls,
                  # each judge call's label probabilities, for error analysis and calibration
                  "templates": [{"template": t.get("template"), "score": t.get("score"),
                                 "probabilities": t.get("probabilities")}
                                for t in result.details.get("ratings", [])]}
        results.append(record)
        if out is not None:
            out.write(json.dumps(record) + "\n")
            out.flush()
        done = len(results)
        if done % max(1, args.progress_every) == 0 or done == len(rows):
            rate = done / (time.perf_counter() - started)
            print(f"  {done}/{len(rows)} rows, {rate:.2f} rows/s", file=sys.stderr, flush=True)

    await asyncio.gather(*(one(i, r) for i, r in enumerate(rows)))
    return results


# -- report ------------------------------------------------------------------------------------

def report(task: str, rows: list[dict[str, Any]], records: list[dict], seed: int) -> dict[str, Any]:
    by_id = {r["id"]: r for r in rows}
    scored = [rec for rec in records if rec["probability"] is not None]
    unscored = len(records) - len(scored)
    table: dict[str, Any] = {}
    sources = sorted({rec["source"] for rec in scored})
    loso = leave_one_source_out(task, scored, by_id)
    for source in [None, *sources]:
        subset = [rec for rec in scored if source is None or rec["source"] == source]
        srows = [by_id[rec["id"]] for rec in subset]
        y = [rec["label"] for rec in subset]
        prob = [rec["probability"] for rec in subset]
        base = [baseline_feature(task, r) for r in srows]
        table[source or "overall"] = {
            "n": len(subset),
            "bal_acc@0.5": balanced_accuracy(y, [int(p >= 0.5) for p in prob]),
            "bal_acc_xfit": balanced_accuracy(y, cross_fitted(srows, y, prob, seed)),
            "auc": auc(y, prob),
            "overlap_bal_acc_xfit": balanced_accuracy(y, cross_fitted(srows, y, base, seed)),
            "blend_bal_acc@0.5": balanced_accuracy(y, [int((p + b) / 2 >= 0.5) for p, b in zip(prob, base)]),
            "blend_auc": auc(y, [(p + b) / 2 for p, b in zip(prob, base)]),
            "overlap_auc": auc(y, base),
            "bal_acc_loso": balanced_accuracy(y, [loso["ours"][rec["id"]] for rec in subset]),
            "overlap_bal_acc_loso": balanced_accuracy(y, [loso["overlap"][rec["id"]] for rec in subset]),
        }
    return {"table": table, "unscored": unscored}


def leave_one_source_out(task: str, scored: list[dict], by_id: dict[str, dict]) -> dict[str, dict[str, int]]:
    """Each row's verdict with the threshold fitted on every OTHER source's rows (ours and overlap).

    What a user meets: a threshold (or anything else) tuned on data like some sources, applied to
    a source it never saw. With one source the threshold stays 0.5 (ours) and overlap's own median.
    """
    out: dict[str, dict[str, int]] = {"ours": {}, "overlap": {}}
    features = {rec["id"]: (rec["probability"], baseline_feature(task, by_id[rec["id"]])) for rec in scored}
    for source in {rec["source"] for rec in scored}:
        train = [rec for rec in scored if rec["source"] != source]
        test = [rec for rec in scored if rec["source"] == source]
        for name, column in (("ours", 0), ("overlap", 1)):
            if train:
                threshold = best_threshold([r["label"] for r in train], [features[r["id"]][column] for r in train])
            else:
                threshold = 0.5 if name == "ours" else sorted(features[r["id"]][1] for r in test)[len(test) // 2]
            for rec in test:
                out[name][rec["id"]] = int(features[rec["id"]][column] >= threshold)
    return out


def print_report(summary: dict[str, Any], timing: dict[str, Any]) -> None:
    print(f"{'source':38s} {'n':>4s} {'BA@0.5':>7s} {'BA xfit':>7s} {'BA LOSO':>7s} {'AUC':>6s} | "
          f"{'overlap BA':>10s} {'LOSO':>6s} {'AUC':>6s} | {'blend BA':>8s} {'AUC':>6s}")
    for source, m in summary["table"].items():
        print(f"{source[:38]:38s} {m['n']:4d} {m['bal_acc@0.5']:7.3f} {m['bal_acc_xfit']:7.3f} "
              f"{m['bal_acc_loso']:7.3f} {m['auc']:6.3f} | {m['overlap_bal_acc_xfit']:10.3f} "
              f"{m['overlap_bal_acc_loso']:6.3f} {m['overlap_auc']:6.3f} | "
              f"{m['blend_bal_acc@0.5']:8.3f} {m['blend_auc']:6.3f}")
    print(f"unscored rows: {summary['unscored']}")
    print(" ".join(f"{k}={v}" for k, v in timing.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", choices=sorted(DEFAULT_FILES), default="support")
    parser.add_argument("--data", type=Path, help="a JSONL file of the task's format (default: the judge-dev file)")
    parser.add_argument("--limit", type=int, help="rows to judge, stratified by source and label")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--provider", default="local",
                        help="'local' or a litellm provider (anthropic, openai, ollama…)")
    parser.add_argument("--model", help="GGUF path for local, model name for an API provider")
    parser.add_argument("--api-base", help="an API provider's server; with --provider local, a running `lvf serve`")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--evidence-chars", type=int, default=None,
                        help="support: evidence budget in characters (default: the check's own)")
    parser.add_argument("--no-question", action="store_true", help="support: leave the question out of the prompt")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--out", type=Path, help="write one JSON line per row: id, probability, verdict")
    parser.add_argument("--progress-every", type=int, default=20)
    parser.add_argument("--passage-verdict", choices=["rating", "yes_no"],
                        help="relevance: the per-passage verdict's form (default: the check's)")
    parser.add_argument("--exclude", type=Path, action="append", default=[],
                        help="leave out the rows whose id is in this JSONL (e.g. the rows a calibration was fitted on)")
    parser.add_argument("--no-heads", action="store_true",
                        help="local: prompt probabilities only, not the shipped verdict heads")
    parser.add_argument("--split-negatives", action="store_true",
                        help="local, support: a split head names the negative label where the prompt hesitates")
    parser.add_argument("--calibration", choices=["default", "none"], default="default",
                        help="local judge: the shipped score calibration, or raw expected ratings (to fit a new one)")
    args = parser.parse_args(argv)

    path = args.data or DEFAULT_FILES[args.task]
    excluded = {_row_id(json.loads(line)) for file in args.exclude for line in open(file, encoding="utf-8")
                if line.strip()}
    rows = stratified([row for row in load_rows(path) if row["id"] not in excluded], args.limit, args.seed)
    if excluded:
        print(f"left out {len(excluded)} ids listed in {', '.join(map(str, args.exclude))}", file=sys.stderr)
    print(f"{args.task}: {len(rows)} rows from {path}", file=sys.stderr)
    judge = build_judge(args)
    load_seconds = 0.0
    if hasattr(judge, "load"):
        t0 = time.perf_counter()
        judge.load()
        load_seconds = time.perf_counter() - t0
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    try:
        t0 = time.perf_counter()
        records = asyncio.run(run_all(args.task, rows, judge, args, out))
        wall = time.perf_counter() - t0
    finally:
        if out is not None:
            out.close()
    calls = sum(r["calls"] for r in records)
    timing = {"judge": getattr(judge, "name", "?"), "rows": len(records), "wall_s": round(wall, 1),
              "rows_per_s": round(len(records) / wall, 3), "verdicts_per_s": round(calls / wall, 3),
              "mean_prompt_tokens": round(sum(r["prompt_tokens"] for r in records) / max(1, calls)),
              "load_s": round(load_seconds, 2),
              "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
    print_report(report(args.task, rows, records, args.seed), timing)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
