"""Fit the local judge's verdict heads and measure them leave-one-source-out.

    python training/fit_heads.py --task support              # LOSO report only
    python training/fit_heads.py --task support --write      # also write the shipped head

Reads the features of ``extract_features.py`` (hidden state at the verdict position, per row)
and the rows' texts, and compares, per source held out (fit on every other source):

* ``prompt``: the model's own label probability for the head's prompt (read from the hidden
  state with the output rows of the label tokens), threshold fitted on the other sources;
* ``overlap``: the word-overlap baseline, threshold fitted on the other sources;
* ``probe``: ridge logistic regression on the hidden state alone;
* ``head``: logistic regression on the hidden state plus the prompt's label log-odds and the
  overlap feature (what ships), decided at probability 0.5.

Balanced accuracy and AUC per held-out source, then the mean over sources. Seeded; needs
scikit-learn and gguf (`pip install -e ".[bench,local]"`; not needed to use a head). ``--write`` fits the head
on every source and writes ``llm_validation_framework/judges/local/data/heads.npz`` (merged
with the heads of other tasks already there), keyed to the model's sha256.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from build_data import default_judge_dev  # noqa: E402
from extract_features import default_out  # noqa: E402
from readout import label_rows  # noqa: E402
from ship import HEAD_NAMES, canonical_of, prompt_hash_of, write_head  # noqa: E402

from llm_validation_framework.judges.local.heads import label_logprobs  # noqa: E402
from llm_validation_framework.text.overlap import answer_coverage, word_overlap  # noqa: E402
from llm_validation_framework.text.similarity import similarity  # noqa: E402

JUDGE_DEV = default_judge_dev()
POSITIVE = {"supported", "1", 1, "correct"}


def load_rows(task: str, feature_dir: Path) -> list[dict]:
    """Every extracted row of ``task`` with its hidden state and the row's own fields."""
    texts: dict[str, dict] = {}
    data_files = {"support": "support", "relevance": "relevance", "answer_accuracy": "answer_accuracy",
                  "answer_relevancy": "answer_relevancy"}[task]
    for folder in (JUDGE_DEV, feature_dir.parent):
        path = folder / f"{data_files}.jsonl"
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    texts[row["id"]] = row
    out, seen = [], set()
    for index in sorted((feature_dir / task).glob("*.jsonl")):
        for line in index.read_text().splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            row = texts.get(record["id"])
            if row is None or record["id"] in seen:  # a resumed extraction may repeat a row: count it once
                continue
            seen.add(record["id"])
            vector = np.load(feature_dir / task / "vectors" / record["vector"]).astype(np.float32)
            # the label is the data file's, not the one recorded at extraction: a rebuild may relabel a row
            label = row.get("label", record["label"])
            out.append({**record, "label": label, "row": row, "vector": vector, "y": int(label in POSITIVE)})
    return out


def overlap_feature(task: str, row: dict) -> float:
    """The deterministic baseline each check can compute without a model."""
    if task == "support":
        return word_overlap(row["claim"], row["premise_passages"])
    if task == "relevance":
        return word_overlap(row["query"], [row["passage"]])
    if task == "answer_relevancy":
        return word_overlap(row["question"], [row["answer"]])
    refs = row.get("references_all") or row.get("correct_answers") or [row["reference"]]
    coverage = answer_coverage(row["answer"], refs, row["question"])
    return 0.5 if coverage is None else coverage


def similarity_feature(task: str, row: dict) -> float:
    """The question's closeness in meaning to the answer or passage (what the check defers to a head)."""
    if task == "relevance":
        return similarity(row["query"], [row["passage"]])
    if task == "answer_relevancy":
        return similarity(row["question"], [row["answer"]])
    raise ValueError(f"no similarity signal for {task}")


#: the side signals each task's head reads beside the hidden state (the check must send them)
SIDE = {"support": ("prompt_logodds", "overlap"), "answer_accuracy": ("prompt_logodds", "overlap"),
        "relevance": ("prompt_logodds", "overlap", "similarity"),
        "answer_relevancy": ("prompt_logodds", "overlap", "similarity")}


def side_features(task: str, rows: list[dict], p_prompt: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    """The side signals ``names`` of every row, one column each (the prompt's log-odds from ``p_prompt``)."""
    columns = {"prompt_logodds": lambda: np.log(np.clip(p_prompt, 1e-6, 1)) - np.log(np.clip(1 - p_prompt, 1e-6, 1)),
               "overlap": lambda: np.array([overlap_feature(task, r["row"]) for r in rows]),
               "similarity": lambda: np.array([similarity_feature(task, r["row"]) for r in rows])}
    return np.stack([columns[name]() for name in names], axis=1) if names else np.zeros((len(rows), 0))


def positive_labels(labels: list[str]) -> list[int]:
    """Indices of the labels that count as a positive verdict (the first, or the top rating)."""
    if labels[0] in ("0", "1", "2") or labels == ["0", "2", "4"]:
        return [len(labels) - 1]
    return [0]


def balanced_accuracy(y: np.ndarray, predicted: np.ndarray) -> float:
    tpr = (predicted[y == 1] == 1).mean() if (y == 1).any() else np.nan
    tnr = (predicted[y == 0] == 0).mean() if (y == 0).any() else np.nan
    return float(np.nanmean([tpr, tnr]))


def auc(y: np.ndarray, score: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, score)) if len(set(y.tolist())) == 2 else float("nan")


def best_threshold(y: np.ndarray, score: np.ndarray) -> float:
    candidates = np.unique(score)
    scores = [balanced_accuracy(y, (score >= t).astype(int)) for t in candidates]
    return float(candidates[int(np.argmax(scores))])


class Head:
    """Standardised features -> logistic regression; the hidden state and the side features."""

    def __init__(self, c: float, side: bool = True) -> None:
        self.c = c
        self.side = side

    def features(self, hidden: np.ndarray, side: np.ndarray) -> np.ndarray:
        return np.hstack([hidden, side]) if self.side else hidden

    def fit(self, hidden: np.ndarray, side: np.ndarray, y: np.ndarray) -> Head:
        from sklearn.linear_model import LogisticRegression

        x = self.features(hidden, side)
        self.mean = x.mean(axis=0)
        self.scale = x.std(axis=0) + 1e-6
        if self.side and side.shape[1]:  # the few side features weigh like many hidden dimensions
            self.scale[-side.shape[1]:] /= np.sqrt(hidden.shape[1] / 8)
        self.model = LogisticRegression(C=self.c, class_weight="balanced", max_iter=5000)
        self.model.fit((x - self.mean) / self.scale, y)
        return self

    def predict(self, hidden: np.ndarray, side: np.ndarray) -> np.ndarray:
        return self.model.predict_proba((self.features(hidden, side) - self.mean) / self.scale)[:, 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", required=True,
                        choices=("support", "relevance", "answer_accuracy", "answer_relevancy"))
    parser.add_argument("--features", type=Path, default=default_out())
    parser.add_argument("--model", default=None, help="GGUF path (default: the package's default model)")
    parser.add_argument("--c", type=float, nargs="+", default=[0.001, 0.003, 0.01, 0.03])
    parser.add_argument("--test-only", nargs="*", default=["qnli-squad"],
                        help="sources never fitted on: scored by the head fitted on all the others")
    parser.add_argument("--side", nargs="*", default=None,
                        help="side signals the head reads beside the hidden state (default: the task's SIDE)")
    parser.add_argument("--write", action="store_true", help="fit on every source and write the shipped head")
    parser.add_argument("--split-only", action="store_true",
                        help="support: write only the contradicted-vs-unverifiable split head (the verdict stays "
                             "the prompt's where its head does not beat today's check)")
    args = parser.parse_args(argv)
    if args.split_only and (args.task != "support" or not args.write):
        parser.error("--split-only goes with --task support --write")

    from llm_validation_framework.judges.local.model_file import resolve_model_path

    model_path = str(resolve_model_path(args.model))
    rows = load_rows(args.task, args.features)
    if not rows:
        raise SystemExit(f"no features for {args.task} under {args.features}: run extract_features.py first")
    labels = rows[0]["labels"]
    side_names = tuple(SIDE[args.task] if args.side is None else args.side)
    unknown = set(side_names) - set(SIDE[args.task])
    if unknown:
        parser.error(f"--side: {args.task} checks send only {', '.join(SIDE[args.task])}, not {', '.join(unknown)}")
    ids, readout_rows = label_rows(model_path, labels)
    sizes = [len(ids[label]) for label in labels]
    hidden = np.stack([r["vector"] for r in rows])
    y = np.array([r["y"] for r in rows])
    sources = np.array([r["source"] for r in rows])
    logp = label_logprobs(hidden, readout_rows, sizes)
    pos = positive_labels(labels)
    p_prompt = np.exp(logp[:, pos]).sum(axis=1)
    side = side_features(args.task, rows, p_prompt, side_names)
    overlap = side_features(args.task, rows, p_prompt, ("overlap",))[:, 0]

    print(f"{args.task}: {len(rows)} rows, labels {labels}, readout tokens {sizes}")
    if args.split_only:  # the verdict heads' LOSO needs both verdicts per source; the split head has its own
        write_split_head(rows, hidden, logp, labels, ids, readout_rows, sizes, model_path, args.c)
        return 0
    by_source = defaultdict(dict)
    predictions: dict[tuple[str, str], np.ndarray] = {}
    fit_sources = sorted(set(sources) - set(args.test_only))
    for held in sorted(set(sources)):
        test = sources == held
        train = ~test & ~np.isin(sources, args.test_only)
        if len(set(y[test].tolist())) < 2:
            continue
        result = by_source[held]
        result["n"] = int(test.sum())
        for name, score in (("prompt", p_prompt), ("overlap", overlap)):
            t = best_threshold(y[train], score[train])
            result[name] = (balanced_accuracy(y[test], (score[test] >= t).astype(int)), auc(y[test], score[test]))
        for c in args.c:
            for name, use_side in (("probe", False), ("head", True)):
                head = Head(c, side=use_side).fit(hidden[train], side[train], y[train])
                p = head.predict(hidden[test], side[test])
                predictions[(f"{name}@{c:g}", held)] = p
                result[f"{name}@{c:g}"] = (balanced_accuracy(y[test], (p >= 0.5).astype(int)), auc(y[test], p))
    names = ["prompt", "overlap"] + [f"{n}@{c:g}" for c in args.c for n in ("probe", "head")]
    print(f"{'held-out source':40s} {'n':>4s} " + " ".join(f"{n:>15s}" for n in names))
    for held, result in sorted(by_source.items()):
        cells = " ".join(f"{result[n][0]:.3f}/{result[n][1]:.3f}".rjust(15) for n in names)
        print(f"{held[:40]:40s} {result['n']:4d} " + cells)
    fitted = [s for s in by_source if s in fit_sources]
    pooled = {}
    for name in names[2:]:
        truth = np.concatenate([y[sources == held] for held in fitted])
        scores = np.concatenate([predictions[(name, held)] for held in fitted])
        pooled[name] = (balanced_accuracy(truth, (scores >= 0.5).astype(int)), auc(truth, scores))
    print("pooled LOSO predictions (every fitted source's rows scored by the head fitted without it):")
    for name, (ba, au) in pooled.items():
        print(f"  {name:15s} balanced accuracy {ba:.3f}  AUC {au:.3f}")
    means = " ".join(
        f"{np.mean([by_source[s][n][0] for s in fitted]):.3f}/{np.nanmean([by_source[s][n][1] for s in fitted]):.3f}"
        .rjust(15)
        for n in names)
    print(f"{'mean over fitted sources (LOSO)':40s} {'':4s} " + means)
    best = max(args.c, key=lambda c: np.mean([by_source[s][f"head@{c:g}"][0] for s in fitted]))
    print(f"best C by LOSO balanced accuracy: {best:g}")
    if args.write:
        fit = ~np.isin(sources, args.test_only)
        head = Head(best).fit(hidden[fit], side[fit], y[fit])
        counts = {s: int((sources[fit] == s).sum()) for s in sorted(set(sources[fit]))}
        loso = {s: {"balanced_accuracy": round(by_source[s][f"head@{best:g}"][0], 4),
                    "auc": round(by_source[s][f"head@{best:g}"][1], 4), "rows": by_source[s]["n"]} for s in by_source}
        spec = {"check": rows[0]["check"], "prompt_hash": prompt_hash_of(args.task, rows[0]["row"]),
                "canonical": canonical_of(args.task),
                "labels": labels, "positive": pos, "side": list(side_names), "sizes": sizes,
                "intercept": float(head.model.intercept_[0]), "c": best, "role": "verdict",
                "fitted_on": f"{int(fit.sum())} labelled rows of {len(counts)} sources", "rows_per_source": counts,
                "leave_one_source_out": loso}
        arrays = {"readout": readout_rows.astype(np.float16), "mean": head.mean.astype(np.float32),
                  "scale": head.scale.astype(np.float32), "coef": head.model.coef_[0].astype(np.float32)}
        write_head(HEAD_NAMES[args.task], spec, arrays, model_path)
        if args.task == "support":
            write_split_head(rows, hidden, logp, labels, ids, readout_rows, sizes, model_path, args.c)
    return 0


def write_split_head(rows, hidden, logp, labels, ids, readout_rows, sizes, model_path, cs) -> None:
    """contradicted vs unverifiable, on the unsupported rows whose source tells them apart: measured
    leave one source out against the prompt's own reading, C chosen by that, then fitted on all."""
    kind = np.array([r.get("fine_label") for r in rows])
    mask = np.isin(kind, ["contradicted", "unverifiable"])
    if mask.sum() < 40:
        print(f"no split head: {int(mask.sum())} rows label contradicted vs unverifiable")
        return
    y = (kind[mask] == "contradicted").astype(int)
    pc = np.exp(logp[mask, 1])
    side = np.log(np.clip(pc, 1e-6, 1))[:, None] - np.log(np.clip(1 - pc, 1e-6, 1))[:, None]
    sources = np.array([r["source"] for r, m in zip(rows, mask) if m])
    ratio = pc / (pc + np.exp(logp[mask, 2]))
    loso: dict[float, dict[str, dict]] = {}
    for c in cs:
        for held in sorted(set(sources)):
            test = sources == held
            if test.all() or len(set(y[test].tolist())) < 2:
                continue
            p = Head(c).fit(hidden[mask][~test], side[~test], y[~test]).predict(hidden[mask][test], side[test])
            loso.setdefault(c, {})[held] = {
                "balanced_accuracy": round(balanced_accuracy(y[test], (p >= 0.5).astype(int)), 4),
                "auc": round(auc(y[test], p), 4), "rows": int(test.sum()),
                "prompt_balanced_accuracy": round(balanced_accuracy(y[test], (ratio[test] >= 0.5).astype(int)), 4)}
    for c, by in loso.items():
        print(f"split head C={c:g} LOSO: " + ", ".join(
            f"{s} {v['balanced_accuracy']:.3f}/{v['auc']:.3f} (prompt {v['prompt_balanced_accuracy']:.3f})"
            for s, v in by.items()))
    c = max(loso, key=lambda c: np.mean([v["balanced_accuracy"] for v in loso[c].values()])) if loso else cs[0]
    head = Head(c).fit(hidden[mask], side, y)
    sources = sorted(set(sources))
    spec = {"check": rows[0]["check"], "prompt_hash": prompt_hash_of("support", rows[0]["row"]), "labels": labels,
            "canonical": canonical_of("support"),
            "positive": [1], "side": ["prompt_logodds"], "sizes": sizes, "intercept": float(head.model.intercept_[0]),
            "c": c, "role": "split", "fitted_on": f"{int(mask.sum())} unsupported rows of {', '.join(sources)}",
            "leave_one_source_out": loso.get(c, {})}
    arrays = {"readout": readout_rows.astype(np.float16), "mean": head.mean.astype(np.float32),
              "scale": head.scale.astype(np.float32), "coef": head.model.coef_[0].astype(np.float32)}
    write_head("support_kind", spec, arrays, model_path)


if __name__ == "__main__":
    raise SystemExit(main())
