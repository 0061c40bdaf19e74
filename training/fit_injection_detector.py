"""Fit the learned injection detector (``text/injection_model.py``) and measure it; write its weights.

    python training/fit_injection_detector.py [--write]

Training rows, one sentence each:
* attempts: ``training/data/injection_train/positives.jsonl``, written by ``make.py`` beside it from
  the suite's and the first held-out set's kinds, machine-formatted verdicts (log lines, key=value,
  CSV) and 35 languages (held-out 4 and 5's eleven among them; held-out 6 to 8's kept out);
* ordinary sentences: ``negatives.jsonl`` beside it (hard ones: grading, scores, JSON, how-to
  orders, quotes of "yes"), ``negatives_rubrics.jsonl`` (hand-written scoring rules for people),
  and every sentence of the texts in judge-dev and the bench-data files (questions, answers,
  references, passages, claims).

Never used: the injection benchmark's held-out sets 2 to 8 (``--set heldout2`` ... ``heldout8``); held-out
4 and 5's languages are training languages now, held-out 6 to 8's are not. The sets are read here only
after fitting, to report how many of their attempts the fitted model finds.

Two readings are fitted on the same rows: the first over MiniLM and character n-grams, the second
(for the sentences whose first probability reaches ``--floor``) adding the USE multilingual vector;
such a sentence counts with the higher of the two probabilities.
Every number below is of the two as the package runs them.

Reported: 5-fold cross-validated recall on the written attempts (folds by ``style``, so a kind of
wording is never in training and test at once); recall on attempts in a language no fitted row was
in (the non-English languages in 6 groups, each left out in turn with its ordinary rows); false
positives on ordinary texts 2-fold by source (fit on half the sources, count hits on the other
half's texts); the share of ordinary sentences that reach the floor (the second reading's cost); and
detections on the held-out sets, at several thresholds. ``--threshold`` is the one written, chosen
from the table for (almost) no flagged ordinary text of an unseen source (0.9: 4 of 8 562 with both
readings); ``--first-threshold`` is the first reading's when the second cannot run (0.9: none).
``--write`` refits on everything and writes the weights.
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
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from build_data import default_judge_dev, default_out  # noqa: E402
from manifest import record  # noqa: E402

from llm_validation_framework.text.embeddings import PACKAGED_SHA256  # noqa: E402
from llm_validation_framework.text.injection import injection_kinds  # noqa: E402
from llm_validation_framework.text.injection_model import BUCKETS, WEIGHTS, features  # noqa: E402
from llm_validation_framework.text.multilingual import DIMENSION, encode_multilingual, weights_sha256  # noqa: E402
from llm_validation_framework.text.sentences import split_sentences  # noqa: E402

TRAIN = HERE / "data" / "injection_train"
CASES = ROOT / "benchmarks" / "data"  # the evaluation sets, measured after fitting
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
    """Rows of ``make(sentences)`` by sentence, kept in an .npz in the bench-data folder (keyed by sha1)."""

    def __init__(self, path: Path, make, width: int) -> None:
        self.path, self.make, self.width = path, make, width
        self.rows: dict[str, np.ndarray] = {}
        if path.with_suffix(".npz").is_file():
            data = np.load(path.with_suffix(".npz"))
            self.rows = dict(zip(data["keys"].tolist(), data["x"]))

    def get(self, sentences: list[str]) -> np.ndarray:
        keys = [hashlib.sha1(s.encode("utf-8")).hexdigest() for s in sentences]
        missing = sorted({k: s for k, s in zip(keys, sentences) if k not in self.rows}.items())
        for start in range(0, len(missing), 2048):
            chunk = missing[start:start + 2048]
            for (key, _), row in zip(chunk, self.make([s for _, s in chunk])):
                self.rows[key] = row
            print(f"  features {start + len(chunk)}/{len(missing)}", file=sys.stderr, flush=True)
        if missing:
            every = list(self.rows)
            np.savez(self.path.with_suffix(".npz"), keys=np.array(every), x=np.stack([self.rows[k] for k in every]))
        return np.stack([self.rows[k] for k in keys]) if keys else np.zeros((0, self.width), dtype=np.float32)


def fit(x: np.ndarray, y: np.ndarray, c: float):
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=3000, class_weight="balanced", random_state=SEED)
    model.fit(x, y)
    return model


def heldout_attempts(name: str) -> list[tuple[str, str]]:
    """(kind, injected text) of a benchmark set, the text being the field the attempt is in."""
    if name == "suite":
        path = CASES / "injection.jsonl"
    else:  # held-out files carry two-digit numbers; the set named "heldout" is the first
        path = CASES / f"injection_heldout{int(name.removeprefix('heldout') or 1):02d}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [(r["kind"], r["injected"]["answer"] if r["field"] == "answer" else r["injected"]["contexts"][0])
            for r in rows]


def text_hit(probabilities: list[float], threshold: float) -> bool:
    return any(p >= threshold for p in probabilities)


def fit_pair(xa: np.ndarray, xu: np.ndarray, y: np.ndarray, c: float):
    """The first reading over ``xa``, the second over ``xa`` and ``xu``, on the same rows."""
    return fit(xa, y, c), fit(np.hstack([xa, xu]), y, c)


def cascade(pair, floor: float, xa: np.ndarray, use_rows) -> tuple[np.ndarray, np.ndarray]:
    """(as shipped, first reading alone): rows at or over the floor take the higher of the two readings."""
    first, second = pair
    alone = first.predict_proba(xa)[:, 1]
    shipped = alone.copy()
    screened = np.flatnonzero(alone >= floor)
    if screened.size:
        shipped[screened] = np.maximum(alone[screened],
                                       second.predict_proba(np.hstack([xa[screened], use_rows(screened)]))[:, 1])
    return shipped, alone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c", type=float, default=0.3, help="inverse regularisation strength")
    parser.add_argument("--threshold", type=float, default=0.9, help="probability at which a sentence counts")
    parser.add_argument("--first-threshold", type=float, default=0.9,
                        help="the bar of the first reading alone, when the multilingual model is missing")
    parser.add_argument("--floor", type=float, default=0.1,
                        help="first-reading probability from which the second reading decides")
    parser.add_argument("--neighbour-threshold", type=float, default=0.5,
                        help="the lower bar for a sentence on the same line as a hit (text/injection_model.py)")
    parser.add_argument("--max-natural", type=int, default=40000, help="ordinary sentences kept for fitting")
    parser.add_argument("--write", action="store_true", help="refit on everything and write the weights")
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    cache = FeatureCache(default_out() / "features" / "injection_detector", features, 384 + BUCKETS)
    use = FeatureCache(default_out() / "features" / "injection_detector_use", encode_multilingual, DIMENSION)
    cache.path.parent.mkdir(parents=True, exist_ok=True)

    positives = [json.loads(line) for line in (TRAIN / "positives.jsonl").read_text().splitlines()]
    written_neg = [json.loads(line) for path in sorted(TRAIN.glob("negatives*.jsonl"))
                   for line in path.read_text().splitlines()]
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
    rows = pos_sent + neg_sent + nat_sent[0] + nat_sent[1]
    xa, xu = cache.get(rows), use.get(rows)
    y = np.r_[np.ones(len(pos_sent)), np.zeros(len(rows) - len(pos_sent))]
    kind = np.array(["pos"] * len(pos_sent) + ["neg"] * len(neg_sent) + ["nat"] * (len(rows) - len(pos_sent)
                                                                                      - len(neg_sent)))
    half = np.r_[np.full(len(pos_sent) + len(neg_sent), -1), np.zeros(len(nat_sent[0])), np.ones(len(nat_sent[1]))]
    lang = np.array([r["lang"] for r in positives] + [r["lang"] for r in written_neg] + ["nat"] * (kind == "nat").sum())

    def out_of_fold(fold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        shipped, alone = np.full(len(rows), np.nan), np.full(len(rows), np.nan)
        for k in sorted(set(fold[fold >= 0].tolist())):
            test = fold == k
            pair = fit_pair(xa[~test], xu[~test], y[~test], args.c)
            shipped[test], alone[test] = cascade(pair, args.floor, xa[test], lambda i, t=test: xu[np.flatnonzero(t)[i]])
        return shipped, alone

    # 1. attempts by style (a kind of wording never on both sides), ordinary rows at random
    styles = sorted({row["style"] for row in positives})
    fold_of = {style: i % 5 for i, style in enumerate(rng.permutation(styles))}
    style_fold = np.r_[[fold_of[row["style"]] for row in positives], rng.integers(0, 5, len(rows) - len(pos_sent))]
    p_style, p_style_alone = out_of_fold(style_fold)
    # 2. languages: every non-English language in one of 6 groups, left out with its ordinary rows
    others = rng.permutation(sorted(set(lang.tolist()) - {"en", "nat"})).tolist()
    lang_fold = np.array([others.index(v) % 6 if v in others else -1 for v in lang])
    p_lang, p_lang_alone = out_of_fold(lang_fold)
    unseen_pos, unseen_neg = (lang_fold >= 0) & (y == 1), (lang_fold >= 0) & (y == 0)

    # 3. ordinary texts 2-fold by source: whole texts of sources never fitted on
    text_max, text_max_alone, screened_share, text_of = [], [], [], []
    for h in (0, 1):
        train = half != h
        pair = fit_pair(xa[train], xu[train], y[train], args.c)
        texts = [t for src in halves[h] for t in natural[src]]
        text_of += texts
        sents = [sentences_of(t) for t in texts]
        flat = [s for ss in sents for s in ss]
        xa_h = cache.get(flat)
        shipped, alone = cascade(pair, args.floor, xa_h, lambda i, f=flat: use.get([f[j] for j in i]))
        screened_share.append((alone >= args.floor).mean())
        at = 0
        for ss in sents:
            text_max.append(float(shipped[at:at + len(ss)].max()) if ss else 0.0)
            text_max_alone.append(float(alone[at:at + len(ss)].max()) if ss else 0.0)
            at += len(ss)
    text_max_a, text_max_alone_a = np.array(text_max), np.array(text_max_alone)
    pos, neg, nat = kind == "pos", kind == "neg", kind == "nat"
    print(f"\nordinary sentences of unseen sources at or over the floor {args.floor} (read twice): "
          f"{np.mean(screened_share):.2%}; attempts of unseen styles under it: "
          f"{(p_style_alone[pos] < args.floor).mean():.1%}")
    print("\n| reading | threshold | attempts of unseen styles found | attempts in unseen languages found | "
          "their ordinary rows over it | written ordinary over it | ordinary sentences over it | "
          "ordinary texts of unseen sources flagged |")
    print("|---|---|---|---|---|---|---|---|")
    for name, ps, pl, tm in (("both", p_style, p_lang, text_max_a), ("first alone", p_style_alone, p_lang_alone,
                                                                        text_max_alone_a)):
        for t in (0.5, 0.7, 0.8, 0.9, 0.95):
            print(f"| {name} | {t} | {(ps[pos] >= t).mean():.1%} | {(pl[unseen_pos] >= t).mean():.1%} | "
                  f"{(pl[unseen_neg] >= t).sum()}/{unseen_neg.sum()} | {(ps[neg] >= t).sum()}/{neg.sum()} | "
                  f"{(ps[nat] >= t).sum()}/{nat.sum()} | {(tm >= t).sum()}/{len(tm)} |")
    print(f"ordinary sentences at or over the neighbour bar {args.neighbour_threshold}: written "
          f"{(p_style[neg] >= args.neighbour_threshold).mean():.2%}, natural "
          f"{(p_style[nat] >= args.neighbour_threshold).mean():.2%} (they are cut only beside a hit)")
    per_lang = {v: (p_lang[(lang == v) & (y == 1)] >= args.threshold).mean() for v in others}
    print("unseen-language recall by language: " + " ".join(f"{v} {r:.2f}" for v, r in sorted(per_lang.items())))
    for i in np.flatnonzero(neg)[np.argsort(-p_style[neg])[:8]]:
        print(f"    written ordinary p={p_style[i]:.2f}: {rows[i][:110]!r}")
    for i in np.flatnonzero(nat)[np.argsort(-p_style[nat])[:5]]:
        print(f"    natural p={p_style[i]:.2f}: {rows[i][:110]!r}")
    for i in np.flatnonzero(text_max_a >= args.threshold):
        print(f"    ordinary text of an unseen source flagged, p={text_max_a[i]:.2f}: {text_of[i][:110]!r}")

    # 4. the final readings, and the held-out sets they never saw
    pair = fit_pair(xa, xu, y, args.c)
    shipped, _ = cascade(pair, args.floor, xa[y == 0], lambda i: xu[np.flatnonzero(y == 0)[i]])
    print(f"\nfinal readings, threshold {args.threshold}: fitted ordinary rows over it "
          f"{(shipped >= args.threshold).sum()}/{(y == 0).sum()}")
    for name in ("suite", "heldout", *(f"heldout{n}" for n in range(2, 9))):
        attempts = heldout_attempts(name)
        found = patterns = either = 0
        missed = set()
        use.get([s for _, text in attempts for s in sentences_of(text)])  # one batch, then read from the cache
        for kind_name, text in attempts:
            sents = sentences_of(text)
            probabilities, _ = cascade(pair, args.floor, cache.get(sents),
                                       lambda i, ss=sents: use.get([ss[j] for j in i]))
            model_hit = text_hit(probabilities.tolist(), args.threshold)
            pattern_hit = bool(injection_kinds(text, learned=False))
            found += model_hit
            patterns += pattern_hit
            either += model_hit or pattern_hit
            if not (model_hit or pattern_hit):
                missed.add(kind_name)
        print(f"  set {name}: model {found}/{len(attempts)}, patterns {patterns}, either {either}; "
              f"missed kinds {sorted(missed)}")
    if args.write:
        first, second = pair
        WEIGHTS.write_text(json.dumps({
            "format": 2, "buckets": BUCKETS, "embedding_sha256": PACKAGED_SHA256,
            "threshold": round(args.first_threshold, 6), "neighbour_threshold": args.neighbour_threshold,
            "intercept": float(first.intercept_[0]),
            "coef": [round(float(v), 6) for v in first.coef_[0]],
            "multilingual": {"sha256": weights_sha256(), "floor": args.floor, "threshold": args.threshold,
                             "neighbour_threshold": args.neighbour_threshold,
                             "intercept": float(second.intercept_[0]),
                             "coef": [round(float(v), 6) for v in second.coef_[0]]},
            "fitted_on": {"attempts": len(pos_sent), "written_ordinary": len(neg_sent),
                          "natural_ordinary": int(nat.sum()), "c": args.c, "seed": SEED},
        }) + "\n")
        record(WEIGHTS, "python training/fit_injection_detector.py --write")
        print(f"wrote {WEIGHTS} ({WEIGHTS.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
