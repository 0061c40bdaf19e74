"""run_dataset: streaming, field mapping, bounded concurrency, resumable results, errors per case."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from llm_validation_framework.agents.base import Agent
from llm_validation_framework.agents.relevancy import RelevancyAgent
from llm_validation_framework.errors import ConfigError, JudgeCallError
from llm_validation_framework.judges.base import Judge, Verdict, VerdictRequest
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.runner import (arun_dataset, iter_cases, iter_results, map_fields, parse_field_map,
                                             run_dataset)
from llm_validation_framework.runner import core as runner_core
from llm_validation_framework.runner.core import RunAbortedError
from llm_validation_framework.types.usage import Usage

def best(request: VerdictRequest) -> dict:
    return {"verdict": max(request.options, key=request.options.get), "reason": "fine"}


def worst(request: VerdictRequest) -> dict:
    return {"verdict": min(request.options, key=request.options.get), "reason": "wrong"}


def by_answer(request: VerdictRequest) -> dict:
    """Best verdict unless the prompt contains BAD (FAIL) or DOWN (judge outage)."""
    if "DOWN" in request.prompt:
        raise JudgeCallError("503 after 4 retries", status_code=503)
    return worst(request) if "BAD" in request.prompt else best(request)


def write_cases(path: Path, rows: list) -> Path:
    with open(path, "w") as handle:
        for row in rows:
            handle.write((row if isinstance(row, str) else json.dumps(row)) + "\n")
    return path


def cases(n: int, **extra) -> list[dict]:
    """Plain cases: none holds anything the injection detectors read as an attempt ("Answer 4." does, a
    bare top-of-scale verdict), so each is judged once per check."""
    return [{"id": f"c{i}", "question": f"Question {i}?", "answer": f"It is {i} metres long.", **extra}
            for i in range(n)]


def read(path: Path) -> list[dict]:
    return list(iter_results(path))


def case_lines(path: Path) -> list[dict]:
    return [r for r in read(path) if r["type"] == "case"]


# -- field mapping ---------------------------------------------------------------------------
# rows shaped like the labelled datasets the aliases are for (support, relevance, answer accuracy, citation)
SUPPORT_ROW = {"id": "attributionbench/ExpertQA_1", "source": "attributionbench:ExpertQA",
               "premise_passages": ["[1] https://example.org/faq\n\nThe Chief State's Attorney plans the budget."],
               "question": "Who plans the budget?", "claim": "The Chief State's Attorney plans the budget [1].",
               "label": "supported", "orig_label": "attributable", "upstream_split": "test"}
RELEVANCE_ROW = {"id": "wice/test01425/s81", "source": "wice:evidence_sentence",
                 "query": "The grade crossing would be closed and replaced with an overpass.",
                 "passage": "Find out how LIRR is modernizing Long Island.", "label": 0, "page_title": "Mineola"}
ANSWER_ACCURACY_ROW = {"id": "nq301/218/1075", "source": "nq-open-301-human",
                       "question": "what was the main characteristic of post-world war ii american society",
                       "answer": "Conformity and conservatism", "reference": "strong economic growth",
                       "references_all": ["strong economic growth", "economic growth"], "label": 0,
                       "annotator_votes": ["No", "No"], "lexical_match": False}
CITATION_ROW = {"id": "attributionbench-ExpertQA/e4f975f1a2", "source": "attributionbench:ExpertQA",
                "question": "How does a COVID infection relate to anxiety?",
                "passages": [{"id": "5", "text": "Survivors were more often prescribed antidepressants."}],
                "answer": "Survivors were more often prescribed antidepressants [5].", "labels": [1]}


def first_row(tmp_path: Path, raw: dict):
    return next(iter_cases(write_cases(tmp_path / "rows.jsonl", [raw])))


def test_support_rows_map_claim_and_premise_passages(tmp_path):
    raw = SUPPORT_ROW
    row = first_row(tmp_path, raw)
    assert row.error is None
    assert row.data["answer"] == raw["claim"]
    assert row.data["contexts"] == raw["premise_passages"]
    assert row.data["question"] == raw["question"]
    assert row.meta["label"] == raw["label"] and row.meta["source"] == raw["source"]
    assert row.id == raw["id"]


def test_relevance_rows_map_query_and_single_passage(tmp_path):
    raw = RELEVANCE_ROW
    row = first_row(tmp_path, raw)
    assert row.data["question"] == raw["query"]
    assert row.data["contexts"] == [raw["passage"]]


def test_answer_accuracy_rows_map_references_all(tmp_path):
    raw = ANSWER_ACCURACY_ROW
    row = first_row(tmp_path, raw)
    assert row.data["references"] == raw["references_all"]
    assert (row.data["question"], row.data["answer"], row.data["reference"]) == (
        raw["question"], raw["answer"], raw["reference"])


def test_citation_rows_are_read_as_is(tmp_path):
    raw = CITATION_ROW
    row = first_row(tmp_path, raw)
    assert row.data["passages"] == raw["passages"] and row.data["answer"] == raw["answer"]
    assert "contexts" not in row.data


def test_user_map_wins_over_aliases_and_other_tools_names():
    data, meta = map_fields({"prompt": "Q?", "output": "A.", "query": "other", "label": 1},
                            parse_field_map(["question=prompt"]))
    assert data == {"question": "Q?", "answer": "A."}
    assert meta == {"query": "other", "label": 1}
    data, _ = map_fields({"input": {"text": "Q?", "lang": "en"}, "answer": "A."},
                         parse_field_map(["question=input.text"]))
    assert data == {"question": "Q?", "answer": "A."}
    data, _ = map_fields({"user_input": "Q", "response": "A", "retrieved_contexts": ["p"], "reference": "R"})
    assert data == {"question": "Q", "answer": "A", "contexts": ["p"], "reference": "R"}


@pytest.mark.parametrize("bad", [["question"], ["nofield=x"], ["question="]])
def test_bad_field_map_names_the_problem(bad):
    with pytest.raises(ConfigError, match="--map"):
        parse_field_map(bad)


def test_reader_is_lazy_and_numbers_bad_lines(tmp_path):
    path = write_cases(tmp_path / "c.jsonl", [{"id": "a", "question": "q", "answer": "a"}, "{not json", "[1, 2]",
                                              "", {"question": "q2", "answer": "a2"}, {"id": "a", "answer": "x"}])
    rows = iter_cases(path)
    assert iter(rows) is rows  # a generator: nothing read up front
    rows = list(rows)
    assert [r.id for r in rows] == ["a", "line-2", "line-3", "line-5", "a#2"]
    assert rows[1].error.field == "line" and "line 2" in str(rows[1].error) and "JSON" in str(rows[1].error)
    assert "line 3" in str(rows[2].error) and "list" in str(rows[2].error)
    assert rows[4].meta["duplicate_id"] == "a"


def test_missing_dataset_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        run_dataset(tmp_path / "nope.jsonl", ["relevancy"], judge=ScriptedJudge(best), cache=False)


# -- a run -------------------------------------------------------------------------------------
def test_run_writes_header_and_one_line_per_case_and_agent(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(6) + [{"id": "bad", "question": "Q?", "answer": "BAD answer"}])
    out = tmp_path / "r.jsonl"
    summary = run_dataset(data, ["relevancy", "accuracy"], judge=ScriptedJudge(by_answer), out=out, cache=False,
                          settings={"anthropic_api_key": "sk-ant-secret-123456789", "note": "x"})
    records = read(out)
    header, footer = records[0], records[-1]
    assert header["type"] == "header" and header["format_version"] == 1 and header["framework_version"]
    assert header["judge"]["model"] == "scripted"
    assert header["settings"]["anthropic_api_key"] == "**********" and header["settings"]["note"] == "x"
    assert "sk-ant-secret" not in out.read_text()
    assert set(header["prompt_hashes"]) == {"relevancy", "accuracy"}
    assert header["prompt_hashes"]["relevancy"]["relevancy"]
    lines = case_lines(out)
    assert len(lines) == 14
    assert {(r["agent"], r["id"]) for r in lines} == {(a, f"c{i}") for a in ("relevancy", "accuracy")
                                                      for i in range(6)} | {("relevancy", "bad"), ("accuracy", "bad")}
    bad = [r for r in lines if r["id"] == "bad"]
    assert {r["status"] for r in bad} == {"FAIL"}
    assert all(r["checks"] and r["checks"][0]["prompt_hash"] for r in lines)
    assert footer["type"] == "footer" and footer["interrupted"] is False
    assert footer["prompt_hashes_seen"]["relevancy"]["relevancy"] == header["prompt_hashes"]["relevancy"]["relevancy"]
    assert summary["relevancy"].passed == 6 and summary["relevancy"].failed == 1
    assert summary["accuracy"].cases == 7
    assert summary.exit_code == 1
    assert summary.usage.calls == sum(r["usage"]["calls"] for r in lines)


def test_all_passed_exit_code_zero(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(3))
    summary = run_dataset(data, "relevancy", judge=ScriptedJudge(best), out=tmp_path / "r.jsonl", cache=False)
    assert summary.exit_code == 0 and summary["relevancy"].pass_rate == 1.0
    assert summary["relevancy"].mean_score == 1.0


def test_bad_rows_and_judge_outages_are_recorded_and_the_run_goes_on(tmp_path):
    rows = [cases(1)[0], "{oops", {"id": "noanswer", "question": "Q?"},
            {"id": "wrongtype", "question": "Q?", "answer": 42}, {"id": "down", "question": "Q?", "answer": "DOWN"},
            cases(2)[1]]
    data = write_cases(tmp_path / "c.jsonl", rows)
    out = tmp_path / "r.jsonl"
    summary = run_dataset(data, ["relevancy"], judge=ScriptedJudge(by_answer), out=out, cache=False)
    lines = {r["id"]: r for r in case_lines(out)}
    assert lines["c0"]["status"] == "PASS" and lines["c1"]["status"] == "PASS"
    assert lines["line-2"]["status"] == "ERROR" and lines["line-2"]["error"]["line"] == 2
    assert lines["noanswer"]["error"]["field"] == "answer" and lines["noanswer"]["error"]["line"] == 3
    assert "line 3" in lines["noanswer"]["error"]["message"]
    assert lines["wrongtype"]["error"]["field"] == "answer"
    assert lines["down"]["status"] == "UNSCORED" and lines["down"]["score"] is None
    assert "503" in lines["down"]["checks"][0]["error"]
    s = summary["relevancy"]
    assert (s.passed, s.failed, s.unscored, s.errors) == (2, 0, 1, 3)


def test_existing_results_are_not_overwritten_silently(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(2))
    out = tmp_path / "r.jsonl"
    run_dataset(data, "relevancy", judge=ScriptedJudge(best), out=out, cache=False)
    with pytest.raises(ConfigError, match="--resume"):
        run_dataset(data, "relevancy", judge=ScriptedJudge(best), out=out, cache=False)
    run_dataset(data, "relevancy", judge=ScriptedJudge(best), out=out, cache=False, overwrite=True)
    assert len(case_lines(out)) == 2
    with pytest.raises(ConfigError, match="dataset itself"):
        run_dataset(data, "relevancy", judge=ScriptedJudge(best), out=data, cache=False, overwrite=True)


@pytest.mark.parametrize("agents,match", [("nosuch", "unknown agent 'nosuch'"), ("relevancy,relevancy", "twice"),
                                          ("", "no agent")])
def test_agent_names_are_checked(tmp_path, agents, match):
    data = write_cases(tmp_path / "c.jsonl", cases(1))
    with pytest.raises(ConfigError, match=match):
        run_dataset(data, agents, judge=ScriptedJudge(best), out=tmp_path / "r.jsonl", cache=False)


def test_agent_instances_and_custom_agent_paths(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(2))
    agent = RelevancyAgent(judge=ScriptedJudge(best), threshold=0.9)
    summary = run_dataset(data, [agent], out=tmp_path / "r.jsonl", cache=tmp_path / "c.sqlite")
    assert summary["relevancy"].passed == 2
    assert agent.judge.__class__ is ScriptedJudge  # the caller's agent is not modified by the cache
    summary = run_dataset(data, "llm_validation_framework.agents.relevancy:RelevancyAgent",
                          judge=ScriptedJudge(best), out=tmp_path / "r2.jsonl", cache=False)
    assert summary["llm_validation_framework.agents.relevancy:RelevancyAgent"].passed == 2


def test_limit(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(10))
    summary = run_dataset(data, "relevancy", judge=ScriptedJudge(best), out=tmp_path / "r.jsonl", cache=False,
                          limit=4)
    assert summary.rows == 4 and len(case_lines(tmp_path / "r.jsonl")) == 4


# -- concurrency and memory ----------------------------------------------------------------------
class GaugeJudge(Judge):
    """Counts calls in flight; answers 'best' after a delay."""

    name = "gauge"

    def __init__(self, delay: float = 0.01) -> None:
        self.delay = delay
        self.now = 0
        self.peak = 0
        self.calls = 0

    async def verdict(self, request: VerdictRequest) -> Verdict:
        self.calls += 1
        self.now += 1
        self.peak = max(self.peak, self.now)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.now -= 1
        label = max(request.options, key=request.options.get)
        return Verdict(label=label, score=request.options[label], method="parsed", reason="ok",
                       usage=Usage(calls=1, prompt_tokens=10, completion_tokens=2, cost_usd=0.0001))


@pytest.mark.parametrize("concurrency", [1, 4, 16])
def test_concurrency_is_bounded_and_used(tmp_path, concurrency):
    data = write_cases(tmp_path / "c.jsonl", cases(40))
    judge = GaugeJudge()
    run_dataset(data, "relevancy", judge=judge, out=tmp_path / "r.jsonl", cache=False, concurrency=concurrency)
    assert judge.peak == concurrency  # one call per relevancy case


def test_producer_does_not_read_ahead(tmp_path, monkeypatch):
    """Streaming: while the first cases are judged, only a few rows beyond them have been read."""
    data = write_cases(tmp_path / "c.jsonl", cases(500))
    produced = {"n": 0, "at_first_call": None}
    real = runner_core.iter_cases

    def counting(*args, **kwargs):
        for row in real(*args, **kwargs):
            produced["n"] += 1
            yield row

    monkeypatch.setattr(runner_core, "iter_cases", counting)

    def judge(request):
        if produced["at_first_call"] is None:
            produced["at_first_call"] = produced["n"]
        return best(request)

    run_dataset(data, "relevancy", judge=ScriptedJudge(judge, delay=0.001), out=tmp_path / "r.jsonl",
                cache=False, concurrency=4)
    assert produced["n"] == 500
    assert produced["at_first_call"] <= 4 * 2 + 1


def test_progress_reports_counts_tokens_and_cost(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(5))
    events = []
    run_dataset(data, "relevancy", judge=GaugeJudge(), out=tmp_path / "r.jsonl", cache=False,
                on_progress=events.append)
    assert [e.done for e in events] == [0, 1, 2, 3, 4, 5] and {e.total for e in events} == {5}
    assert events[-1].passed == 5 and events[-1].usage.total_tokens == 60
    assert events[-1].usage.cost_usd == pytest.approx(0.0005)


def test_a_broken_progress_callback_never_stops_the_run(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(3))

    def boom(_event):
        raise RuntimeError("callback bug")

    summary = run_dataset(data, "relevancy", judge=ScriptedJudge(best), out=tmp_path / "r.jsonl", cache=False,
                          on_progress=boom)
    assert summary["relevancy"].passed == 3


# -- cache ---------------------------------------------------------------------------------------
def test_second_run_with_the_cache_makes_no_judge_calls(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(20))
    first_judge, second_judge = GaugeJudge(), GaugeJudge()
    cache = tmp_path / "cache.sqlite"
    first = run_dataset(data, "accuracy", judge=first_judge, out=tmp_path / "r1.jsonl", cache=cache)
    second = run_dataset(data, "accuracy", judge=second_judge, out=tmp_path / "r2.jsonl", cache=cache)
    assert first_judge.calls == 40 and second_judge.calls == 0
    assert second.usage.calls == 0 and second.usage.cached_calls == 40 and second.usage.total_tokens == 0
    assert [(r["id"], r["score"]) for r in sorted(case_lines(tmp_path / "r1.jsonl"), key=lambda r: r["id"])] == \
           [(r["id"], r["score"]) for r in sorted(case_lines(tmp_path / "r2.jsonl"), key=lambda r: r["id"])]
    third_judge = GaugeJudge()
    run_dataset(data, "accuracy", judge=third_judge, out=tmp_path / "r3.jsonl", cache=False)
    assert third_judge.calls == 40


# -- resume and interruption ------------------------------------------------------------------------
def test_resume_skips_done_cases_and_retries_unscored_and_errors(tmp_path):
    rows = cases(6) + [{"id": "flaky", "question": "Q?", "answer": "DOWN"}]
    data = write_cases(tmp_path / "c.jsonl", rows)
    out = tmp_path / "r.jsonl"
    run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=out, cache=False, limit=3)
    assert len(case_lines(out)) == 3
    run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=out, cache=False, resume=True)
    assert [r["status"] for r in case_lines(out) if r["id"] == "flaky"] == ["UNSCORED"]
    healed = ScriptedJudge(best)
    summary = run_dataset(data, "relevancy", judge=healed, out=out, cache=False, resume=True)
    assert len(healed.requests) == 1  # only the unscored case was asked again
    assert summary.skipped == 6 and summary.evaluated == 1
    s = summary["relevancy"]
    assert (s.cases, s.passed, s.unscored) == (7, 7, 0)  # the whole file, last line per case wins
    assert summary.exit_code == 0
    headers = [r for r in read(out) if r["type"] == "header"]
    assert [h["resumed"] for h in headers] == [False, True, True]


def test_resume_survives_a_torn_last_line(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(4))
    out = tmp_path / "r.jsonl"
    run_dataset(data, "relevancy", judge=ScriptedJudge(best), out=out, cache=False, limit=2)
    text = out.read_text().splitlines(keepends=True)
    out.write_text("".join(text[:-1]) + '{"type": "case", "id": "c2", "agent": "rel')  # killed mid-write
    judge = ScriptedJudge(best)
    summary = run_dataset(data, "relevancy", judge=judge, out=out, cache=False, resume=True)
    assert len(judge.requests) == 2 and summary["relevancy"].cases == 4
    assert sorted(r["id"] for r in case_lines(out)) == ["c0", "c1", "c2", "c3"]
    assert any("unreadable" in n for n in summary.notes)


async def test_cancelling_a_run_keeps_finished_cases_and_resume_completes_it(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(40))
    out = tmp_path / "r.jsonl"
    events = []
    task = asyncio.create_task(arun_dataset(data, "relevancy", judge=ScriptedJudge(best, delay=0.02), out=out,
                                            cache=False, concurrency=4, on_progress=events.append))
    while len(events) < 9:
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    records = read(out)
    done = [r for r in records if r["type"] == "case"]
    assert len(done) >= 8 and len(done) < 40
    assert records[-1]["type"] == "footer" and records[-1]["interrupted"] is True
    judge = ScriptedJudge(best)
    summary = await arun_dataset(data, "relevancy", judge=judge, out=out, cache=False, resume=True)
    assert len(judge.requests) == 40 - len(done)
    assert sorted(r["id"] for r in case_lines(out)) == sorted(f"c{i}" for i in range(40))
    assert summary["relevancy"].cases == 40


# -- failures that stop the run ---------------------------------------------------------------------------
class BrokenAgent(Agent):
    name = "broken"

    def plan(self, sample):
        raise RuntimeError("bug in plan()")


class MisconfiguredAgent(Agent):
    name = "misconfigured"

    def plan(self, sample):
        raise ConfigError("no API key for provider 'anthropic'")


def test_same_unexpected_error_on_every_case_aborts_early(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(200))
    out = tmp_path / "r.jsonl"
    with pytest.raises(RunAbortedError, match="first 20 cases all failed with RuntimeError: bug in plan"):
        run_dataset(data, [BrokenAgent(judge=ScriptedJudge(best))], out=out, cache=False, concurrency=2)
    assert len(case_lines(out)) < 30


def test_one_case_raising_does_not_abort(tmp_path):
    class SometimesBroken(Agent):
        name = "sometimes"

        def plan(self, sample):
            if sample.id == "c3":
                raise RuntimeError("only this one")
            return RelevancyAgent(judge=self.judge).plan(sample)

    data = write_cases(tmp_path / "c.jsonl", cases(30))
    summary = run_dataset(data, [SometimesBroken(judge=ScriptedJudge(best))], out=tmp_path / "r.jsonl",
                          cache=False)
    assert summary["sometimes"].errors == 1 and summary["sometimes"].passed == 29


def test_config_error_inside_a_case_stops_the_run(tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(50))
    out = tmp_path / "r.jsonl"
    with pytest.raises(ConfigError, match="no API key"):
        run_dataset(data, [MisconfiguredAgent(judge=ScriptedJudge(best))], out=out, cache=False)
    assert read(out)[-1]["type"] == "footer"


def test_refuses_inside_a_running_loop(tmp_path):
    async def inside():
        return run_dataset(tmp_path / "x.jsonl", "relevancy")

    with pytest.raises(RuntimeError, match="arun_dataset"):
        asyncio.run(inside())


# -- progress bar and summary table ----------------------------------------------------------------
def test_progress_bar_and_summary_render(tmp_path):
    from io import StringIO

    from rich.console import Console

    from llm_validation_framework.runner import render_summary
    from llm_validation_framework.apps.progress_bar import RunProgressBar

    data = write_cases(tmp_path / "c.jsonl", cases(4) + [{"id": "x", "question": "Q?", "answer": "BAD"}])
    buffer = StringIO()
    with RunProgressBar(enabled=True, console=Console(file=buffer, force_terminal=True, width=160)) as bar:
        summary = run_dataset(data, "relevancy", judge=GaugeJudge(), out=tmp_path / "r.jsonl", cache=False,
                              on_progress=bar.update)
    text = buffer.getvalue()
    assert "5/5" in text and "5 pass" in text and "60 tok" in text and "$0.0005" in text
    assert bar.last.done == 5
    assert RunProgressBar().enabled is False  # stderr is not a terminal under pytest
    wide, narrow = StringIO(), StringIO()
    render_summary(summary, Console(file=wide, width=160))
    render_summary(summary, Console(file=narrow, width=80))
    assert "pass rate" in wide.getvalue() and "100.0%" in wide.getvalue()
    assert "relevancy: 5 cases, pass rate 100.0%" in narrow.getvalue()


def test_repeats_are_each_asked_and_each_replayed_from_the_cache(tmp_path):
    """Stability runs ask a check N times: the cache must not collapse them into one answer."""
    data = write_cases(tmp_path / "c.jsonl", cases(4))
    counter = {"n": 0}

    def varying(request):
        counter["n"] += 1
        labels = sorted(request.options, key=request.options.get)
        return {"verdict": labels[counter["n"] % len(labels)], "reason": f"call {counter['n']}"}

    cache = tmp_path / "cache.sqlite"
    first = run_dataset(data, "relevancy", judge=ScriptedJudge(varying), out=tmp_path / "r1.jsonl", cache=cache,
                        repeats=3)
    assert counter["n"] == 12 and first.usage.calls == 12
    replay = ScriptedJudge([])
    second = run_dataset(data, "relevancy", judge=replay, out=tmp_path / "r2.jsonl", cache=cache, repeats=3)
    assert second.usage.calls == 0 and second.usage.cached_calls == 12
    scores = [{r["id"]: r["score"] for r in case_lines(tmp_path / name)} for name in ("r1.jsonl", "r2.jsonl")]
    assert scores[0] == scores[1]
    with pytest.raises(ConfigError, match="odd"):
        run_dataset(data, "relevancy", judge=ScriptedJudge([]), out=tmp_path / "r3.jsonl", cache=False, repeats=2)


def test_summary_reports_agreement_with_the_files_labels(tmp_path):
    """Labelled rows (a source and a label each): the summary says how often PASS agrees with them."""
    from io import StringIO

    from rich.console import Console

    from llm_validation_framework.runner import render_summary

    def by_overlap(request):  # a crude judge: supported when the claim's words appear in the passage
        text = request.prompt.lower()
        return best(request) if "the" in text else worst(request)

    rows = [{**SUPPORT_ROW, "id": f"s{i}", "source": f"source-{i % 2}",
             "claim": ("The budget is planned by the office." if i % 3 else "Budgets grow yearly."),
             "label": "supported" if i % 3 else "unsupported"} for i in range(40)]
    summary = run_dataset(write_cases(tmp_path / "support.jsonl", rows), "groundedness",
                          judge=ScriptedJudge(by_overlap), out=tmp_path / "r.jsonl", cache=False, limit=30)
    overall = [g for g in summary.label_groups if g.source == "(all)"][0]
    assert len(overall.labelled) + summary["groundedness"].unscored + summary["groundedness"].errors == 30
    assert overall.balanced_accuracy is not None and 0 <= overall.auc <= 1
    buffer = StringIO()
    render_summary(summary, Console(file=buffer, width=160))
    assert "groundedness against the file's labels: balanced accuracy" in buffer.getvalue()
    no_labels = write_cases(tmp_path / "c.jsonl", cases(2))
    assert run_dataset(no_labels, "relevancy", judge=ScriptedJudge(best), out=tmp_path / "r2.jsonl",
                       cache=False).label_groups == []


@pytest.mark.slow  # imports litellm, which takes seconds
def test_litellm_path_end_to_end_and_cached_rerun_makes_no_requests(tmp_path):
    from tests.support.stub_server import StubServer, best_verdict_reply

    from llm_validation_framework.judges.litellm.judge import LiteLLMJudge

    data = write_cases(tmp_path / "c.jsonl", cases(6))
    with StubServer() as server:
        server.default = best_verdict_reply(model="gpt-4o-mini")
        judge = LiteLLMJudge("openai/gpt-4o-mini", api_key="sk-test-not-a-key-123456", api_base=server.base_url)
        first = run_dataset(data, "accuracy", judge=judge, out=tmp_path / "r1.jsonl", cache=tmp_path / "c.sqlite",
                            settings={"openai_api_key": "sk-test-not-a-key-123456"})
        asked = len(server.chat_requests)
        second = run_dataset(data, "accuracy", judge=judge, out=tmp_path / "r2.jsonl", cache=tmp_path / "c.sqlite")
        assert len(server.chat_requests) == asked == first.usage.calls == 12
    assert second.usage.calls == 0 and second.usage.cached_calls == 12
    assert first.usage.total_tokens == 12 * 18 and first.usage.cost_usd > 0
    text = (tmp_path / "r1.jsonl").read_text()
    assert "sk-test-not-a-key" not in text  # neither the header's settings nor the judge's describe()
    header = read(tmp_path / "r1.jsonl")[0]
    assert header["judge"]["model"] == "openai/gpt-4o-mini" and header["settings"]["openai_api_key"] == "**********"
