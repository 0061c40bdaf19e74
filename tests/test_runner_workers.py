"""run_dataset(workers=N): cases spread over worker processes, one results file, same outcomes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from worker_helpers import by_answer

from llm_validation_framework.agents.relevancy import RelevancyAgent
from llm_validation_framework.errors import ConfigError
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.runner import iter_results, run_dataset
from llm_validation_framework.runner.core import RunAbortedError
from llm_validation_framework.runner.processes import split_concurrency


def write_cases(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def cases(n: int, answer: str = "Answer {i}.") -> list[dict]:
    return [{"id": f"c{i}", "question": f"Question {i}?", "answer": answer.format(i=i)} for i in range(n)]


def case_lines(path: Path) -> list[dict]:
    return [r for r in iter_results(path) if r["type"] == "case"]


def test_split_concurrency_spreads_the_cases_in_flight():
    assert split_concurrency(32, 2) == [16, 16]
    assert split_concurrency(5, 2) == [3, 2]
    assert split_concurrency(1, 3) == [1, 1, 1]  # every worker takes at least one


def test_two_workers_give_the_same_results_as_one_process(tmp_path):
    rows = cases(10) + [{"id": "bad", "question": "Q?", "answer": "BAD answer."}]
    data = write_cases(tmp_path / "c.jsonl", rows)
    one = run_dataset(data, "relevancy,accuracy", judge=ScriptedJudge(by_answer), out=tmp_path / "one.jsonl",
                      cache=False, concurrency=4)
    two = run_dataset(data, "relevancy,accuracy", judge=ScriptedJudge(by_answer), out=tmp_path / "two.jsonl",
                      cache=False, concurrency=4, workers=2)
    single = {(r["agent"], r["id"]): (r["status"], r["score"]) for r in case_lines(tmp_path / "one.jsonl")}
    spread = {(r["agent"], r["id"]): (r["status"], r["score"]) for r in case_lines(tmp_path / "two.jsonl")}
    assert spread == single and len(spread) == 22
    assert spread[("relevancy", "bad")][0] == "FAIL"
    assert two["accuracy"].passed == one["accuracy"].passed == 10 and two.usage.calls == one.usage.calls
    pids = {c["reason"] for r in case_lines(tmp_path / "two.jsonl") for c in r["checks"] if c.get("reason")}
    assert len({p for p in pids if p.startswith("pid")}) == 2  # both workers judged cases
    header = next(iter_results(tmp_path / "two.jsonl"))
    assert header["settings"]["workers"] == 2 and two.workers_ready_s is not None


def test_a_failing_case_is_its_own_error_line_and_the_run_goes_on(tmp_path):
    rows = cases(4) + [{"id": "down", "question": "Q?", "answer": "DOWN"}, '{"id": "broken", "question": ']
    data = write_cases(tmp_path / "c.jsonl", rows)
    summary = run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=tmp_path / "r.jsonl",
                          cache=False, workers=2)
    by_id = {r["id"]: r for r in case_lines(tmp_path / "r.jsonl")}
    assert summary["relevancy"].passed == 4 and len(by_id) == 6
    assert by_id["down"]["status"] in ("UNSCORED", "ERROR") and "503" in json.dumps(by_id["down"])
    assert by_id["line-6"]["status"] == "ERROR" and by_id["line-6"]["error"]["line"] == 6


def test_resume_and_a_shared_cache_work_across_workers(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(8))
    cache = tmp_path / "cache.sqlite"
    first = run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=tmp_path / "r.jsonl", cache=cache,
                        workers=2, limit=5)
    assert first["relevancy"].cases == 5
    rest = run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=tmp_path / "r.jsonl", cache=cache,
                       workers=2, resume=True)
    assert rest.skipped == 5 and rest.evaluated == 3 and rest["relevancy"].cases == 8
    again = run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=tmp_path / "r2.jsonl", cache=cache,
                        workers=2)
    assert again.usage.calls == 0 and again.usage.cached_calls == 8  # written by two processes, read by two


def test_a_configuration_error_in_a_worker_stops_the_run_with_its_message(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(3, answer="NOKEY {i}"))
    with pytest.raises(ConfigError, match="no API key for the judge"):
        run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=tmp_path / "r.jsonl", cache=False,
                    workers=2)


def test_a_worker_that_dies_stops_the_run_and_keeps_what_finished(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(3) + [{"id": "x", "question": "Q?", "answer": "DIE"}])
    with pytest.raises(RunAbortedError, match=r"stopped unexpectedly \(exit code 3\).*--resume"):
        run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=tmp_path / "r.jsonl", cache=False,
                    workers=2, concurrency=2)
    lines = list(iter_results(tmp_path / "r.jsonl"))
    assert lines[0]["type"] == "header" and lines[-1]["type"] == "footer" and lines[-1]["interrupted"] is True


def test_workers_refuse_what_cannot_cross_a_process_boundary(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(1))
    out = tmp_path / "r.jsonl"
    with pytest.raises(ConfigError, match="cannot be pickled"):
        run_dataset(data, "relevancy", judge=ScriptedJudge(lambda r: by_answer(r)), out=out, workers=2, cache=False)
    with pytest.raises(ConfigError, match="agents by name"):
        run_dataset(data, [RelevancyAgent(judge=ScriptedJudge(by_answer))], out=out, workers=2, cache=False,
                    overwrite=True)
    local_like = ScriptedJudge(by_answer)
    local_like.in_process_model = True
    with pytest.raises(ConfigError, match="local model once per process"):
        run_dataset(data, "relevancy", judge=local_like, out=out, workers=2, cache=False, overwrite=True)
    with pytest.raises(ConfigError, match="workers must be a positive integer"):
        run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=out, workers=0, overwrite=True)


@pytest.mark.slow  # each worker imports litellm, which takes seconds
def test_workers_through_litellm_to_the_stub_server(tmp_path):
    from stub_server import StubServer, best_verdict_reply

    from llm_validation_framework.judges.litellm.judge import LiteLLMJudge

    data = write_cases(tmp_path / "c.jsonl", cases(12))
    with StubServer() as server:
        server.default = best_verdict_reply(model="gpt-4o-mini")
        judge = LiteLLMJudge("openai/gpt-4o-mini", api_key="sk-test-not-a-key-654321", api_base=server.base_url)
        summary = run_dataset(data, "accuracy", judge=judge, out=tmp_path / "r.jsonl", cache=tmp_path / "c.sqlite",
                              workers=2, concurrency=4)
        assert len(server.chat_requests) == summary.usage.calls == 24  # the warm-up sent nothing
    assert summary["accuracy"].passed == 12 and summary.usage.cost_usd > 0
    assert "sk-test-not-a-key" not in (tmp_path / "r.jsonl").read_text()
