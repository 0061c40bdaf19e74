"""Run one peer metric over rows, against the OpenAI-compatible server. Runs in benchmarks/peers/.venv.

    .venv/bin/python peer_worker.py --metric ragas_faithfulness --set support --rows rows.jsonl \
        --base-url http://127.0.0.1:8765/v1 --model MODEL --out out.jsonl [--budget-s 300] [--row-timeout-s 600]

``rows.jsonl``: one ``{"split": "calib"|"eval", "row": {...dataset row...}}`` a line. Each result
line is appended (and flushed) as soon as its row is done; rows already in ``--out`` are skipped,
so a run can be resumed. Every peer is used through its documented OpenAI-compatible path:
deepeval's ``LocalModel(base_url=...)``, ragas' ``llm_factory(model, client=AsyncOpenAI(...))``.
Calls and tokens per row are read from the server's /stats (it sees every request).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import PEER_ENV, Budget, Progress, read_results, record, server_stats, stats_delta  # noqa: E402

for _key, _value in PEER_ENV.items():
    os.environ.setdefault(_key, _value)
os.environ.setdefault("DEEPEVAL_HOME", str(Path(__file__).resolve().parent / ".state" / "deepeval"))

#: the no-question rows (WiCE) still need a user_input for ragas Faithfulness / deepeval's input
NO_QUESTION = "(no question: check the statement against the context)"

SUPPORT_METRICS = ("deepeval_faithfulness", "ragas_faithfulness", "ragas_groundedness")
ACCURACY_METRICS = ("deepeval_geval_correctness", "ragas_answer_accuracy")


def build(metric: str, base_url: str, model: str):
    """An async ``score(row) -> float`` for one metric."""
    if metric.startswith("deepeval"):
        from deepeval.models import LocalModel
        from deepeval.test_case import LLMTestCase, SingleTurnParams

        judge = LocalModel(model=model, base_url=base_url, api_key="no-key-needed")  # deepeval insists on a key
        if metric == "deepeval_faithfulness":
            from deepeval.metrics import FaithfulnessMetric

            # defaults (include_reason=True); one instance, used one row at a time (it keeps per-case state)
            faithfulness = FaithfulnessMetric(model=judge, async_mode=True)

            async def score(row):
                case = LLMTestCase(input=row.get("question") or NO_QUESTION, actual_output=row["claim"],
                                   retrieval_context=list(row["premise_passages"]))
                return await faithfulness.a_measure(case, _show_indicator=False)
            return score
        if metric == "deepeval_geval_correctness":
            from deepeval.metrics import GEval

            # deepeval's documented "Correctness" G-Eval (its closest metric to answer accuracy). One
            # instance for all rows: it writes its evaluation steps once (1 call) and reuses them,
            # the cheapest way to run it.
            correctness = GEval(name="Correctness", model=judge, async_mode=True,
                                criteria="Determine whether the actual output is factually correct based on the "
                                         "expected output.",
                                evaluation_params=[SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT,
                                                   SingleTurnParams.EXPECTED_OUTPUT])

            async def score(row):
                case = LLMTestCase(input=row["question"], actual_output=row["answer"], expected_output=row["reference"])
                return await correctness.a_measure(case, _show_indicator=False)
            return score
    else:
        from openai import AsyncOpenAI
        from ragas.llms import llm_factory

        llm = llm_factory(model, client=AsyncOpenAI(base_url=base_url, api_key="no-key-needed"))
        if metric == "ragas_faithfulness":
            from ragas.metrics.collections import Faithfulness
            scorer = Faithfulness(llm=llm)

            async def score(row):
                result = await scorer.ascore(user_input=row.get("question") or NO_QUESTION, response=row["claim"],
                                             retrieved_contexts=list(row["premise_passages"]))
                return result.value
            return score
        if metric == "ragas_groundedness":
            from ragas.metrics.collections import ResponseGroundedness
            scorer = ResponseGroundedness(llm=llm)

            async def score(row):
                result = await scorer.ascore(response=row["claim"], retrieved_contexts=list(row["premise_passages"]))
                return result.value
            return score
        if metric == "ragas_answer_accuracy":
            from ragas.metrics.collections import AnswerAccuracy
            scorer = AnswerAccuracy(llm=llm)

            async def score(row):
                result = await scorer.ascore(user_input=row["question"], response=row["answer"],
                                             reference=row["reference"])
                return result.value
            return score
    raise SystemExit(f"unknown metric {metric!r}: choose from {', '.join(SUPPORT_METRICS + ACCURACY_METRICS)}")


async def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    done = {r["id"] for r in read_results(out)}
    items = [json.loads(line) for line in Path(args.rows).read_text().splitlines() if line.strip()]
    score = build(args.metric, args.base_url, args.model)
    budget = Budget(args.budget_s)
    progress = Progress(args.metric, len(items), sum(item["row"]["id"] in done for item in items))
    with open(out, "a", encoding="utf-8") as sink:
        for item in items:
            row, split = item["row"], item["split"]
            if row["id"] in done:
                continue
            if budget.exhausted():
                print(f"{args.metric}: budget of {args.budget_s}s used up; stopping", file=sys.stderr)
                break
            before = server_stats(args.base_url, args.model)
            started = time.perf_counter()
            value, error = None, None
            try:
                value = await asyncio.wait_for(score(row), timeout=args.row_timeout_s)
            except asyncio.TimeoutError:
                error = f"timeout after {args.row_timeout_s}s"
            except Exception as exc:  # a peer's failure is a result: record it and go on
                error = f"{type(exc).__name__}: {exc}"[:500]
                if args.verbose:
                    traceback.print_exc()
            seconds = time.perf_counter() - started
            counts = stats_delta(before, server_stats(args.base_url, args.model))
            value = float(value) if isinstance(value, (int, float)) else None if value is None else value
            sink.write(json.dumps(record(row, split, args.set, score=value, error=error, seconds=seconds,
                                         counts=counts)) + "\n")
            sink.flush()
            progress.row(seconds, error)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metric", required=True, choices=SUPPORT_METRICS + ACCURACY_METRICS)
    parser.add_argument("--set", required=True, choices=("support", "answer_accuracy"))
    parser.add_argument("--rows", required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--budget-s", type=float, default=None)
    parser.add_argument("--row-timeout-s", type=float, default=600.0)
    parser.add_argument("--verbose", action="store_true")
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
