"""CachedJudge: sqlite judge-response cache keyed by model, prompt and parameters."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import astuple

import pytest

from llm_validation_framework.citations.memo import VerdictMemo
from llm_validation_framework.judges.cache import CachedJudge, InFlight, case_scope, default_cache_path
from llm_validation_framework.errors import ConfigError, JudgeCallError
from llm_validation_framework.judges.base import Judge, Verdict, VerdictRequest
from llm_validation_framework.judges.profile import JudgeProfile
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.types.usage import Usage


def request(prompt: str = "Is the sky blue?", check: str = "relevancy") -> VerdictRequest:
    return VerdictRequest(check=check, instructions="Answer yes or no.", prompt=prompt,
                          options={"yes": 1.0, "no": 0.0})


class CountingJudge(Judge):
    """Answers 'yes' with a reason that counts the calls, and real-looking usage."""

    def __init__(self, name: str = "m1", delay: float = 0.0, temperature: float = 0.0) -> None:
        self.name = name
        self.calls = 0
        self.delay = delay
        self.temperature = temperature

    async def verdict(self, req: VerdictRequest) -> Verdict:
        self.calls += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        return Verdict(label="yes", score=0.9, method="logprobs", probabilities={"yes": 0.9, "no": 0.1},
                       reason=f"call {self.calls}", raw='{"verdict": "yes"}', model=self.name,
                       usage=Usage(calls=1, prompt_tokens=100, completion_tokens=5, cost_usd=0.001))

    def describe(self):
        return {"judge": "CountingJudge", "model": self.name, "temperature": self.temperature}


async def test_hit_returns_stored_verdict_with_cached_usage(tmp_path):
    inner = CountingJudge()
    judge = CachedJudge(inner, tmp_path / "c.sqlite")
    first = await judge.verdict(request())
    second = await judge.verdict(request())
    assert inner.calls == 1
    assert first.usage == Usage(calls=1, prompt_tokens=100, completion_tokens=5, cost_usd=0.001)
    assert second.usage == Usage(calls=0, cached_calls=1)
    assert (second.label, second.score, second.method, second.reason) == ("yes", 0.9, "logprobs", "call 1")
    assert dict(second.probabilities) == {"yes": 0.9, "no": 0.1}
    assert "cached" in second.notes
    assert (judge.hits, judge.misses) == (1, 1)


async def test_persists_across_instances_and_processes_share_the_file(tmp_path):
    path = tmp_path / "c.sqlite"
    inner = CountingJudge()
    await CachedJudge(inner, path).verdict(request())
    again = CachedJudge(CountingJudge(), path)
    verdict = await again.verdict(request())
    assert again.inner.calls == 0 and verdict.reason == "call 1"
    assert len(again) == 1


@pytest.mark.parametrize("change", ["model", "prompt", "instructions", "options", "params"])
async def test_key_covers_model_prompt_and_parameters(tmp_path, change):
    path = tmp_path / "c.sqlite"
    await CachedJudge(CountingJudge(), path).verdict(request())
    inner = CountingJudge(name="m2" if change == "model" else "m1",
                          temperature=0.7 if change == "params" else 0.0)
    req = request()
    if change == "prompt":
        req = request(prompt="Is the grass green?")
    elif change == "instructions":
        req = VerdictRequest(check="relevancy", instructions="Other.", prompt=req.prompt, options=req.options)
    elif change == "options":
        req = VerdictRequest(check="relevancy", instructions=req.instructions, prompt=req.prompt,
                             options={"yes": 1.0, "no": 0.0, "partly": 0.5})
    await CachedJudge(inner, path).verdict(req)
    assert inner.calls == 1


async def test_failures_are_not_cached(tmp_path):
    path = tmp_path / "c.sqlite"
    down = CachedJudge(ScriptedJudge([JudgeCallError("503 after retries", status_code=503)]), path)
    with pytest.raises(JudgeCallError):
        await down.verdict(request())
    assert len(down) == 0
    up = CachedJudge(ScriptedJudge([{"verdict": "yes", "reason": "back up"}]), path)
    assert (await up.verdict(request())).reason == "back up"


async def test_identical_requests_in_flight_are_asked_once(tmp_path):
    inner = CountingJudge(delay=0.05)
    judge = CachedJudge(inner, tmp_path / "c.sqlite")
    results = await asyncio.gather(*(judge.verdict(request()) for _ in range(5)))
    assert inner.calls == 1
    assert sum(r.usage.calls for r in results) == 1
    assert sum(r.usage.cached_calls for r in results) == 4


async def test_in_flight_failure_reaches_every_waiter(tmp_path):
    class Down(Judge):
        name = "down"
        calls = 0

        async def verdict(self, req):
            Down.calls += 1
            await asyncio.sleep(0.02)
            raise JudgeCallError("down")

    judge = CachedJudge(Down(), tmp_path / "c.sqlite")
    outcomes = await asyncio.gather(*(judge.verdict(request()) for _ in range(3)), return_exceptions=True)
    assert all(isinstance(o, JudgeCallError) for o in outcomes)
    assert Down.calls == 1


async def test_in_flight_runs_a_key_once_at_a_time_and_keeps_nothing():
    inner = CountingJudge(delay=0.02)
    inflight = InFlight()
    outcomes = await asyncio.gather(*(inflight.run("k", lambda: inner.verdict(request())) for _ in range(3)))
    assert inner.calls == 1 and [fresh for _, fresh in outcomes] == [True, False, False]
    assert len(inflight) == 0
    await inflight.run("k", lambda: inner.verdict(request()))
    assert inner.calls == 2  # a call that has ended is not remembered


async def test_in_flight_waiters_ask_themselves_when_the_first_caller_is_cancelled():
    inner = CountingJudge(delay=0.05)
    inflight = InFlight()
    first = asyncio.ensure_future(inflight.run("k", lambda: inner.verdict(request())))
    await asyncio.sleep(0.01)
    second = asyncio.ensure_future(inflight.run("k", lambda: inner.verdict(request())))
    await asyncio.sleep(0.01)
    first.cancel()
    verdict, fresh = await second
    assert fresh and verdict.label == "yes" and inner.calls == 2


async def test_verdict_memo_asks_once_and_remembers_verdicts_and_failures():
    inner = CountingJudge(delay=0.02)
    memo = VerdictMemo()
    outcomes = await asyncio.gather(*(memo.ask(inner, request()) for _ in range(2)))
    later = await memo.ask(inner, request())
    assert inner.calls == 1 and [fresh for _, fresh in [*outcomes, later]] == [True, False, False]
    assert memo.hits == 2 and len(memo) == 1
    down = ScriptedJudge([JudgeCallError("down")])
    with pytest.raises(JudgeCallError):
        await memo.ask(down, request("other"))
    with pytest.raises(JudgeCallError):  # remembered: the scripted judge has no second reply
        await memo.ask(down, request("other"))
    assert memo.hits == 3 and len(memo) == 2


async def test_repeats_within_a_case_scope_are_cached_per_occurrence(tmp_path):
    """A stability run asks the same question 3 times: a cached re-run replays the 3 answers, not 1 answer 3 times."""
    path = tmp_path / "c.sqlite"
    inner = CountingJudge()
    judge = CachedJudge(inner, path)
    with case_scope():
        first = [(await judge.verdict(request())).reason for _ in range(3)]
    assert inner.calls == 3 and first == ["call 1", "call 2", "call 3"]
    replay_inner = CountingJudge()
    replay = CachedJudge(replay_inner, path)
    with case_scope():
        second = [(await replay.verdict(request())).reason for _ in range(3)]
    assert replay_inner.calls == 0 and second == first
    # outside a scope, identical requests share one entry
    assert (await replay.verdict(request())).reason == "call 1"


async def test_unreadable_entry_is_a_miss_and_is_overwritten(tmp_path):
    path = tmp_path / "c.sqlite"
    judge = CachedJudge(CountingJudge(), path)
    await judge.verdict(request())
    with sqlite3.connect(path) as db:
        db.execute("UPDATE verdicts SET verdict = 'not json'")
    inner = CountingJudge()
    fresh = CachedJudge(inner, path)
    assert (await fresh.verdict(request())).reason == "call 1"
    assert inner.calls == 1
    assert (await fresh.verdict(request())).usage.cached_calls == 1


def test_unwritable_location_is_a_config_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigError, match="--no-cache"):
        CachedJudge(CountingJudge(), blocker / "sub" / "c.sqlite")


def test_wraps_only_judges(tmp_path):
    with pytest.raises(ConfigError, match="wraps a Judge"):
        CachedJudge(object(), tmp_path / "c.sqlite")  # type: ignore[arg-type]


def test_default_path_honours_env(monkeypatch, tmp_path):
    monkeypatch.setenv("LVF_CACHE_DIR", str(tmp_path))
    assert default_cache_path() == tmp_path / "judge-cache.sqlite"


async def test_describe_names_the_cache_and_keeps_the_inner_settings(tmp_path):
    judge = CachedJudge(CountingJudge(), tmp_path / "c.sqlite")
    info = judge.describe()
    assert info["model"] == "m1" and info["cache"].endswith("c.sqlite")
    await judge.aclose()


async def test_transport_settings_do_not_change_the_key(tmp_path):
    """A longer timeout, more retries or another server URL for the same model keep the cached verdicts."""
    class Transport(CountingJudge):
        def __init__(self, timeout_s, api_base):
            super().__init__()
            self.timeout_s, self.api_base = timeout_s, api_base

        def describe(self):
            return {**super().describe(), "timeout_s": self.timeout_s, "max_retries": 4, "api_base": self.api_base}

    path = tmp_path / "c.sqlite"
    await CachedJudge(Transport(30, "http://127.0.0.1:1/v1"), path).verdict(request())
    again = Transport(120, "http://127.0.0.1:2/v1")
    await CachedJudge(again, path).verdict(request())
    assert again.calls == 0


async def test_overlap_weights_do_not_change_the_key(tmp_path):
    """Checks blend a verdict with word overlap after the judge answered: one stored verdict serves any weight."""
    class Weighted(CountingJudge):
        def __init__(self, support_overlap_weight):
            super().__init__()
            self.support_overlap_weight = support_overlap_weight

        def describe(self):
            return {**super().describe(), "support_overlap_weight": self.support_overlap_weight,
                    "answer_overlap_weight": 0.5}

    path = tmp_path / "c.sqlite"
    await CachedJudge(Weighted(0.6), path).verdict(request())
    again = Weighted(0.3)
    await CachedJudge(again, path).verdict(request())
    assert again.calls == 0
    changed = CountingJudge(temperature=0.7)  # a setting that does change answers still misses
    await CachedJudge(changed, path).verdict(request())
    assert changed.calls == 1


async def test_a_hybrid_judge_s_inner_transport_and_weights_do_not_change_the_key(tmp_path):
    """A hybrid judge describes its two judges nested: their volatile settings go there too."""
    class Nested(CountingJudge):
        def __init__(self, timeout_s, weight, band):
            super().__init__()
            self.timeout_s, self.weight, self.band = timeout_s, weight, band

        def describe(self):
            return {**super().describe(), "band": self.band,
                    "local": {"model": "small", "support_overlap_weight": self.weight},
                    "api": {"model": "big", "timeout_s": self.timeout_s, "api_base": "http://127.0.0.1:1/v1"}}

    path = tmp_path / "c.sqlite"
    await CachedJudge(Nested(30, 0.6, [0.3, 0.7]), path).verdict(request())
    again = Nested(120, 0.3, [0.3, 0.7])
    await CachedJudge(again, path).verdict(request())
    assert again.calls == 0
    wider = Nested(30, 0.6, [0.2, 0.8])  # the band decides which judge answers: it stays in the key
    await CachedJudge(wider, path).verdict(request())
    assert wider.calls == 1


class LocalLike(ScriptedJudge):
    """A scripted judge with a profile like the local model's (no field at its default)."""

    profile = JudgeProfile(evidence_chars=321, max_input_chars=5000, support_overlap_weight=0.5,
                           answer_overlap_weight=0.5, substitution_rule=True, prefers_yes_no=True, swapped_roles=False,
                           in_process_model=True)


def test_the_cache_asks_what_its_judge_asks(tmp_path):
    inner = LocalLike([])
    cached = CachedJudge(inner, tmp_path / "c.sqlite")
    assert cached.profile == inner.profile
    assert all(value != default for value, default in zip(astuple(inner.profile), astuple(JudgeProfile())))
    cached.close()


def test_a_cached_dataset_run_scores_like_evaluate(tmp_path):
    """The runner caches by default: the local judge's one answer-accuracy template must survive the wrapper."""
    import json

    from llm_validation_framework.agents.reference import AnswerAccuracyAgent
    from llm_validation_framework.runner.core import run_dataset

    case = {"id": "c1", "question": "Capital of France?", "answer": "Paris", "reference": "Paris"}
    data = tmp_path / "cases.jsonl"
    data.write_text(json.dumps(case) + "\n")
    direct = LocalLike(lambda request: {"verdict": "4"})
    expected = AnswerAccuracyAgent(judge=direct).evaluate(case)
    ran = LocalLike(lambda request: {"verdict": "4"})
    run_dataset(data, ["answer_accuracy"], judge=ran, out=tmp_path / "r.jsonl", cache=tmp_path / "c.sqlite")
    assert len(direct.requests) == len(ran.requests) == 1  # template 1 only, as LocalJudge asks
    line = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines() if '"case"' in x][0]
    assert line["score"] == pytest.approx(expected.score)


def test_the_results_header_probes_with_the_judge_s_profile(tmp_path):
    """The header's prompt hashes come from a probe judge: it must ask what the run's judge asks."""
    import json

    from llm_validation_framework.runner.core import run_dataset

    case = {"id": "c1", "question": "Capital of France?", "answer": "Paris", "contexts": ["Paris is in France."]}
    data = tmp_path / "cases.jsonl"
    data.write_text(json.dumps(case) + "\n")
    headers = []
    for judge in (ScriptedJudge(lambda r: {"verdict": list(r.options)[0]}),
                  LocalLike(lambda r: {"verdict": list(r.options)[0]})):
        out = tmp_path / f"{type(judge).__name__}.jsonl"
        run_dataset(data, ["context_relevance"], judge=judge, out=out, cache=False)
        headers.append(json.loads(out.read_text().splitlines()[0])["prompt_hashes"]["context_relevance"])
    api_like, local_like = headers
    assert api_like != local_like  # the local form (a yes/no question per passage) is probed too
