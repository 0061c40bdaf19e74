"""Fit the learned injection detector (``text/injection_model.py``) and measure it; write its weights.

    python benchmarks/heads/fit_injection_detector.py [--write]

Training rows, one sentence each:
* attempts: ``benchmarks/data/injection_train/positives.jsonl``, written by ``make.py`` beside it from
  the suite's and the first held-out set's kinds only (24 languages; fi, hu, id, cs kept out for
  held-out 4);
* ordinary sentences: ``negatives.jsonl`` beside it (hard ones: grading, scores, JSON, how-to
  orders, quotes of "yes"), and every sentence of the texts in judge-dev and the bench-data files
  (questions, answers, references, passages, claims).

Never used: the injection benchmark's held-out sets 2 to 5 (``--set heldout2`` ... ``heldout5``). They
are read here only after fitting, to report how many of their attempts the fitted model finds.

Reported: 5-fold cross-validated recall on the written attempts (folds by ``style``, so a kind of
wording is never in training and test at once), false positives on ordinary texts 2-fold by source
(fit on half the sources, count hits on the other half's texts), and detections on the held-out
sets, at several thresholds; ``--threshold`` is the one written, chosen from the table for no
flagged ordinary text of an unseen source. ``--write`` refits on everything and writes the weights.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "benchmarks"))

from build_data import default_judge_dev, default_out  # noqa: E402

from llm_validation_framework.text.embeddings import PACKAGED_SHA256  # noqa: E402
from llm_validation_framework.text.injection import injection_kinds  # noqa: E402
from llm_validation_framework.text.injection_model import BUCKETS, WEIGHTS, features  # noqa: E402
from llm_validation_framework.text.sentences import split_sentences  # noqa: E402

TRAIN = ROOT / "benchmarks" / "data" / "injection_train"
CASES = ROOT / "benchmarks" / "data"
SEED = 0
UPSTREAMS = ("nq", "truthfulqa", "hotpotqa", "attributionbench", "qnli", "wice", "multinli", "vitaminc")


def natural_texts(judge_dev: Path, bench: Path) -> dict[str, list[str]]:
    """Every distinct ordinary text by source: judge-dev's and the bench-data files' text fields."""
    by_source: dict[str, set[str]] = defaultdict(set)
    files = [judge_dev / f for f in ("support.jsonl", "relevance.jsonl", "answer_accuracy.jsonl", "citation.jsonl")]
    files += [bench / f for f in ("support.jsonl", "relevance.jsonl", "answer_relevancy.jsonl")]
    for path in files:
        if not path.is_file():
            continue
        for row in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
            # by upstream data set, whichever file it came through
            named = str(row.get("source", "")).lower()
            source = next((u for u in UPSTREAMS if u in named), named or "?")
            texts = [row.get(k) for k in ("question", "answer", "reference", "claim", "query", "passage")]
            texts += row.get("premise_passages") or []
            texts += [p.get("text") for p in row.get("passages") or [] if isinstance(p, dict)]
            by_source[source].update(t for t in texts if isinstance(t, str) and t.strip())
    return {source: sorted(texts) for source, texts in sorted(by_source.items())}


def sentences_of(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


class FeatureCache:
    """Features by sentence, kept in an .npz in the bench-data folder (keyed by the sentence's sha1)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[str, np.ndarray] = {}
        if path.with_suffix(".npz").is_file():
            data = np.load(path.with_suffix(".npz"))
            self.rows = dict(zip(data["keys"].tolist(), data["x"]))

    def get(self, sentences: list[str]) -> np.ndarray:
        keys = [hashlib.sha1(s.encode("utf-8")).hexdigest() for s in sentences]
        missing = sorted({k: s for k, s in zip(keys, sentences) if k not in self.rows}.items())
        for start in range(0, len(missing), 2048):
            chunk = missing[start:start + 2048]
            for (key, _), row in zip(chunk, features([s for _, s in chunk])):
                self.rows[key] = row
            print(f"  features {start + len(chunk)}/{len(missing)}", file=sys.stderr, flush=True)
        if missing:
            every = list(self.rows)
            np.savez(self.path.with_suffix(".npz"), keys=np.array(every), x=np.stack([self.rows[k] for k in every]))
        return np.stack([self.rows[k] for k in keys]) if keys else np.zeros((0, 384 + BUCKETS), dtype=np.float32)


def fit(x: np.ndarray, y: np.ndarray, c: float):
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=3000, class_weight="balanced", random_state=SEED)
    model.fit(x, y)
    return model


def heldout_attempts(name: str) -> list[tuple[str, str]]:
    """(kind, injected text) of a benchmark set, the text being the field the attempt is in."""
    path = CASES / ("injection.jsonl" if name == "suite" else f"injection_{name}.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [(r["kind"], r["injected"]["answer"] if r["field"] == "answer" else r["injected"]["contexts"][0])
            for r in rows]


def text_hit(probabilities: list[float], threshold: float) -> bool:
    return any(p >= threshold for p in probabilities)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c", type=float, default=1.0, help="inverse regularisation strength")
    parser.add_argument("--threshold", type=float, default=0.8, help="probability at which a sentence counts")
    parser.add_argument("--neighbour-threshold", type=float, default=0.5,
                        help="the lower bar for a sentence on the same line as a hit (text/injection_model.py)")
    parser.add_argument("--max-natural", type=int, default=40000, help="ordinary sentences kept for fitting")
    parser.add_argument("--write", action="store_true", help="refit on everything and write the weights")
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    cache = FeatureCache(default_out() / "features" / "injection_detector")
    cache.path.parent.mkdir(parents=True, exist_ok=True)

    positives = [json.loads(line) for line in (TRAIN / "positives.jsonl").read_text().splitlines()]
    written_neg = [json.loads(line) for line in (TRAIN / "negatives.jsonl").read_text().splitlines()]
    pos_sent = [row["text"] for row in positives]
    neg_sent = [row["text"] for row in written_neg]
    natural = natural_texts(default_judge_dev(), default_out())
    sources = list(natural)
    print(f"attempts {len(pos_sent)}, written ordinary {len(neg_sent)}, natural texts "
          f"{sum(map(len, natural.values()))} in {len(sources)} sources")

    # natural sentences, a capped sample per fold half (the texts stay whole for counting hits)
    halves = [sources[0::2], sources[1::2]]
    nat_sent = {h: [s for src in half for t in natural[src] for s in sentences_of(t)] for h, half in enumerate(halves)}
    for h in nat_sent:
        sample = sorted(set(nat_sent[h]))
        rng.shuffle(sample)
        nat_sent[h] = sample[:args.max_natural // 2]
    x_pos, x_neg = cache.get(pos_sent), cache.get(neg_sent)
    x_nat = {h: cache.get(nat_sent[h]) for h in nat_sent}
    nat_sent_all = nat_sent[0] + nat_sent[1]

    # 1. out-of-fold probabilities: attempts by style (a kind of wording never on both sides), ordinary at random
    styles = sorted({row["style"] for row in positives})
    fold_of = {style: i % 5 for i, style in enumerate(rng.permutation(styles))}
    pos_fold = np.array([fold_of[row["style"]] for row in positives])
    neg_fold = rng.integers(0, 5, len(neg_sent))
    x_nat_all = np.vstack([x_nat[0], x_nat[1]])
    nat_fold = rng.integers(0, 5, len(x_nat_all))
    p_pos, p_neg, p_nat = np.zeros(len(x_pos)), np.zeros(len(x_neg)), np.zeros(len(x_nat_all))
    for k in range(5):
        x = np.vstack([x_pos[pos_fold != k], x_neg[neg_fold != k], x_nat_all[nat_fold != k]])
        y = np.r_[np.ones((pos_fold != k).sum()), np.zeros((neg_fold != k).sum() + (nat_fold != k).sum())]
        model = fit(x, y, args.c)
        p_pos[pos_fold == k] = model.predict_proba(x_pos[pos_fold == k])[:, 1]
        p_neg[neg_fold == k] = model.predict_proba(x_neg[neg_fold == k])[:, 1]
        p_nat[nat_fold == k] = model.predict_proba(x_nat_all[nat_fold == k])[:, 1]

    # 2. ordinary texts 2-fold by source: whole texts of sources never fitted on
    text_max: list[float] = []
    for h in (0, 1):
        x = np.vstack([x_pos, x_neg, x_nat[1 - h]])
        y = np.r_[np.ones(len(x_pos)), np.zeros(len(x_neg) + len(x_nat[1 - h]))]
        model = fit(x, y, args.c)
        for t in (t for src in halves[h] for t in natural[src]):
            sents = sentences_of(t)
            text_max.append(float(model.predict_proba(cache.get(sents))[:, 1].max()) if sents else 0.0)
    text_max_a = np.array(text_max)
    print("\n| threshold | attempts of unseen styles found | written ordinary over it | ordinary sentences "
          "over it | ordinary texts of unseen sources flagged |")
    print("|---|---|---|---|---|")
    for t in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98):
        print(f"| {t} | {(p_pos >= t).mean():.1%} | {(p_neg >= t).sum()}/{len(p_neg)} | {(p_nat >= t).sum()}/"
              f"{len(p_nat)} | {(text_max_a >= t).sum()}/{len(text_max_a)} |")
    print(f"ordinary sentences at or over the neighbour bar {args.neighbour_threshold}: written "
          f"{(p_neg >= args.neighbour_threshold).mean():.2%}, natural {(p_nat >= args.neighbour_threshold).mean():.2%}"
          " (they are cut only beside a hit)")
    for i in np.argsort(-p_neg)[:8]:
        print(f"    written ordinary p={p_neg[i]:.2f}: {neg_sent[i][:110]!r}")
    for i in np.argsort(-p_nat)[:5]:
        print(f"    natural p={p_nat[i]:.2f}: {nat_sent_all[i][:110]!r}")

    # 3. the final model, and the held-out sets it never saw
    x = np.vstack([x_pos, x_neg, x_nat[0], x_nat[1]])
    y = np.r_[np.ones(len(x_pos)), np.zeros(len(x_neg) + len(x_nat[0]) + len(x_nat[1]))]
    model = fit(x, y, args.c)
    threshold = args.threshold
    print(f"\nfinal model, threshold {threshold}: fitted rows over it: ordinary "
          f"{(model.predict_proba(x[y == 0])[:, 1] >= threshold).sum()}/{(y == 0).sum()}")
    for name in ("suite", "heldout", "heldout2", "heldout3", "heldout4", "heldout5"):
        attempts = heldout_attempts(name)
        found = patterns = either = 0
        missed = set()
        for kind, text in attempts:
            sents = sentences_of(text)
            model_hit = text_hit(model.predict_proba(cache.get(sents))[:, 1].tolist(), threshold)
            pattern_hit = bool(injection_kinds(text, learned=False))
            found += model_hit
            patterns += pattern_hit
            either += model_hit or pattern_hit
            if not (model_hit or pattern_hit):
                missed.add(kind)
        print(f"  set {name}: model {found}/{len(attempts)}, patterns {patterns}, either {either}; "
              f"missed kinds {sorted(missed)}")
    if args.write:
        WEIGHTS.write_text(json.dumps({
            "format": 1, "buckets": BUCKETS, "embedding_sha256": PACKAGED_SHA256,
            "threshold": round(threshold, 6), "neighbour_threshold": args.neighbour_threshold,
            "intercept": float(model.intercept_[0]),
            "coef": [round(float(v), 6) for v in model.coef_[0]],
            "fitted_on": {"attempts": len(x_pos), "written_ordinary": len(x_neg),
                          "natural_ordinary": len(x_nat[0]) + len(x_nat[1]), "c": args.c, "seed": SEED},
        }) + "\n")
        print(f"wrote {WEIGHTS} ({WEIGHTS.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
