"""Fit the local judge's per-check score calibration (a Platt map) from judge_quality predictions.

    python benchmarks/judge_quality.py --task relevance --limit 200 --seed 7 --calibration none --out rel.jsonl
    python benchmarks/fit_calibration.py --check context_relevance rel.jsonl
    python benchmarks/judge_quality.py --task relevance --limit 100 --exclude rel.jsonl    # held-out rows

Why: the default local model rarely gives a rating scale's top value, so its expected ratings
bunch below 0.5 (relevance 0.13–0.36 on WiCE, whatever the label) and a fixed 0.5 threshold
calls everything negative, while the ranking (AUC) is good. A monotone map
``sigmoid(a * logit(score) + b)`` moves the decision point to where the labels separate without
changing the ranking. Each judge call of a row (both templates) is one training point with the
row's human label, because the judge calibrates every verdict of the check the same way.

``--template NAME`` fits on that template's verdicts only (e.g. answer accuracy's
``response_vs_reference``, the one template the local judge asks). ``--from-probabilities``
recomputes each verdict's raw expected rating from its label probabilities (numeric labels
scaled by the largest, yes = 1), so predictions made with the shipped calibration on serve too.

Prints (a, b) fitted on all given rows, and balanced accuracy at 0.5 of the check's score
(the mean of its calibrated template scores) cross-fitted: fitted on one half of the rows,
scored on the other, both ways, averaged over 20 random splits. Nothing here needs the model.

``--contradictions ROWS`` (rows of ``benchmarks/integrity/measure.py collect --stage
answer_accuracy``) checks the fitted map against "copy with one fact changed" answers: each
changed answer's template-1 rating is re-scored with the map and the check's coverage blend, and a
map that lets more than 5% of them pass is rejected (exit status 1), whatever its accuracy.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "integrity"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from constraint import changed_rows, enforce, pass_rate  # noqa: E402
from judge_quality import auc, balanced_accuracy  # noqa: E402

from llm_validation_framework.checks.answer_accuracy import ACCURACY_OPTIONS  # noqa: E402
from llm_validation_framework.judges.base import Verdict, VerdictRequest, blend_verdict  # noqa: E402


def logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def fit_platt(xs: list[float], ys: list[int], *, l2: float = 1e-3, iters: int = 200) -> tuple[float, float]:
    """Logistic regression of y on logit(x) by Newton's method (two parameters, tiny ridge)."""
    a, b = 1.0, 0.0
    zs = [logit(x) for x in xs]
    for _ in range(iters):
        ga = gb = haa = hab = hbb = 0.0
        for z, y in zip(zs, ys):
            q = 1 / (1 + math.exp(-(a * z + b)))
            d, w = q - y, q * (1 - q)
            ga += d * z
            gb += d
            haa += w * z * z
            hab += w * z
            hbb += w
        ga += l2 * a
        haa += l2
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        step_a = (hbb * ga - hab * gb) / det
        step_b = (haa * gb - hab * ga) / det
        a, b = a - step_a, b - step_b
        if abs(step_a) + abs(step_b) < 1e-10:
            break
    return a, b


def apply(a: float, b: float, x: float) -> float:
    return 1 / (1 + math.exp(-(a * logit(x) + b)))


def expected_rating(probabilities: dict[str, float]) -> float:
    """The raw expected rating of a verdict's label probabilities: 0/2/4 → /4, 0/1/2 → /2, yes/no → P(yes)."""
    labels = list(probabilities)
    if set(labels) <= {"yes", "no"}:
        values = {"yes": 1.0, "no": 0.0}
    else:
        top = max(float(label) for label in labels)
        values = {label: float(label) / top for label in labels}
    total = sum(probabilities.values())
    return sum(values[label] * p for label, p in probabilities.items()) / total


def picked_scores(record: dict, template: str | None = None, from_probabilities: bool = False) -> list[float]:
    scores = []
    for t in record.get("templates") or []:
        if template is not None and t.get("template") != template:
            continue
        if from_probabilities and t.get("probabilities"):
            scores.append(expected_rating(t["probabilities"]))
        elif t.get("score") is not None and not from_probabilities:
            scores.append(t["score"])
    return scores


def row_id(record: dict) -> str:
    """A row's id in a judge_quality prediction or a peers rows file ({"split", "row": {...}})."""
    return record["id"] if "id" in record else record["row"]["id"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("preds", type=Path, nargs="+",
                        help="judge_quality --out files, run with --calibration none "
                             "(or any, with --from-probabilities)")
    parser.add_argument("--check", required=True, help="the check name the map is for (e.g. context_relevance)")
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--template", help="fit on this template's verdicts only (default: every template)")
    parser.add_argument("--from-probabilities", action="store_true",
                        help="raw expected ratings from the label probabilities (predictions made with calibration on)")
    parser.add_argument("--contradictions", type=Path,
                        help="integrity rows (answer_accuracy stage): reject a map that passes contradicted answers")
    parser.add_argument("--exclude", type=Path, action="append", default=[],
                        help="leave out rows whose id is in this JSONL (e.g. rows kept for a held-out measurement)")
    args = parser.parse_args(argv)

    excluded = {row_id(json.loads(line)) for file in args.exclude for line in open(file, encoding="utf-8")
                if line.strip()}
    records = [json.loads(line) for path in args.preds for line in open(path, encoding="utf-8") if line.strip()]

    def template_scores(record: dict) -> list[float]:
        return picked_scores(record, args.template, args.from_probabilities)

    records = [r for r in records if r["id"] not in excluded and template_scores(r)]
    if len({r["label"] for r in records}) < 2:
        raise SystemExit("need rows of both labels")
    ys = [r["label"] for r in records]

    def points(rows: list[dict]) -> tuple[list[float], list[int]]:
        xs, labels = [], []
        for r in rows:
            for score in template_scores(r):
                xs.append(score)
                labels.append(r["label"])
        return xs, labels

    def row_score(r: dict, a: float, b: float) -> float:
        scores = template_scores(r)
        return sum(apply(a, b, s) for s in scores) / len(scores)

    raw = [sum(template_scores(r)) / len(template_scores(r)) for r in records]
    a, b = fit_platt(*points(records))
    print(f"{args.check}: {len(records)} rows, {sum(ys)} positive")
    print(f"raw:        BA@0.5 {balanced_accuracy(ys, [int(s >= 0.5) for s in raw]):.3f}  AUC {auc(ys, raw):.3f}")
    bas = []
    for seed in range(args.splits):
        order = list(range(len(records)))
        random.Random(seed).shuffle(order)
        halves = [order[: len(order) // 2], order[len(order) // 2:]]
        pred = [0] * len(records)
        for k in (0, 1):
            fa, fb = fit_platt(*points([records[i] for i in halves[1 - k]]))
            for i in halves[k]:
                pred[i] = int(row_score(records[i], fa, fb) >= 0.5)
        bas.append(balanced_accuracy(ys, pred))
    in_sample = balanced_accuracy(ys, [int(row_score(r, a, b) >= 0.5) for r in records])
    print(f"calibrated: BA@0.5 cross-fitted {sum(bas) / len(bas):.3f} (min {min(bas):.3f}, max {max(bas):.3f} "
          f"over {args.splits} splits); in-sample {in_sample:.3f}")
    threshold = 1 / (1 + math.exp(b / a)) if a > 0 else float("nan")
    print(f"fit on all rows: a={a:.4f} b={b:.4f}  (a raw score of {threshold:.3f} maps to 0.5)")
    print(json.dumps({args.check: [round(a, 4), round(b, 4)]}))
    if args.contradictions is not None:
        passed, total = pass_rate(changed_rows(args.contradictions, "answer_accuracy"),
                                  lambda row: mapped_accuracy(row, a, b) >= 0.5)
        if not enforce(f"{args.check} map a={a:.4f} b={b:.4f}", passed, total):
            return 1
    return 0


def mapped_accuracy(row: dict, a: float, b: float, weight: float = 0.5) -> float:
    """A collected answer-accuracy result re-scored with the map (a, b) and the shipped coverage blend."""
    check = next(c for c in row["checks"] if c["name"] == "answer_accuracy")
    rating = check["details"]["ratings"][0]
    probabilities = rating["probabilities"]
    request = VerdictRequest(check="answer_accuracy", instructions="", prompt="", options=ACCURACY_OPTIONS)
    verdict = Verdict(label=max(probabilities, key=probabilities.get), probabilities=probabilities,
                      score=apply(a, b, expected_rating(probabilities)), method="logprobs")
    coverage = check["details"].get("coverage")
    return verdict.score if coverage is None else blend_verdict(request, verdict, coverage, weight)


if __name__ == "__main__":
    raise SystemExit(main())
