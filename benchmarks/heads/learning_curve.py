"""Measure a verdict head on held-out questions or sources, and how it grows with its training rows.

    python benchmarks/heads/learning_curve.py --task answer_relevancy
    python benchmarks/heads/learning_curve.py --task answer_relevancy --fractions 0.25 0.5 0.75 1
    python benchmarks/heads/learning_curve.py --task answer_relevancy --hold-out sources

``fit_heads.py`` holds out a whole source; this holds out questions: rows are split into folds by
their ``group`` (a question; a row without one is its own), every source is in the fitting, and a
fold's head is fitted without any row whose question is in the fold, nor any row whose answer was
borrowed from such a question (``answer_from_group``), so no question of the test fold was seen
while fitting. The head is ``fit_heads.Head`` with the task's side signals, decided at probability
0.5. With ``--fractions``, each fold's fitting rows are subsampled (``--draws`` seeded draws each)
to draw the learning curve: if it is flat, more rows of the same kind will not move the number.
``--hold-out sources`` holds out a whole source at a time instead, as ``fit_heads.py`` does. With
all rows, it also prints two ceilings: each held-out part's balanced accuracy at the best threshold
chosen on that part itself, and, for answer relevancy, the score without the borrowed answers that
are short answers of the kind the question asks for (``build_data.type_matched``: by the definition,
wrong but on topic, though labelled off topic).
"""

from __future__ import annotations

import argparse
import sys
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "training"))  # the fitting code it measures

from extract_features import default_out  # noqa: E402
from fit_heads import SIDE, Head, balanced_accuracy, load_rows, positive_labels, side_features  # noqa: E402
from readout import label_rows  # noqa: E402

from llm_validation_framework.judges.local.heads import label_logprobs  # noqa: E402


def fold_of(group: str, folds: int) -> int:
    """A stable fold for a question (crc32, so every run and machine splits the same way)."""
    return zlib.crc32(group.encode("utf-8")) % folds


def held_out_predictions(hidden, side, y, test_fold, borrowed_fold, c, fraction, rng) -> np.ndarray:
    """Every row scored by the head fitted without its fold (and with a ``fraction`` of the rest)."""
    predicted = np.full(len(y), np.nan)
    for k in sorted(set(test_fold.tolist())):
        test = test_fold == k
        train = np.flatnonzero(~test & (borrowed_fold != k))
        if fraction < 1:
            train = rng.choice(train, int(len(train) * fraction), replace=False)
        predicted[test] = Head(c).fit(hidden[train], side[train], y[train]).predict(hidden[test], side[test])
    return predicted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="answer_relevancy", choices=sorted(SIDE))
    parser.add_argument("--features", type=Path, default=default_out())
    parser.add_argument("--model", default=None, help="GGUF path (default: the package's default model)")
    parser.add_argument("--c", type=float, default=0.001)
    parser.add_argument("--hold-out", choices=("questions", "sources"), default="questions")
    parser.add_argument("--folds", type=int, default=5, help="folds by question")
    parser.add_argument("--fractions", type=float, nargs="+", default=[1.0],
                        help="shares of each fold's fitting rows to fit on (a learning curve)")
    parser.add_argument("--draws", type=int, default=3, help="seeded subsamples per fraction below 1")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    from llm_validation_framework.judges.local.model_file import resolve_model_path

    rows = load_rows(args.task, args.features)
    if not rows:
        raise SystemExit(f"no features for {args.task} under {args.features}: run extract_features.py first")
    labels = rows[0]["labels"]
    ids, readout_rows = label_rows(str(resolve_model_path(args.model)), labels)
    hidden = np.stack([r["vector"] for r in rows])
    y = np.array([r["y"] for r in rows])
    sources = np.array([r["source"] for r in rows])
    logp = label_logprobs(hidden, readout_rows, [len(ids[label]) for label in labels])
    side = side_features(args.task, rows, np.exp(logp[:, positive_labels(labels)]).sum(axis=1), SIDE[args.task])
    # a row without a group (judge-dev's own support rows) is its own question
    groups = [r["row"].get("group", r["id"]) for r in rows]
    if args.hold_out == "questions":
        test_fold = np.array([fold_of(g, args.folds) for g in groups])
        borrowed_fold = np.array([fold_of(r["row"].get("answer_from_group", g), args.folds)
                                  for r, g in zip(rows, groups)])
    else:
        test_fold = borrowed_fold = np.unique(sources, return_inverse=True)[1]
    rng = np.random.default_rng(args.seed)
    parts = f"{args.folds} folds by question" if args.hold_out == "questions" else "one source held out at a time"
    print(f"{args.task}: {len(rows)} rows, {parts}, C={args.c:g}")
    for fraction in args.fractions:
        draws = []
        for _ in range(args.draws if fraction < 1 else 1):
            predicted = held_out_predictions(hidden, side, y, test_fold, borrowed_fold, args.c, fraction, rng)
            pooled = balanced_accuracy(y, (predicted >= 0.5).astype(int))
            per_source = {s: balanced_accuracy(y[sources == s], (predicted[sources == s] >= 0.5).astype(int))
                          for s in sorted(set(sources))}
            draws.append((pooled, per_source))
        mean = float(np.mean([d[0] for d in draws]))
        cells = " ".join(f"{s}={np.mean([d[1][s] for d in draws]):.3f}" for s in sorted(set(sources)))
        print(f"fitting rows x{fraction:g}: pooled balanced accuracy {mean:.3f} "
              f"({', '.join(f'{d[0]:.3f}' for d in draws)})  {cells}")
        if fraction == 1:
            print_ceilings(rows, y, sources, predicted, args.task)
    return 0


def print_ceilings(rows: list[dict], y: np.ndarray, sources: np.ndarray, predicted: np.ndarray, task: str) -> None:
    """What a better threshold, or labels that follow the definition, would give the same predictions."""
    best = {s: max(balanced_accuracy(y[sources == s], (predicted[sources == s] >= t).astype(int))
                   for t in np.linspace(0.05, 0.95, 91)) for s in sorted(set(sources))}
    print("  best threshold per source, chosen on that source itself: "
          + " ".join(f"{s}={v:.3f}" for s, v in best.items()))
    if task != "answer_relevancy":
        return
    from build_data import type_matched, wh_type

    ambiguous = np.array([r["row"].get("kind") == "other" and type_matched(
        wh_type(r["row"]["question"]), r["row"]["answer_from_question"], r["row"]["answer"]) for r in rows])
    keep = ~ambiguous
    print(f"  without the {int(ambiguous.sum())} type-matched borrowed answers: pooled "
          f"{balanced_accuracy(y[keep], (predicted[keep] >= 0.5).astype(int)):.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
