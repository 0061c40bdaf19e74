"""A judge that serves one call at a time: a case's time is its own, not its wait behind the others,
and a stopped run does not make the model answer the calls queued behind the one it is serving."""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time

from llm_validation_framework.judges.base import VerdictRequest
from llm_validation_framework.judges.local import Completion, LocalJudge
from llm_validation_framework.judges.queue_clock import case_clock, queued_call, serving_turn
from llm_validation_framework.runner import iter_results, run_dataset

YES = Completion(text="yes", top=[("yes", math.log(0.9)), ("no", math.log(0.1))])


class SlowModel:
    """A model that takes ``delay`` seconds a call, one call at a time; records the prompts it answered."""

    name = "slow-model"

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.lock = threading.Lock()
        self.prompts: list[str] = []

    def complete(self, prompt, *, max_tokens, n_probs, stop=()):
        self.prompts.append(prompt)
        time.sleep(self.delay)
        return YES


def request(i: int) -> VerdictRequest:
    return VerdictRequest(check="support", instructions="Judge it.", prompt=f"<claim>\nclaim {i}\n</claim>",
                          options={"yes": 1.0, "no": 0.0})


def test_a_cases_time_leaves_out_its_wait_for_the_model(tmp_path):
    model = SlowModel(delay=0.3)
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps({"id": f"c{i}", "question": f"Where is town {i}?",
                                         "answer": f"Town {i} is north."}) + "\n" for i in range(4)))
    summary = run_dataset(cases, "relevancy", judge=LocalJudge(backend=model), cache=False, concurrency=4,
                          out=tmp_path / "r.jsonl")
    records = [r for r in iter_results(tmp_path / "r.jsonl") if r["type"] == "case"]
    assert [r["status"] for r in records] == ["PASS"] * 4 and len(model.prompts) == 4
    # one at a time: the last case waited for three others' calls, yet spent one call's time itself
    assert max(r.get("queued_s", 0.0) for r in records) >= 0.8
    assert all(r["duration_s"] < 0.3 + 0.25 for r in records), [r["duration_s"] for r in records]
    per_case = summary["relevancy"].duration_s / summary["relevancy"].cases
    assert per_case < 0.55  # the summary's time/case; it was the mean wait, about 0.75 s, and grows with -j


def test_a_stopped_case_leaves_its_queued_calls_unasked():
    model = SlowModel(delay=0.3)
    judge = LocalJudge(backend=model)

    async def main():
        calls = [asyncio.ensure_future(judge.verdict(request(i))) for i in range(4)]
        await asyncio.sleep(0.1)  # the first call is being served, three wait
        for call in calls:
            call.cancel()
        await asyncio.gather(*calls, return_exceptions=True)
        await asyncio.sleep(1.0)  # time for every queued call, had it been asked

    asyncio.run(main())
    assert len(model.prompts) == 1


def test_the_clock_counts_only_time_when_every_call_of_the_case_waits():
    lock = threading.Lock()

    def serve(seconds: float) -> None:
        with serving_turn(lock):
            time.sleep(seconds)

    async def case(clock_out: list, seconds: tuple[float, ...]) -> None:
        with case_clock() as clock:
            async def one(s: float) -> None:
                with queued_call():
                    await asyncio.to_thread(serve, s)

            await asyncio.gather(*(one(s) for s in seconds))
            clock_out.append(clock.queued_s)

    async def main():
        first: list[float] = []
        second: list[float] = []
        # the first case's two calls hold the model 0.4 s in all, one after the other: no queue time
        # (its second call waits while its first is served); the second case waits for both
        await asyncio.gather(case(first, (0.2, 0.2)), case(second, (0.1,)))
        return first[0], second[0]

    first, second = asyncio.run(main())
    assert first < 0.1 or second < 0.1  # whichever case the model took first did not queue
    assert max(first, second) >= 0.1
