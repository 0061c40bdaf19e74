"""How well do criteria checks judge? Against the shipped checks on judge-dev, and against SummEval's experts.

    python benchmarks/criteria_quality.py relevancy --provider local                 # fold 0 of 5 by question
    python benchmarks/criteria_quality.py relevancy --provider local --fold all --no-heads
    python benchmarks/criteria_quality.py support --provider local --limit 160
    python benchmarks/criteria_quality.py summeval --provider local --articles 20 --geval-steps
    python benchmarks/criteria_quality.py summeval --provider scripted --articles 2     # the script itself, offline

* ``relevancy``: judge-dev's answer-relevancy rows (built from ``judge-dev/answer_accuracy.jsonl`` by
  ``training/build_data.py``: a question's own answers are on topic, the answer of the most similar
  other question is not), held out by question as ``benchmarks/heads/learning_curve.py`` holds them out
  (fold = crc32 of the question's group mod ``--folds``; ``--fold`` picks the held-out one, ``all`` takes
  every row). A criterion written only from the docs' words, "Does the answer try to answer the question,
  right or wrong?", against ``RelevancyCheck`` as shipped (with the local judge's learned head, which was
  fitted on these rows: ``--no-heads`` gives the prompt alone, and ``learning_curve.py`` the head's number on
  questions it never saw).
* ``support``: judge-dev's support rows (claim and premise passages), a support criterion against the
  shipped support check, both on the same evidence sentences (the support check's selection).
* ``summeval``: SummEval's expert ratings (coherence, consistency, fluency, relevance; 1-5, the mean of three
  experts) of 16 summaries for each of 100 CNN/DailyMail articles, read at run time from a fetched snapshot
  (``benchmarks/data/README.md``). Four criteria checks on a 1-5 rubric, each summary with its article as the
  passage; summary-level Spearman and Kendall (per article across its summaries, then averaged, as G-Eval
  reports them), probability-weighted score against the label alone (the most probable level's score, from
  the same verdict). ``--scale three`` asks each criterion on the default yes / partly / no scale instead
  (the label alone is then one of three levels). ``--skip-articles`` starts after the first N articles
  (those a choice was made on). ``--geval-steps`` gives each criterion G-Eval's evaluation steps, read from a fetched
  snapshot of its repository; otherwise the judge writes them (the local judge writes none).

Balanced accuracy is at a score of 0.5, no threshold fitted. ``--provider scripted`` answers from a hash of
the prompt: it checks the script, not a judge.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import sys
import time
import zlib
from collections import Counter, defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "training")]

from build_data import answer_relevancy_judge_dev, default_judge_dev, default_mirror_root, discover, git_show  # noqa: E402
from judge_quality import auc, balanced_accuracy, build_judge, stratified, support_row  # noqa: E402

from llm_validation_framework import Criteria  # noqa: E402
from llm_validation_framework.checks.relevancy import RelevancyCheck  # noqa: E402
from llm_validation_framework.checks.scale import Scale  # noqa: E402
from llm_validation_framework.text.evidence import select_sentences  # noqa: E402
from llm_validation_framework.types.inputs import parse_sample  # noqa: E402

SUMMEVAL = ("maiush/PPairS", "0beef748c02726db1a781784eeb19bae8d219c19", "data/summeval.jsonl")
GEVAL = ("nlpyang/geval", "6f84404ce4503d2ba0cde0293c5d402ecf2976a8", "prompts/summeval/{}_detailed.txt")

ON_TOPIC = Criteria("on_topic", "Does the answer try to answer the question, right or wrong?")
SUPPORTED = Criteria("supported", "Is everything the answer states supported by the passages?",
                     inputs=("contexts", "answer"))
#: SummEval's four dimensions in our words: (G-Eval prompt file prefix, criterion, five anchors lowest first)
DIMENSIONS = {
    "coherence": ("coh", "Is the summary well structured and well organised, its sentences building one on the "
                  "next into a coherent account of the article, rather than a heap of related facts?",
                  ["no structure: disconnected sentences", "mostly disconnected, hard to follow",
                   "partly organised, with jumps", "mostly well organised", "a coherent, well-organised whole"]),
    "consistency": ("con", "Is every fact in the summary stated or implied by the article, with nothing invented "
                    "or contradicted?",
                    ["mostly invented or contradicted", "several facts not in the article",
                     "one or two facts not in the article", "one small unsupported detail",
                     "every fact is in the article"]),
    "fluency": ("flu", "Is every sentence of the summary well written: grammatical, readable, free of garbled "
                "words, formatting and capitalisation problems?",
                ["unreadable", "many errors that hinder reading", "some errors, still readable",
                 "minor slips only", "fluent throughout"]),
    "relevance": ("rel", "Does the summary keep the article's important content, without redundant or "
                  "unimportant details?",
                  ["misses the point of the article", "mostly unimportant details", "some key points, some filler",
                   "most key points, little filler", "the key points and nothing else"]),
}


# -- judges -------------------------------------------------------------------------------------------
def scripted_judge():
    """Probabilities from a hash of the prompt: exercises the script, measures nothing."""
    from llm_validation_framework import ScriptedJudge

    def reply(request):
        if request.check.endswith(":steps"):
            return {"verdict": "ready", "steps": ["Read the case.", "Rate it on the criterion."]}
        digest = hashlib.sha256(request.prompt.encode()).digest()
        weights = [b + 1 for b in digest[: len(request.labels)]]
        return {"probabilities": {label: w / sum(weights) for label, w in zip(request.labels, weights)}}

    return ScriptedJudge(reply, name="scripted-hash")


def make_judge(args: argparse.Namespace):
    if args.provider == "scripted":
        return scripted_judge()
    return build_judge(SimpleNamespace(provider=args.provider, model=args.model, api_base=args.api_base,
                                       n_ctx=args.n_ctx, calibration="default", no_heads=args.no_heads,
                                       split_negatives=False))


# -- rows ---------------------------------------------------------------------------------------------
def fold_of(group: str, folds: int) -> int:
    """``learning_curve.fold_of``: a stable fold per question."""
    return zlib.crc32(group.encode("utf-8")) % folds


def relevancy_rows(args: argparse.Namespace) -> list[dict]:
    rows = answer_relevancy_judge_dev(args.judge_dev / "answer_accuracy.jsonl", args.seed)
    if args.fold != "all":
        rows = [r for r in rows if fold_of(r["group"], args.folds) == int(args.fold)]
    return stratified(rows, args.limit, args.seed)


def support_rows(args: argparse.Namespace) -> list[dict]:
    rows = [json.loads(line) for line in open(args.judge_dev / "support.jsonl", encoding="utf-8") if line.strip()]
    return stratified(rows, args.limit, args.seed)


def summeval_rows(args: argparse.Namespace) -> list[dict]:
    repo, commit, path = SUMMEVAL
    git_dir = args.summeval_git or discover(args.mirror_root, repo)
    if git_dir is None:
        raise SystemExit(f"fetch a snapshot of github:{repo} first, or pass --summeval-git GIT_DIR")
    rows = [json.loads(line) for line in git_show(git_dir, commit, path).splitlines() if line.strip()]
    ordered = sorted({r["article_id"] for r in rows}, key=lambda a: int(a.lstrip("A")))
    articles = ordered[args.skip_articles: args.skip_articles + args.articles]
    return [r for r in rows if r["article_id"] in set(articles)]


def geval_steps(args: argparse.Namespace, prefix: str) -> list[str] | None:
    """The "Evaluation Steps" of G-Eval's prompt for one dimension, read from the fetched snapshot (None:
    its prompt has none, as fluency's)."""
    repo, rev, path = GEVAL
    git_dir = args.geval_git or discover(args.mirror_root, repo)
    if git_dir is None:
        raise SystemExit(f"--geval-steps: fetch github:{repo} first, or pass --geval-git GIT_DIR")
    text = git_show(git_dir, rev, path.format(prefix))
    if "Evaluation Steps:" not in text:
        return None
    block = text.split("Evaluation Steps:", 1)[1].split("Example:", 1)[0]
    return [line.strip() for line in block.strip().splitlines() if line.strip()]


# -- judging ------------------------------------------------------------------------------------------
async def judge_rows(rows: list[dict], one, concurrency: int) -> list[dict]:
    semaphore = asyncio.Semaphore(concurrency)
    started, done = time.perf_counter(), []

    async def run(row: dict) -> dict:
        async with semaphore:
            record = await one(row)
        done.append(record)
        if len(done) % 20 == 0:
            print(f"  {len(done)}/{len(rows)} rows, {time.perf_counter() - started:.0f}s", file=sys.stderr)
        return record

    return list(await asyncio.gather(*(run(row) for row in rows)))


def scored(result) -> dict[str, Any]:
    return {"score": result.score, "method": result.method, "label": result.details.get("label"),
            "steps_source": result.details.get("steps_source"), "prompt_tokens": result.usage.prompt_tokens}


async def relevancy_one(row: dict, judge, args) -> dict:
    sample = parse_sample({"question": row["question"], "answer": row["answer"]})
    shipped, criteria = await asyncio.gather(RelevancyCheck(prefer_reason=False).run(sample, judge),
                                             ON_TOPIC.run(sample, judge))
    return {"id": row["id"], "source": row["source"], "label": int(row["label"]),
            "shipped": scored(shipped), "criteria": scored(criteria)}


async def support_one(row: dict, judge, args) -> dict:
    shipped = await support_row(row, judge, SimpleNamespace(evidence_chars=args.evidence_chars, no_question=False))
    passages, _ = select_sentences(row["claim"], list(row["premise_passages"]), args.evidence_chars)
    sample = parse_sample({"answer": row["claim"], "contexts": [p for p in passages if p] or [" "]})
    criteria = await SUPPORTED.run(sample, judge)
    return {"id": row["id"], "source": row["source"], "label": int(row["label"] == "supported"),
            "shipped": scored(shipped), "criteria": scored(criteria)}


def summeval_checks(args: argparse.Namespace) -> dict[str, Criteria]:
    checks = {}
    for dim, (prefix, criterion, anchors) in DIMENSIONS.items():
        steps = geval_steps(args, prefix) if args.geval_steps else None
        scale = Scale.rubric(anchors) if args.scale == "rubric" else None  # None: yes / partly / no
        checks[dim] = Criteria(dim, criterion, scale=scale, inputs=("contexts", "answer"), steps=steps,
                               prefer_reason=False)
    return checks


async def summeval_one(row: dict, judge, checks: dict[str, Criteria]) -> dict:
    sample = parse_sample({"answer": row["summary"], "contexts": [row["article"]]})
    record = {"id": f"{row['article_id']}/{row['summary_id']}", "article": row["article_id"]}
    for dim, check in checks.items():  # one after another: the article is a prefix the next criterion reuses
        result = await check.run(sample, judge)
        label = result.details.get("label")
        record[dim] = {"human": row[dim], "weighted": result.score, "method": result.method,
                       "label_only": check.scale.options.get(label) if result.score is not None else None,
                       "steps_source": result.details.get("steps_source")}
    return record


# -- metrics ------------------------------------------------------------------------------------------
def ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def pearson(x: list[float], y: list[float]) -> float:
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sx = math.sqrt(sum((a - mx) ** 2 for a in x))
    sy = math.sqrt(sum((b - my) ** 2 for b in y))
    return float("nan") if sx == 0 or sy == 0 else sum((a - mx) * (b - my) for a, b in zip(x, y)) / (sx * sy)


def spearman(x: list[float], y: list[float]) -> float:
    return pearson(ranks(x), ranks(y))


def kendall(x: list[float], y: list[float]) -> float:
    """Kendall's tau-b (ties in either list handled)."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return float("nan") if denominator == 0 else (concordant - discordant) / denominator


def summary_level(records: list[dict], dim: str, key: str, metric) -> tuple[float, int]:
    """The metric per article across its summaries, averaged over the articles where it is defined."""
    by_article: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for r in records:
        if r[dim][key] is not None:
            by_article[r["article"]].append((r[dim][key], r[dim]["human"]))
    values = [metric([p for p, _ in pairs], [h for _, h in pairs]) for pairs in by_article.values() if len(pairs) > 2]
    values = [v for v in values if not math.isnan(v)]
    return (sum(values) / len(values) if values else float("nan")), len(values)


def report_binary(records: list[dict]) -> None:
    print(f"{'':38} {'rows':>5} {'BA shipped':>11} {'BA criteria':>12} {'AUC shipped':>12} {'AUC criteria':>13}")
    groups = defaultdict(list)
    for r in records:
        groups[r["source"]].append(r)
    for name, items in [("all", records), *sorted(groups.items())]:
        cells = []
        for metric in ("ba", "auc"):
            for which in ("shipped", "criteria"):
                kept = [r for r in items if r[which]["score"] is not None]
                y, s = [r["label"] for r in kept], [r[which]["score"] for r in kept]
                cells.append(balanced_accuracy(y, [int(v >= 0.5) for v in s]) if metric == "ba" else auc(y, s))
        print(f"{name[:38]:38} {len(items):5d} {cells[0]:11.3f} {cells[1]:12.3f} {cells[2]:12.3f} {cells[3]:13.3f}")
    for which in ("shipped", "criteria"):
        methods = Counter(r[which]["method"] for r in records)
        steps = Counter(r[which]["steps_source"] for r in records if r[which]["steps_source"])
        print(f"{which}: methods {dict(methods)}" + (f", steps {dict(steps)}" if steps else ""))


def report_summeval(records: list[dict]) -> dict[str, Any]:
    print(f"{'dimension':12} {'articles':>8} {'rho weighted':>13} {'rho label':>10} {'tau weighted':>13} "
          f"{'tau label':>10}  methods")
    summary: dict[str, Any] = {}
    for dim in DIMENSIONS:
        rho_w, n = summary_level(records, dim, "weighted", spearman)
        rho_l, _ = summary_level(records, dim, "label_only", spearman)
        tau_w, _ = summary_level(records, dim, "weighted", kendall)
        tau_l, _ = summary_level(records, dim, "label_only", kendall)
        methods = dict(Counter(r[dim]["method"] for r in records))
        summary[dim] = {"spearman_weighted": rho_w, "spearman_label": rho_l, "kendall_weighted": tau_w,
                        "kendall_label": tau_l, "articles": n, "methods": methods}
        print(f"{dim:12} {n:8d} {rho_w:13.3f} {rho_l:10.3f} {tau_w:13.3f} {tau_l:10.3f}  {methods}")
    mean = {key: sum(summary[d][key] for d in DIMENSIONS) / len(DIMENSIONS)
            for key in ("spearman_weighted", "spearman_label", "kendall_weighted", "kendall_label")}
    print(f"{'average':12} {'':8} {mean['spearman_weighted']:13.3f} {mean['spearman_label']:10.3f} "
          f"{mean['kendall_weighted']:13.3f} {mean['kendall_label']:10.3f}")
    return {**summary, "average": mean}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("task", choices=("relevancy", "support", "summeval"))
    parser.add_argument("--provider", default="local", help="'local', 'scripted' or a litellm provider")
    parser.add_argument("--model", help="GGUF path for local, model name for an API provider")
    parser.add_argument("--api-base", help="an API provider's server; with --provider local, a running `lvf serve`")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--no-heads", action="store_true", help="local: the prompt alone, not the learned heads")
    parser.add_argument("--limit", type=int, help="relevancy, support: rows, stratified by source and label")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--fold", default="0", help="relevancy: the held-out fold of questions, or 'all'")
    parser.add_argument("--evidence-chars", type=int, default=600, help="support: evidence budget")
    parser.add_argument("--articles", type=int, default=100, help="summeval: the first N articles (16 summaries each)")
    parser.add_argument("--skip-articles", type=int, default=0, help="summeval: start after the first N articles")
    parser.add_argument("--scale", choices=("rubric", "three"), default="rubric",
                        help="summeval: the 1-5 rubric, or the default yes / partly / no")
    parser.add_argument("--geval-steps", action="store_true", help="summeval: G-Eval's evaluation steps")
    parser.add_argument("--judge-dev", type=Path, default=default_judge_dev())
    parser.add_argument("--mirror-root", type=Path, default=default_mirror_root())
    parser.add_argument("--summeval-git", type=Path, help="git dir of the SummEval snapshot")
    parser.add_argument("--geval-git", type=Path, help="git dir of the G-Eval snapshot")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--concurrency", type=int, default=1,
                        help="rows at once (1: an article's summaries in a row, so the local judge reuses its prefix)")
    parser.add_argument("--out", type=Path, help="one JSON line per row")
    parser.add_argument("--json", type=Path, help="the summary as JSON (summeval)")
    args = parser.parse_args(argv)

    judge = make_judge(args)
    if args.task == "summeval":
        rows, checks = summeval_rows(args), summeval_checks(args)
        one = lambda row: summeval_one(row, judge, checks)  # noqa: E731
    else:
        rows = relevancy_rows(args) if args.task == "relevancy" else support_rows(args)
        handler = relevancy_one if args.task == "relevancy" else support_one
        one = lambda row: handler(row, judge, args)  # noqa: E731
    print(f"{args.task}: {len(rows)} rows, judge {judge.name}", file=sys.stderr)
    started = time.perf_counter()
    records = asyncio.run(judge_rows(rows, one, args.concurrency))
    print(f"{len(records)} rows in {time.perf_counter() - started:.1f}s")
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    if args.task == "summeval":
        summary = report_summeval(records)
        if args.json:
            args.json.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    else:
        report_binary(records)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
