"""A criterion's verdict learned from labels: ``Criteria.fit_head`` on held-out rows, against the prompt.

    python benchmarks/criteria_head.py --train-rows 300 --compare relevancy.jsonl
    python benchmarks/criteria_head.py --task support --limit 40 --train-rows 200 --compare support.jsonl
    python benchmarks/criteria_head.py --provider scripted --train-rows 60 --limit 20   # the script itself

The criterion restating the relevancy check (``criteria_quality.ON_TOPIC``, "Does the answer try to
answer the question, right or wrong?") gets a head fitted by ``Criteria.fit_head`` on judge-dev's
answer-relevancy rows of the other folds (``--train-rows``, stratified, seeded), held out by question
as ``benchmarks/heads/learning_curve.py`` holds them out: no row whose question, or whose borrowed
answer's question, is in the test fold. The test rows are ``criteria_quality.py relevancy``'s (the
same fold, limit and seed), judged by ``Criteria.run`` with ``LocalJudge(heads=[head])``.
``--compare`` reads a ``criteria_quality.py relevancy --out`` file of the same rows and prints the
criterion's prompt alone and ``RelevancyCheck`` as shipped beside the head. ``--task support``: the
support criterion (``criteria_quality.SUPPORTED``) on ``criteria_quality.py support``'s rows (the
same evidence sentences), its head fitted on other judge-dev support rows, none sharing a claim or a
passage with a test row; ``--compare`` then reads a ``criteria_quality.py support --out`` file. ``--provider scripted``
answers from a hash of the prompt, with a fake hidden state: it checks the script, not a judge.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import zlib
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "training")]

from build_data import answer_relevancy_judge_dev, default_judge_dev  # noqa: E402
from criteria_quality import ON_TOPIC, SUPPORTED, fold_of, relevancy_rows, support_rows  # noqa: E402
from judge_quality import auc, balanced_accuracy, stratified  # noqa: E402

from llm_validation_framework.judges.local import Completion, LocalJudge  # noqa: E402
from llm_validation_framework.text.evidence import select_sentences  # noqa: E402
from llm_validation_framework.types.inputs import parse_sample  # noqa: E402


class HashBackend:
    """``--provider scripted``: a hidden state and an answer from a hash of the prompt."""

    name = "hash-model"

    def embed(self, prompt: str):
        import numpy as np

        return np.random.default_rng(zlib.crc32(prompt.encode())).normal(size=32).astype(np.float32), 1

    def complete(self, prompt: str, *, max_tokens: int, n_probs: int, stop=()):
        if '"ready"' in prompt:
            return Completion(text="ready", top=[("ready", 0.0)])
        return Completion(text="yes", top=[("yes", -0.5), ("no", -1.0)])


def training_rows(args: argparse.Namespace) -> list[dict]:
    """Rows of the other folds, none sharing a question with the test fold (answers borrowed included)."""
    rows = answer_relevancy_judge_dev(args.judge_dev / "answer_accuracy.jsonl", args.seed)
    held = int(args.fold)
    kept = [r for r in rows if fold_of(r["group"], args.folds) != held
            and fold_of(r.get("answer_from_group") or r["group"], args.folds) != held]
    return stratified(kept, args.train_rows, args.seed)


def support_training_rows(args: argparse.Namespace, test: list[dict]) -> list[dict]:
    """Support rows sharing no claim and no passage with a test row."""
    claims = {r["claim"] for r in test}
    passages = {p for r in test for p in r["premise_passages"]}
    rows = [json.loads(line) for line in (args.judge_dev / "support.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    kept = [r for r in rows if r["claim"] not in claims and not passages.intersection(r["premise_passages"])]
    return stratified(kept, args.train_rows, args.seed + 1)


def case(row: dict, args: argparse.Namespace) -> dict:
    if args.task == "relevancy":
        return {"question": row["question"], "answer": row["answer"]}
    # the evidence the support criterion reads in criteria_quality.py: the sentences closest to the claim
    passages, _ = select_sentences(row["claim"], list(row["premise_passages"]), args.evidence_chars)
    return {"answer": row["claim"], "contexts": [p for p in passages if p] or [" "]}


def label(row: dict) -> int:
    return int(row["label"] == "supported") if isinstance(row["label"], str) else int(row["label"])


async def run(args: argparse.Namespace) -> list[dict]:
    backend = HashBackend() if args.provider == "scripted" else None
    judge = LocalJudge(backend=backend, model_path=args.model)
    criterion = ON_TOPIC if args.task == "relevancy" else SUPPORTED
    test = relevancy_rows(args) if args.task == "relevancy" else support_rows(args)
    train = training_rows(args) if args.task == "relevancy" else support_training_rows(args, test)
    print(f"{args.task}: fitting on {len(train)} rows, testing on {len(test)}", file=sys.stderr)
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if done % 25 == 0 or done == total:
            print(f"  read {done}/{total} labelled cases, {time.perf_counter() - started:.0f}s", file=sys.stderr)

    head = await criterion.fit_head(judge, [case(r, args) for r in train], [bool(label(r)) for r in train],
                                    progress=progress)
    fitted = time.perf_counter() - started
    judged = LocalJudge(backend=backend, model_path=args.model, heads=[head])
    records = []
    for row in test:
        result = await criterion.run(parse_sample(case(row, args)), judged)
        records.append({"id": row["id"], "source": row["source"], "label": label(row),
                        "head": result.score, "method": result.method})
    print(f"fitted in {fitted:.0f}s ({fitted / len(train):.2f}s a case); judged {len(test)} rows in "
          f"{time.perf_counter() - started - fitted:.0f}s; {head.fitted_on}")
    return records


def report(records: list[dict], compare: Path | None) -> None:
    others = {}
    if compare is not None:
        for line in compare.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                others[row["id"]] = row
    columns = [("criterion + head", lambda r: r["head"])]
    if others:
        columns += [("criterion, prompt", lambda r: others[r["id"]]["criteria"]["score"]),
                    ("shipped check", lambda r: others[r["id"]]["shipped"]["score"])]
        records = [r for r in records if r["id"] in others]
    print(f"{'rows':24} {'n':>4} " + " ".join(f"{name:>24}" for name, _ in columns) + "   (BA at 0.5 / AUC)")
    groups = [("all", records), *((s, [r for r in records if r["source"] == s])
                                  for s in sorted({r["source"] for r in records}))]
    for name, items in groups:
        cells = []
        for _, score in columns:
            y, s = [r["label"] for r in items], [score(r) for r in items]
            cells.append(f"{balanced_accuracy(y, [int(v >= 0.5) for v in s]):.3f} / {auc(y, s):.3f}")
        print(f"{name[:24]:24} {len(items):4d} " + " ".join(f"{c:>24}" for c in cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", choices=("relevancy", "support"), default="relevancy")
    parser.add_argument("--provider", choices=("local", "scripted"), default="local")
    parser.add_argument("--evidence-chars", type=int, default=600, help="support: evidence budget")
    parser.add_argument("--model", help="GGUF path (default: the package's default model)")
    parser.add_argument("--train-rows", type=int, default=300)
    parser.add_argument("--limit", type=int, default=200, help="test rows, as criteria_quality.py")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--fold", default="0")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--judge-dev", type=Path, default=default_judge_dev())
    parser.add_argument("--compare", type=Path, help="a criteria_quality.py relevancy --out file of the same rows")
    parser.add_argument("--out", type=Path, help="one JSON line per test row")
    args = parser.parse_args(argv)
    records = asyncio.run(run(SimpleNamespace(**vars(args))))
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    report(records, args.compare)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
