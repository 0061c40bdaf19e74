"""Read the local model's final hidden state for every labelled row: the features verdict heads are fitted on.

    python training/extract_features.py --task support --data ../shared/data/judge-dev/support.jsonl
    python training/extract_features.py --task relevance --data DIR/relevance.jsonl --threads 1

For each row the script runs OUR check with a recording judge, so the request is exactly the one
the check sends at run time (evidence selection, templates, judge hints of the local judge), then
asks the model for the hidden state at the verdict position of the head's prompt (last-token
pooling, not normalised). Rows go to ``OUT/<task>/<source-file-stem>.npz`` shards plus a JSONL
index, appended as they finish: a killed run resumes where it stopped (rows already present,
keyed by row id and prompt hash, are skipped).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from llm_validation_framework import JudgeProfile, ScriptedJudge  # noqa: E402
from llm_validation_framework.judges.local.heads import build_head_prompt  # noqa: E402

TASKS = ("support", "relevance", "answer_accuracy", "answer_relevancy")


def default_out() -> Path:
    data = os.environ.get("LVF_BENCH_DATA") or Path.home() / ".cache" / "llm_validation_framework" / "bench-data"
    return Path(data) / "features"


def recorder() -> ScriptedJudge:
    """A judge that records requests and answers the first label, asked what the local judge is asked."""
    return ScriptedJudge(lambda request: json.dumps({"verdict": request.labels[0]}), name="recorder",
                         profile=JudgeProfile(evidence_chars=600, prefers_yes_no=True, swapped_roles=False))


async def requests_for(task: str, row: dict) -> list:
    """The requests our check sends for ``row`` (the one the head reads is first)."""
    judge = recorder()
    if task == "support":
        from llm_validation_framework.checks.support import judge_support
        from llm_validation_framework.types.inputs import Passage

        passages = [Passage(id=str(i), text=t) for i, t in enumerate(row["premise_passages"], start=1)]
        await judge_support(judge, row["claim"], passages, question=row.get("question"))
        return list(judge.requests)
    if task == "relevance":
        from llm_validation_framework.checks.context_relevance import ContextRelevanceCheck
        from llm_validation_framework.types.inputs import parse_sample

        await ContextRelevanceCheck().run(parse_sample({"question": row["query"], "contexts": [row["passage"]]}), judge)
        return [r for r in judge.requests if tuple(r.labels) == ("yes", "no")] or list(judge.requests)
    if task == "answer_accuracy":
        from llm_validation_framework.checks.answer_accuracy import AnswerAccuracyCheck
        from llm_validation_framework.types.inputs import parse_sample

        refs = row.get("references_all") or row.get("correct_answers") or [row["reference"]]
        sample = parse_sample({"question": row["question"], "answer": row["answer"], "reference": row["reference"],
                               "references": refs})
        await AnswerAccuracyCheck().run(sample, judge)
        return list(judge.requests)
    if task == "answer_relevancy":
        from llm_validation_framework.checks.relevancy import RelevancyCheck
        from llm_validation_framework.types.inputs import parse_sample

        return [RelevancyCheck().request(parse_sample({"question": row["question"], "answer": row["answer"]}))]
    raise SystemExit(f"unknown task {task!r}: one of {', '.join(TASKS)}")


def interleaved(rows: list[dict], seed: int) -> list[dict]:
    """Rows round-robin over (source, label), shuffled within each: any prefix is balanced."""
    import random
    from collections import defaultdict

    buckets: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        buckets[(str(row.get("source")), str(row.get("label")))].append(row)
    rng = random.Random(seed)
    queues = [buckets[key] for key in sorted(buckets)]
    for queue in queues:
        rng.shuffle(queue)
    out: list[dict] = []
    while any(queues):
        for queue in queues:
            if queue:
                out.append(queue.pop())
    return out


class Embedder:
    """One llama.cpp server in embedding mode: last-token pooling, no normalisation."""

    def __init__(self, model_path: str, threads: int, n_ctx: int = 4096) -> None:
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = model_path
        params.n_ctx = n_ctx
        params.n_batch = params.n_ubatch = n_ctx  # embeddings need the whole prompt in one batch
        params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
        params.warmup = False
        params.verbosity = -1
        params.embedding = True
        params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_LAST
        params.embd_normalize = -1
        params.load_mode = xllamacpp.llama_load_mode.LLAMA_LOAD_MODE_NONE
        params.cache_ram_mib = 0
        self.server = xllamacpp.Server(params)

    def __call__(self, prompt: str) -> tuple[np.ndarray, int]:
        reply = self.server.handle_embeddings({"input": prompt, "embd_normalize": -1})
        if isinstance(reply, (str, bytes)):
            reply = json.loads(reply)
        if "data" not in reply:
            raise RuntimeError(f"embeddings failed: {str(reply)[:300]}")
        vector = np.asarray(reply["data"][0]["embedding"], dtype=np.float32)
        return vector, int((reply.get("usage") or {}).get("prompt_tokens", 0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", required=True, choices=TASKS)
    parser.add_argument("--data", required=True, type=Path, help="a JSONL file of labelled rows of the task")
    parser.add_argument("--out", type=Path, default=default_out(),
                        help="feature folder (default: $LVF_BENCH_DATA/features or the user cache)")
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads (default 1)")
    parser.add_argument("--limit", type=int, default=0,
                        help="the first N rows of the interleaved order (0: all); a larger N later adds rows")
    parser.add_argument("--seed", type=int, default=0, help="seed of the interleaved order")
    parser.add_argument("--model", default=None, help="GGUF path (default: the package's default model)")
    args = parser.parse_args(argv)

    from llm_validation_framework.judges.local.model_file import resolve_model_path

    model = str(resolve_model_path(args.model))
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = interleaved(rows, args.seed)
    if args.limit:
        rows = rows[: args.limit]
    folder = args.out / args.task
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{args.data.parent.name}__{args.data.stem}"
    index_path = folder / f"{stem}.jsonl"
    done = set()
    if index_path.exists():
        for line in index_path.read_text().splitlines():
            try:
                done.add(json.loads(line)["key"])
            except (ValueError, KeyError):
                continue  # a line torn by a kill
    embed = Embedder(model, args.threads)
    started = time.perf_counter()
    count = 0
    with open(index_path, "a", encoding="utf-8") as index:
        for n, row in enumerate(rows, start=1):
            requests = asyncio.run(requests_for(args.task, row))
            request = requests[0]
            prompt = build_head_prompt(request)
            key = f"{row['id']}|{hashlib.sha256(prompt.encode()).hexdigest()[:12]}"
            if key in done:
                continue
            vector, tokens = embed(prompt)
            vector_file = folder / "vectors" / f"{hashlib.sha256(key.encode()).hexdigest()[:20]}.npy"
            vector_file.parent.mkdir(exist_ok=True)
            np.save(vector_file, vector.astype(np.float16))
            label = row["label"]
            record = {"key": key, "id": row["id"], "source": row.get("source", args.data.stem),
                      "group": row.get("group") or row.get("page_title") or row.get("question") or row.get("query"),
                      "label": label, "fine_label": row.get("fine_label") or row.get("orig_label"),
                      "check": request.check, "labels": list(request.labels), "prompt_tokens": tokens,
                      "vector": vector_file.name, "prompt_sha": key.split("|")[1]}
            index.write(json.dumps(record) + "\n")
            index.flush()
            count += 1
            if count % 25 == 0:
                rate = count / (time.perf_counter() - started)
                print(f"{args.task} {n}/{len(rows)} rows, {rate:.2f} rows/s", flush=True)
    print(f"{args.task}: {count} new rows in {time.perf_counter() - started:.0f}s -> {index_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
